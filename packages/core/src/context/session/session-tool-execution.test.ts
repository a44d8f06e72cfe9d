import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  collect,
  gatedTool,
  harness,
  say,
  stateData,
  states,
  writeTool,
} from "../../../test/support/session-harness.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { AgentLibrary, defaultAgentDirs } from "../../subagents/agent-files.js";
import { type AnyAgentTool, defineTool } from "../../tools/tool.js";

// Issue #26 finding 3: the session's `tool_execution` reaches its loop. Read-only calls of one
// answer run together (parallel_read_only, the default), each call keeps its own approval, and
// the results go back to the model in call order.

interface Span {
  tag: string;
  start: number;
  end: number;
}

/** A read-only tool that sleeps `ms` and records when it started and finished. */
function timedRead(spans: Span[], name = "look"): AnyAgentTool {
  return defineTool({
    name,
    label: name,
    description: "reads slowly",
    category: "read",
    parameters: z.object({ tag: z.string(), ms: z.number() }),
    execute: async ({ tag, ms }) => {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, ms));
      spans.push({ tag, start, end: performance.now() });
      return { content: [{ type: "text", text: `read ${tag}` }] };
    },
  });
}

const calls = (...list: Array<[string, string, Record<string, unknown>]>) => ({
  blocks: list.map(([id, name, args]) => ({
    type: "toolCall" as const,
    id,
    name,
    arguments: args,
  })),
});

const threeReads: Array<[string, string, Record<string, unknown>]> = [
  ["r1", "look", { tag: "one", ms: 60 }],
  ["r2", "look", { tag: "two", ms: 40 }],
  ["r3", "look", { tag: "three", ms: 20 }],
];

/** Every span starts before every other ends: they all ran at the same time. */
function overlapAll(spans: readonly Span[]): boolean {
  return spans.every((a) => spans.every((b) => a === b || a.start < b.end));
}

function resultIds(request: {
  messages: ReadonlyArray<{ role: string; toolCallId?: string }>;
}): string[] {
  return request.messages.flatMap((m) =>
    m.role === "toolResult" && m.toolCallId !== undefined ? [m.toolCallId] : [],
  );
}

describe("tool_execution", () => {
  it("defaults to parallel_read_only, stored with the config; PATCH changes it", async () => {
    const store = new InMemorySessionStore();
    const h = harness([], { store });
    const session = await h.manager.create();
    expect(session.config.tool_execution).toBe("parallel_read_only");
    expect((await session.updateConfig({ tool_execution: "sequential" }).result).ok).toBe(true);
    const stored = await store.loadSession(session.id);
    expect(stored?.session.config.tool_execution).toBe("sequential");
    const reloaded = await harness([], { store }).manager.get(session.id);
    expect(reloaded?.config.tool_execution).toBe("sequential");
  });

  it("parallel_read_only: three read-only calls of one answer overlap; results in call order", async () => {
    const spans: Span[] = [];
    const h = harness([calls(...threeReads), say("Read all three.")], {
      tools: () => [timedRead(spans), writeTool],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "read" }));
    expect(spans).toHaveLength(3);
    expect(overlapAll(spans)).toBe(true);
    // they finished shortest first, and still reached the model in call order
    expect(spans.map((s) => s.tag)).toEqual(["three", "two", "one"]);
    expect(resultIds(h.provider.requests[1]!)).toEqual(["r1", "r2", "r3"]);
    const rows = session.messages().messages.filter((m) => m.body.message_type === "tool_result");
    expect(rows.map((m) => m.body.message_type === "tool_result" && m.body.tool_call_id)).toEqual([
      "r1",
      "r2",
      "r3",
    ]);
    // "Executing tool n/3": each call's start is a move of its own
    const executing = stateData(events).filter((s) => s.type === "ExecutingTool");
    expect(executing.map((s) => s.type === "ExecutingTool" && `${s.index}/${s.total}`)).toEqual([
      "1/3",
      "2/3",
      "3/3",
    ]);
  });

  it("sequential: the same calls run one after another", async () => {
    const spans: Span[] = [];
    const h = harness([calls(...threeReads), say("Read all three.")], {
      tools: () => [timedRead(spans), writeTool],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" }, tool_execution: "sequential" },
    });
    await collect(session.sendMessage({ type: "text", text: "read" }));
    expect(spans.map((s) => s.tag)).toEqual(["one", "two", "three"]);
    for (let i = 1; i < spans.length; i++) {
      expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    }
  });

  it("parallel_read_only: a write runs alone, after the reads before it", async () => {
    const spans: Span[] = [];
    let writeStarted = 0;
    const write = defineTool({
      name: "write_note",
      label: "Write note",
      description: "writes",
      category: "write",
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        writeStarted = performance.now();
        return { content: [{ type: "text", text: `wrote ${text}` }] };
      },
    });
    const h = harness([calls(...threeReads, ["w1", "write_note", { text: "x" }]), say("Done.")], {
      tools: () => [timedRead(spans), write],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(overlapAll(spans)).toBe(true);
    expect(writeStarted).toBeGreaterThanOrEqual(Math.max(...spans.map((s) => s.end)));
    expect(resultIds(h.provider.requests[1]!)).toEqual(["r1", "r2", "r3", "w1"]);
  });

  it("parallel: every call of the answer runs at once, a write beside the reads", async () => {
    const spans: Span[] = [];
    const slowWrite = defineTool({
      name: "write_note",
      label: "Write note",
      description: "writes slowly",
      category: "write",
      parameters: z.object({ tag: z.string(), ms: z.number() }),
      execute: async ({ tag, ms }) => {
        const start = performance.now();
        await new Promise((r) => setTimeout(r, ms));
        spans.push({ tag, start, end: performance.now() });
        return { content: [{ type: "text", text: `wrote ${tag}` }] };
      },
    });
    const h = harness(
      [calls(...threeReads, ["w1", "write_note", { tag: "w", ms: 40 }]), say("Done.")],
      { tools: () => [timedRead(spans), slowWrite] },
    );
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" }, tool_execution: "parallel" },
    });
    await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(spans).toHaveLength(4);
    expect(overlapAll(spans)).toBe(true);
    expect(resultIds(h.provider.requests[1]!)).toEqual(["r1", "r2", "r3", "w1"]);
  });

  it("three read-only calls overlap while a write waits for its approval; one card per call, results in call order", async () => {
    const store = new InMemorySessionStore();
    const spans: Span[] = [];
    const h = harness([calls(...threeReads, ["w1", "write_note", { text: "x" }])], {
      store,
      tools: () => [timedRead(spans), writeTool],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["look"] } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(spans).toHaveLength(3);
    expect(overlapAll(spans)).toBe(true);
    // the write's card waited from before the reads started until after they ended
    expect(states(events).slice(-6)).toEqual([
      "ParsingToolCalls",
      "AwaitingToolApproval",
      "ExecutingTool",
      "ExecutingTool",
      "ExecutingTool",
      "AwaitingToolApproval",
    ]);
    expect(session.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: ["w1"],
      tool_names: ["write_note"],
    });
    const request = session.messages().messages.find((m) => m.body.message_type === "tool_request");
    const approvals =
      request?.body.message_type === "tool_request"
        ? request.body.calls.map((c: { id: string; approval: string }) => [c.id, c.approval])
        : [];
    expect(approvals).toEqual([
      ["r1", "auto_approved"],
      ["r2", "auto_approved"],
      ["r3", "auto_approved"],
      ["w1", "pending"],
    ]);
    const kinds = () => session.messages().messages.map((m) => m.body.message_type);
    expect(kinds().filter((k) => k === "tool_result")).toHaveLength(3);
    // a restart while the write waits: it still waits, and runs once approved
    const second = harness([say("Done.")], { store, tools: () => [timedRead(spans), writeTool] });
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state.type).toBe("AwaitingToolApproval");
    await collect(reloaded!.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }]));
    expect(reloaded!.state).toEqual({ type: "Idle" });
    expect(spans).toHaveLength(3);
    const sent = second.provider.requests[0]!;
    expect(resultIds(sent)).toEqual(["r1", "r2", "r3", "w1"]);
    const wrote = sent.messages.find(
      (m) => m.role === "toolResult" && (m as { toolCallId: string }).toolCallId === "w1",
    ) as { content: Array<{ text?: string }> } | undefined;
    expect(wrote?.content[0]?.text).toBe("wrote x");
  });

  it("an interrupt cuts the reads that run while a write waits; resume asks for the write again", async () => {
    const gated = gatedTool();
    const h = harness(
      [calls(["s1", "slow", {}], ["w1", "write_note", { text: "x" }]), say("Done.")],
      { tools: () => [gated.tool, writeTool] },
    );
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["slow"] } },
    });
    const operation = session.sendMessage({ type: "text", text: "go" });
    const collecting = collect(operation);
    await gated.started;
    await collect(session.interrupt());
    await collecting;
    expect(session.state).toMatchObject({ type: "Paused", reason: "interrupted" });
    const result = session
      .messages()
      .messages.find((m) => m.body.message_type === "tool_result" && m.body.tool_call_id === "s1");
    expect(result?.body.message_type === "tool_result" && result.body.status).toBe("cancelled");
    gated.release();
    await collect(session.resume());
    expect(session.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: ["w1"],
      tool_names: ["write_note"],
    });
    await collect(session.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }]));
    expect(session.state).toEqual({ type: "Idle" });
    expect(resultIds(h.provider.requests.at(-1)!)).toEqual(["s1", "w1"]);
  });

  it("the reads that run while a write waits report their progress (tool_progress)", async () => {
    const reporting = defineTool({
      name: "look",
      label: "look",
      description: "reads with progress",
      category: "read",
      parameters: z.object({ tag: z.string() }),
      execute: async ({ tag }, ctx) => {
        ctx.onProgress?.(`reading ${tag}`);
        await new Promise((r) => setTimeout(r, 20));
        return { content: [{ type: "text", text: `read ${tag}` }] };
      },
    });
    const h = harness(
      [calls(["r1", "look", { tag: "one" }], ["w1", "write_note", { text: "x" }])],
      { tools: () => [reporting, writeTool] },
    );
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["look"] } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "go" }));
    const progress = events.flatMap((e) =>
      e.name === "tool_progress" ? [[e.payload.tool_call_id, e.payload.message]] : [],
    );
    expect(progress).toEqual([["r1", "reading one"]]);
    expect(session.state.type).toBe("AwaitingToolApproval");
  });

  it("a write first: nothing of the answer runs before the person decides", async () => {
    const spans: Span[] = [];
    const h = harness([calls(["w1", "write_note", { text: "x" }], ...threeReads)], {
      tools: () => [timedRead(spans), writeTool],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["look"] } },
    });
    await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(spans).toEqual([]);
    expect(session.state).toMatchObject({ type: "AwaitingToolApproval", pending_requests: ["w1"] });
  });
});

describe("concurrent sibling folds (tool_execution: parallel)", () => {
  /** The parent asks for two folds in one answer; each fold reads slowly, then returns. */
  function foldScript(spans: Span[]) {
    return harness(
      (view) => {
        const request = view.body as {
          messages: Array<{ role: string; content: unknown }>;
        };
        const first = JSON.stringify(request.messages[0]?.content ?? "");
        const results = request.messages.filter((m) => m.role === "toolResult").length;
        const fold = /FOLD-(\w+)/.exec(first)?.[1];
        if (fold === undefined) {
          return results === 0
            ? calls(
                ["b1", "branch", { description: "left", prompt: "FOLD-left read the left side" }],
                [
                  "b2",
                  "branch",
                  { description: "right", prompt: "FOLD-right read the right side" },
                ],
              )
            : say("Both folds returned.");
        }
        return results === 0
          ? calls([`${fold}-read`, "look", { tag: fold, ms: 80 }])
          : calls([`${fold}-return`, "return", { message: `${fold} is done` }]);
      },
      { tools: () => [timedRead(spans), writeTool] },
    );
  }

  async function run(mode: "parallel" | "parallel_read_only") {
    const spans: Span[] = [];
    const h = foldScript(spans);
    const session = await h.manager.create({
      config: {
        approval_policy: { type: "auto_approve_all" },
        folding: { enabled: true },
        tool_execution: mode,
      },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "split the work" }));
    const folds = events.flatMap((e) =>
      e.name === "fold_started" || e.name === "fold_returned"
        ? [`${e.name === "fold_started" ? "start" : "end"}:${e.payload.fold_id}`]
        : [],
    );
    return { session, spans, folds, h };
  }

  it("two branch calls of one answer run their folds at the same time; both returns reach the parent in call order", async () => {
    const { session, spans, folds, h } = await run("parallel");
    expect(session.state).toEqual({ type: "Idle" });
    expect(folds).toHaveLength(4);
    // both folds started before either returned
    expect(folds.slice(0, 2).every((f) => f.startsWith("start:"))).toBe(true);
    expect(spans.map((s) => s.tag).sort()).toEqual(["left", "right"]);
    expect(overlapAll(spans)).toBe(true);
    const last = h.provider.requests.at(-1)!;
    expect(resultIds(last)).toEqual(["b1", "b2"]);
    const text = JSON.stringify(last.messages);
    expect(text.indexOf("left is done")).toBeLessThan(text.indexOf("right is done"));
    expect(text.indexOf("left is done")).toBeGreaterThan(-1);
  });

  it("parallel_read_only runs `branch` (not read-only) one fold after the other", async () => {
    const { spans, folds } = await run("parallel_read_only");
    expect(folds.map((f) => f.split(":")[0])).toEqual(["start", "end", "start", "end"]);
    expect(spans).toHaveLength(2);
    expect(overlapAll(spans)).toBe(false);
  });
});

describe("every loop kind takes the setting", () => {
  it("ask N ways: each candidate's read-only calls run together (parallel_read_only) or one by one (sequential)", async () => {
    async function candidateSpans(mode: "parallel_read_only" | "sequential") {
      const spans: Span[] = [];
      const h = harness(
        (view) => {
          const request = view.body as { messages: Array<{ role: string }> };
          const results = request.messages.filter((m) => m.role === "toolResult").length;
          return results === 0 ? calls(...threeReads) : say("Read all three.");
        },
        { tools: () => [timedRead(spans), writeTool] },
      );
      const session = await h.manager.create({
        config: { approval_policy: { type: "auto_approve_all" }, tool_execution: mode },
      });
      const result = await session.askParallel({
        session_id: session.id,
        payload: { type: "text", text: "read" },
        candidates: [{ label: "A" }, { label: "B" }],
        judge: { strategy: "pick_first" },
      }).result;
      expect(result.ok).toBe(true);
      return spans;
    }
    // the most reads running at one moment: two candidates run at once, each with its own mode
    const most = (spans: readonly Span[]) =>
      Math.max(
        ...spans.map((a) => spans.filter((b) => b.start <= a.start && a.start < b.end).length),
      );
    const together = await candidateSpans("parallel_read_only");
    expect(together).toHaveLength(6);
    expect(most(together)).toBeGreaterThanOrEqual(3);
    const apart = await candidateSpans("sequential");
    expect(apart).toHaveLength(6);
    expect(most(apart)).toBeLessThanOrEqual(2);
  });

  it("a sub-agent's read-only calls of one answer overlap", async () => {
    const ws = mkdtempSync(join(tmpdir(), "arbor-tool-exec-"));
    mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
    writeFileSync(
      join(ws, ".arbor", "agents", "reader.md"),
      "---\nname: reader\ndescription: Reads things\ntools: look\n---\nYou read.\n",
    );
    const agents = new AgentLibrary(defaultAgentDirs(ws));
    const spans: Span[] = [];
    const h = harness(
      (view) => {
        const request = view.body as {
          systemPrompt: string;
          messages: Array<{ role: string }>;
        };
        const results = request.messages.filter((m) => m.role === "toolResult").length;
        if (request.systemPrompt.startsWith("You read.")) {
          return results === 0 ? calls(...threeReads) : say("Read all three.");
        }
        return results === 0
          ? calls(["s1", "reader", { task: "read three things" }])
          : say("The reader is done.");
      },
      { tools: () => [timedRead(spans), writeTool], agents: () => agents },
    );
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(session.state).toEqual({ type: "Idle" });
    expect(spans).toHaveLength(3);
    expect(overlapAll(spans)).toBe(true);
  });
});
