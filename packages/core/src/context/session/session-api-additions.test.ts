import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  echoTool,
  gatedTool,
  harness,
  say,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { findLastSequence } from "./stored-events.js";

// What the web pages read from a session besides its operations: the event sequences a client
// subscribes after, the title taken from the first message, and the workspace file listing.

describe("session sequences", () => {
  it("lastSequence follows every commit; resumeFromSequence equals it while idle", async () => {
    const h = harness([say("Hello."), say("Again.")]);
    const session = await h.manager.create();
    expect(session.lastSequence).toBe(0);
    expect(session.resumeFromSequence).toBe(0);
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    const last = Math.max(...events.map((e) => e.sequence));
    expect(session.lastSequence).toBe(last);
    expect(session.resumeFromSequence).toBe(last);
    const stored = await h.store.readEvents(session.id, 0);
    expect(stored.at(-1)?.sequence).toBe(last);
  });

  it("while an operation runs, resumeFromSequence is the sequence before its first event", async () => {
    const slow = gatedTool();
    const h = harness([say("First."), call("slow", {}), say("Done.")], {
      tools: () => [slow.tool, echoTool],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "one" }));
    const before = session.lastSequence;
    const sending = collect(session.sendMessage({ type: "text", text: "two" }));
    await slow.started;
    expect(session.resumeFromSequence).toBe(before);
    expect(session.lastSequence).toBeGreaterThan(before);
    slow.release();
    const events = await sending;
    expect(Math.min(...events.filter((e) => e.sequence > 0).map((e) => e.sequence))).toBe(
      before + 1,
    );
    expect(session.resumeFromSequence).toBe(session.lastSequence);
  });

  it("a session loaded from the store knows its last sequence", async () => {
    const store = new InMemorySessionStore();
    const first = harness([say("Hello.")], { store });
    const created = await first.manager.create();
    await collect(created.sendMessage({ type: "text", text: "hi" }));
    const second = harness([], { store });
    const loaded = await second.manager.get(created.id);
    expect(loaded?.lastSequence).toBe(created.lastSequence);
    expect(loaded?.resumeFromSequence).toBe(created.lastSequence);
  });

  it("findLastSequence finds the newest sequence for any count with few reads", async () => {
    let reads = 0;
    const store = new InMemorySessionStore({
      faults: (operation) => {
        if (operation.kind === "readEvents") reads++;
        return undefined;
      },
    });
    const h = harness([], { store });
    const session = await h.manager.create();
    expect(await findLastSequence(store, session.id)).toBe(0);
    for (let n = 1; n <= 37; n++) {
      await store.write(session.id, {
        events: [{ name: "error", payload: errorPayload(session.id) }],
      });
      expect(await findLastSequence(store, session.id)).toBe(n);
    }
    reads = 0;
    await findLastSequence(store, session.id);
    expect(reads).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(37)) + 2);
  });
});

function errorPayload(sessionId: string) {
  return { context_id: sessionId, code: "internal" as const, message: "x", recoverable: true };
}

describe("session title", () => {
  it("a new session takes its title from the first line of its first text message", async () => {
    const h = harness([say("One."), say("Two.")]);
    const session = await h.manager.create();
    expect(session.title).toBe("New session");
    const long = `  Refactor   the parser ${"x".repeat(80)}\nsecond line`;
    await collect(session.sendMessage({ type: "text", text: long }));
    expect(session.title.length).toBeLessThanOrEqual(60);
    expect(session.title.startsWith("Refactor the parser xx")).toBe(true);
    expect(session.title.endsWith("…")).toBe(true);
    // stored with the message: a fresh load sees it
    const stored = (await h.store.listSessions()).find((s) => s.id === session.id);
    expect(stored?.title).toBe(session.title);
    await collect(session.sendMessage({ type: "text", text: "another" }));
    expect(session.title.startsWith("Refactor the parser")).toBe(true);
  });

  it("keeps a title given at creation, and short text whole", async () => {
    const h = harness([say("One."), say("Two.")]);
    const named = await h.manager.create({ title: "Mine" });
    await collect(named.sendMessage({ type: "text", text: "hello" }));
    expect(named.title).toBe("Mine");
    const plain = await h.manager.create();
    await collect(plain.sendMessage({ type: "text", text: "fix the bug\nin main.ts" }));
    expect(plain.title).toBe("Fix the bug");
  });

  it("a file reference does not name the session; the text after it does", async () => {
    const workspace = tempWorkspace({ "a.txt": "one\n" });
    const h = harness([say("Read."), say("Ok.")], { tools: () => [] });
    const session = await h.manager.create({ config: { workspace } });
    await collect(session.sendMessage({ type: "file_reference", path: "a.txt" }));
    expect(session.title).toBe("New session");
    await collect(session.sendMessage({ type: "text", text: "summarize it" }));
    expect(session.title).toBe("Summarize it");
  });
});

describe("session.listFiles", () => {
  it("lists the workspace's files, filtered and capped; none without a workspace", async () => {
    const workspace = tempWorkspace({ "README.md": "", "b.ts": "" });
    for (const dir of ["src", "node_modules/pkg", ".git", "dist"]) {
      mkdirSync(join(workspace, dir), { recursive: true });
    }
    writeFileSync(join(workspace, "src", "main.ts"), "");
    writeFileSync(join(workspace, "node_modules", "pkg", "index.js"), "");
    writeFileSync(join(workspace, ".git", "HEAD"), "");
    writeFileSync(join(workspace, "dist", "main.js"), "");
    const h = harness([], { tools: () => [] });
    const session = await h.manager.create({ config: { workspace } });
    expect(await session.listFiles()).toEqual(["README.md", "b.ts", "src/main.ts"]);
    expect(await session.listFiles({ query: "MAIN" })).toEqual(["src/main.ts"]);
    expect(await session.listFiles({ limit: 2 })).toEqual(["README.md", "b.ts"]);
    const bare = await h.manager.create();
    expect(await bare.listFiles()).toEqual([]);
  });
});

describe("session cost", () => {
  it("each assistant row records the cost of its usage when the model's prices are known", async () => {
    const usage = { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 400 };
    const h = harness([
      { ...say("One."), model: "claude-sonnet-4-5-20250929", usage },
      { ...say("Done."), model: "gpt-4.1-2025-04-14", usage },
      // an unknown model (a local server, the offline model) has no cost
      { ...say("Again."), model: "local-llama", usage },
    ]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    await collect(session.sendMessage({ type: "text", text: "more" }));
    await collect(session.sendMessage({ type: "text", text: "again" }));
    const assistant = session.messages().messages.filter((m) => m.role === "assistant");
    expect(assistant.map((m) => m.body.message_type)).toEqual(["text", "text", "text"]);
    const sonnet = (1000 * 3 + 200 * 15 + 3000 * 0.3 + 400 * 3.75) / 1_000_000;
    const gpt = (1000 * 2 + 200 * 8 + 3000 * 0.5 + 400 * 2) / 1_000_000;
    expect(assistant[0]!.meta?.cost_usd).toBeCloseTo(sonnet, 12);
    expect(assistant[1]!.meta?.cost_usd).toBeCloseTo(gpt, 12);
    expect(assistant[2]!.meta).not.toHaveProperty("cost_usd");
    expect(assistant[2]!.meta?.usage?.totalTokens).toBe(4600);
    // the usage carries its cost; an unknown model's is null, never 0
    expect(assistant[0]!.meta?.usage?.cost_usd).toBeCloseTo(sonnet, 12);
    expect(assistant[0]!.meta?.usage?.cost_complete).toBe(true);
    expect(assistant[1]!.meta?.usage?.cost_usd).toBeCloseTo(gpt, 12);
    expect(assistant[2]!.meta?.usage?.cost_usd).toBeNull();
    expect(assistant[2]!.meta?.usage?.cost_complete).toBe(false);
    // the store sums the known costs per session; a part without a price makes it incomplete
    const summary = (await h.store.listSessions()).find((s) => s.id === session.id);
    expect(summary?.usage.cost_usd).toBeCloseTo(sonnet + gpt, 12);
    expect(summary?.usage.cost_complete).toBe(false);
    expect(summary?.usage.totalTokens).toBe(3 * 4600);
    // stored as built
    const stored = await h.store.loadSession(session.id);
    expect(stored?.messages.filter((m) => m.role === "assistant").map((m) => m.meta)).toEqual(
      assistant.map((m) => m.meta),
    );
  });
});
