import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, errors, harness, silent } from "../../../test/support/session-harness.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { AgentLibrary, defaultAgentDirs } from "../../subagents/agent-files.js";
import type { ScriptedTurn, ScriptRequestView } from "../../testing/script.js";
import { type AnyAgentTool, defineTool } from "../../tools/tool.js";
import type { Session } from "./session.js";

// Issue #26 finding 5: a call held for a person inside a fold or a sub-agent survives a restart.
// The first "process" is left waiting (its memory is gone for the second one); a second session
// manager on the same store loads the session: the call still waits (the session rests in
// AwaitingToolApproval naming it), a person approves it, it runs once, and its result reaches the
// parent, whose run goes on.

const ANA = { id: "u-ana", name: "Ana" };

/** A write tool that counts its runs. */
function countingWrite(): { tool: AnyAgentTool; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name: "write_note",
    label: "Write note",
    description: "Writes a note",
    category: "write",
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      runs.push(text);
      return { content: [{ type: "text", text: `wrote ${text} (NOTE-OK)` }] };
    },
  });
  return { tool, runs };
}

type Body = { systemPrompt: string; messages: Array<{ role: string; content: unknown }> };
const bodyOf = (view: ScriptRequestView) => view.body as Body;
const firstText = (body: Body) => JSON.stringify(body.messages[0]?.content ?? "");
const assistantTurns = (body: Body) => body.messages.filter((m) => m.role === "assistant").length;
const lastText = (body: Body) => JSON.stringify(body.messages.at(-1)?.content ?? "");

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
});
const say = (text: string): ScriptedTurn => ({ blocks: [{ type: "text", text }] });

/** Sends "go" and reads events until `held` finds the waiting call. */
async function runUntilHeld<T>(session: Session, held: (events: SessionEvent[]) => T | undefined) {
  const run = session.sendMessage({ type: "text", text: "go" })[Symbol.asyncIterator]();
  const seen: SessionEvent[] = [];
  for (;;) {
    const found = held(seen);
    if (found !== undefined) return found;
    const next = await run.next();
    if (next.done)
      throw new Error(`the run ended without waiting: ${JSON.stringify(seen.slice(-4))}`);
    seen.push(next.value);
  }
}

function toolResultOf(messages: readonly ContextMessage[], toolName: string) {
  return messages.find(
    (m) => m.body.message_type === "tool_result" && m.body.tool_name === toolName,
  );
}

describe("a call held inside a fold survives a restart", () => {
  function foldScript(view: ScriptRequestView): ScriptedTurn {
    const body = bodyOf(view);
    const inFold = firstText(body).includes("MARK:f");
    if (inFold) {
      return assistantTurns(body) === 0
        ? call("write_note", { text: "from-the-fold" })
        : say("the fold is done");
    }
    if (assistantTurns(body) === 0) {
      return call("branch", { description: "writer", prompt: "MARK:f write the note" });
    }
    return say(`parent saw: ${lastText(body).includes("NOTE-OK") ? "the note" : "nothing"}`);
  }

  async function heldFold(store: InMemorySessionStore, write: AnyAgentTool) {
    const first = harness(foldScript, { store, tools: () => [write], logger: silent });
    const session = await first.manager.create({
      config: {
        approval_policy: { type: "white_list", tools: ["branch"] },
        folding: { enabled: true },
      },
    });
    const held = await runUntilHeld(session, (seen) =>
      seen.flatMap((e) => (e.name === "fold_tool" ? [e.payload] : [])).at(0),
    );
    return { id: session.id, held };
  }

  it("still waits after the restart, runs once when approved, and the parent goes on", async () => {
    const store = new InMemorySessionStore();
    const write = countingWrite();
    const { id, held } = await heldFold(store, write.tool);
    expect(held).toMatchObject({ tool_name: "write_note", status: "pending_approval" });
    // give the first process's writes a moment (its fold waits in memory forever)
    await new Promise((r) => setTimeout(r, 20));

    const second = harness(foldScript, { store, tools: () => [write.tool], logger: silent });
    const reloaded = await second.manager.get(id);
    expect(reloaded?.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: [held.tool_call_id],
      tool_names: ["write_note"],
    });
    // the fold is still running, its call still pending on its stored row
    const [fold] = (await reloaded?.folds()) ?? [];
    expect(fold?.status).toBe("running");
    const request = fold?.steps.find((s) => s.body.message_type === "tool_request");
    expect(request?.body).toMatchObject({
      calls: [{ id: held.tool_call_id, approval: "pending" }],
    });
    // the parent's `branch` call has no result yet: the fold's answer is what it waits for
    expect(toolResultOf(reloaded?.messages().messages ?? [], "branch")).toBeUndefined();
    expect(write.runs).toEqual([]);

    const decided = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.tool_call_id, decision: "approve" }], {
        by: ANA,
      }),
    );
    expect(errors(decided)).toEqual([]);
    expect(write.runs).toEqual(["from-the-fold"]);
    const decision = decided.find((e) => e.name === "fold_tool");
    expect(decision?.payload).toMatchObject({
      tool_call_id: held.tool_call_id,
      status: "approved",
      decided_by: ANA,
    });
    // the call's approval is stored on the fold's row, with who decided
    const stored = await store.loadSession(id);
    const row = stored?.messages.find((m) => m.id === request?.id);
    expect(row?.body).toMatchObject({
      calls: [{ id: held.tool_call_id, approval: "approved", decided_by: ANA }],
    });
    // the fold's result holds the call's output; the parent got it and answered
    const branchResult = toolResultOf(reloaded?.messages().messages ?? [], "branch");
    expect(JSON.stringify(branchResult?.body)).toContain("NOTE-OK");
    expect(reloaded?.state).toEqual({ type: "Idle" });
    expect(reloaded?.messages().messages.at(-1)?.body).toMatchObject({
      text: "parent saw: the note",
    });
    const [ended] = (await reloaded?.folds()) ?? [];
    expect(ended?.status).not.toBe("running");

    // runs once: a second decision is refused, nothing runs again
    const again = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.tool_call_id, decision: "approve" }]),
    );
    expect(errors(again)).toHaveLength(1);
    // and a third process sees the same: nothing waits
    const third = harness(foldScript, { store, tools: () => [write.tool], logger: silent });
    const later = await third.manager.get(id);
    expect(later?.state.type).toBe("Idle");
    expect(write.runs).toEqual(["from-the-fold"]);
  });

  it("a graceful shutdown (drain) leaves the call waiting instead of denying it", async () => {
    const store = new InMemorySessionStore();
    const write = countingWrite();
    const first = harness(foldScript, { store, tools: () => [write.tool], logger: silent });
    const session = await first.manager.create({
      config: {
        approval_policy: { type: "white_list", tools: ["branch"] },
        folding: { enabled: true },
      },
    });
    const held = await runUntilHeld(session, (seen) =>
      seen.flatMap((e) => (e.name === "fold_tool" ? [e.payload] : [])).at(0),
    );
    await new Promise((r) => setTimeout(r, 20));
    // SIGTERM: the grace ends at once; the operation waiting on a person is not interrupted
    await first.manager.drain(0);
    const stored = await store.loadSession(session.id);
    const request = stored?.messages.find(
      (m) => m.meta?.fold_id !== undefined && m.body.message_type === "tool_request",
    );
    expect(request?.body).toMatchObject({
      calls: [{ id: held.tool_call_id, approval: "pending" }],
    });

    const second = harness(foldScript, { store, tools: () => [write.tool], logger: silent });
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state).toMatchObject({
      type: "AwaitingToolApproval",
      pending_requests: [held.tool_call_id],
    });
    await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.tool_call_id, decision: "approve" }]),
    );
    expect(write.runs).toEqual(["from-the-fold"]);
    expect(reloaded?.state).toEqual({ type: "Idle" });
  });

  it("denied after the restart: the call never runs and the parent is told", async () => {
    const store = new InMemorySessionStore();
    const write = countingWrite();
    const { id, held } = await heldFold(store, write.tool);
    await new Promise((r) => setTimeout(r, 20));
    const second = harness(foldScript, { store, tools: () => [write.tool], logger: silent });
    const reloaded = await second.manager.get(id);
    const decided = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.tool_call_id, decision: "deny" }], {
        by: ANA,
      }),
    );
    expect(errors(decided)).toEqual([]);
    expect(write.runs).toEqual([]);
    expect(decided.find((e) => e.name === "fold_tool")?.payload).toMatchObject({
      status: "denied",
      decided_by: ANA,
    });
    expect(reloaded?.state).toEqual({ type: "Idle" });
    expect(reloaded?.messages().messages.at(-1)?.body).toMatchObject({
      text: "parent saw: nothing",
    });
  });
});

describe("a call held inside a sub-agent survives a restart", () => {
  function workspace(): string {
    const ws = mkdtempSync(join(tmpdir(), "arbor-held-child-"));
    mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
    writeFileSync(
      join(ws, ".arbor", "agents", "researcher.md"),
      "---\nname: researcher\ndescription: Finds facts\ntools: write_note\n---\nYou research.\n",
    );
    return ws;
  }

  function subAgentScript(view: ScriptRequestView): ScriptedTurn {
    const body = bodyOf(view);
    if (body.systemPrompt.startsWith("You research.")) {
      return assistantTurns(body) === 0
        ? call("write_note", { text: "from-the-child" })
        : say("the child is done");
    }
    if (assistantTurns(body) === 0) return call("researcher", { task: "write the note" });
    return say(`parent saw: ${lastText(body).includes("NOTE-OK") ? "the note" : "nothing"}`);
  }

  it("still waits after the restart, runs once when approved, and the parent goes on", async () => {
    const store = new InMemorySessionStore();
    const write = countingWrite();
    const ws = workspace();
    const make = () => {
      const agents = new AgentLibrary(defaultAgentDirs(ws));
      return harness(subAgentScript, {
        store,
        tools: () => [write.tool],
        logger: silent,
        agents: () => agents,
      });
    };
    const first = make();
    const session = await first.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["researcher"] } },
    });
    const held = await runUntilHeld(session, (seen) =>
      seen
        .flatMap((e) =>
          e.name === "subagent_update" && e.payload.kind === "approval" ? [e.payload] : [],
        )
        .at(0),
    );
    await new Promise((r) => setTimeout(r, 20));

    const second = make();
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: [held.call_id],
      tool_names: ["write_note"],
    });
    expect(toolResultOf(reloaded?.messages().messages ?? [], "researcher")).toBeUndefined();

    const decided = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.call_id, decision: "approve" }], {
        by: ANA,
      }),
    );
    expect(errors(decided)).toEqual([]);
    expect(write.runs).toEqual(["from-the-child"]);
    expect(
      decided.find((e) => e.name === "subagent_update" && e.payload.kind === "approval")?.payload,
    ).toMatchObject({ call_id: held.call_id, status: "approved", decided_by: ANA });
    const result = toolResultOf(reloaded?.messages().messages ?? [], "researcher");
    expect(JSON.stringify(result?.body)).toContain("NOTE-OK");
    expect(reloaded?.state).toEqual({ type: "Idle" });
    expect(reloaded?.messages().messages.at(-1)?.body).toMatchObject({
      text: "parent saw: the note",
    });
    const again = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.call_id, decision: "approve" }]),
    );
    expect(errors(again)).toHaveLength(1);
    expect(write.runs).toEqual(["from-the-child"]);
  });
});

describe("a call held inside an ask-N-ways candidate survives a restart", () => {
  function candidateScript(view: ScriptRequestView): ScriptedTurn {
    const body = bodyOf(view);
    if (body.systemPrompt.startsWith("CANDIDATE-A")) {
      return call("write_note", { text: "from-the-candidate" });
    }
    if (body.systemPrompt.startsWith("CANDIDATE-B")) return say("b answers at once");
    // the session's run after the restart: it sees the candidate's call and its result
    return say(`session saw: ${lastText(body).includes("NOTE-OK") ? "the note" : "nothing"}`);
  }

  it("still waits after the restart, runs once when approved, and the answer goes on", async () => {
    const store = new InMemorySessionStore();
    const write = countingWrite();
    const make = () =>
      harness(candidateScript, { store, tools: () => [write.tool], logger: silent });
    const first = make();
    const session = await first.manager.create({
      config: { approval_policy: { type: "manual" } },
    });
    const run = session
      .askParallel({
        session_id: session.id,
        payload: { type: "text", text: "go" },
        candidates: [{ system_prompt: "CANDIDATE-A" }, { system_prompt: "CANDIDATE-B" }],
        judge: { strategy: "pick_first" },
      })
      [Symbol.asyncIterator]();
    const seen: SessionEvent[] = [];
    const pending = () =>
      seen
        .flatMap((e) =>
          e.name === "candidate_tool" && e.payload.status === "pending_approval" ? [e.payload] : [],
        )
        .at(0);
    while (pending() === undefined) {
      const next = await run.next();
      if (next.done) throw new Error("the group ended without waiting");
      seen.push(next.value);
    }
    const held = pending()!;
    await new Promise((r) => setTimeout(r, 20));

    const second = make();
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: [held.tool_call_id],
      tool_names: ["write_note"],
    });
    const decided = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.tool_call_id, decision: "approve" }], {
        by: ANA,
      }),
    );
    expect(errors(decided)).toEqual([]);
    expect(write.runs).toEqual(["from-the-candidate"]);
    expect(decided.find((e) => e.name === "candidate_tool")?.payload).toMatchObject({
      tool_call_id: held.tool_call_id,
      status: "approved",
      decided_by: ANA,
    });
    // the candidate's call and its result continue the active branch, with who approved it
    const messages = reloaded?.messages().messages ?? [];
    const request = messages.find((m) => m.body.message_type === "tool_request");
    expect(request?.body).toMatchObject({
      calls: [{ id: held.tool_call_id, approval: "approved", decided_by: ANA }],
    });
    expect(JSON.stringify(toolResultOf(messages, "write_note")?.body)).toContain("NOTE-OK");
    expect(reloaded?.state).toEqual({ type: "Idle" });
    expect(messages.at(-1)?.body).toMatchObject({ text: "session saw: the note" });
    const again = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: held.tool_call_id, decision: "approve" }]),
    );
    expect(errors(again)).toHaveLength(1);
    expect(write.runs).toEqual(["from-the-candidate"]);
  });
});
