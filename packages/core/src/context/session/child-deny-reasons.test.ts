import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  collect,
  errors,
  harness,
  silent,
  writeTool,
} from "../../../test/support/session-harness.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { AgentLibrary, defaultAgentDirs } from "../../subagents/agent-files.js";
import type { ScriptedTurn, ScriptRequestView } from "../../testing/script.js";
import type { Session } from "./session.js";

// Issue #27 case 2: "let Deny carry a reason that the model receives". A top-level denial's
// reason reaches the model in the call's result (deniedResultText); a call held inside a child
// loop (a fold, a sub-agent, an ask-N-ways candidate) is decided through the same POST /approvals,
// and its child model must receive the same text, whether the child still waits in memory or a
// restart cut it off (held-child-calls.ts).

const REASON = "use the scratch file instead";
const TOLD = `The user denied this tool call. The user's reason: ${REASON}`;

type Body = { systemPrompt: string; messages: Array<{ role: string; content: unknown }> };
const bodyOf = (view: ScriptRequestView) => view.body as Body;
const firstText = (body: Body) => JSON.stringify(body.messages[0]?.content ?? "");
const assistantTurns = (body: Body) => body.messages.filter((m) => m.role === "assistant").length;
const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
});
const say = (text: string): ScriptedTurn => ({ blocks: [{ type: "text", text }] });

/** The text of the tool results in a request's messages (what the model sees of them). */
function toolResultsSeen(body: Body): string {
  return body.messages
    .filter((m) => m.role === "toolResult")
    .map((m) => JSON.stringify(m.content))
    .join("\n");
}

/** Sends "go" (or runs `start`) and reads events until `held` finds the waiting call. */
async function runUntilHeld<T>(
  events: AsyncIterable<SessionEvent>,
  held: (events: SessionEvent[]) => T | undefined,
) {
  const run = events[Symbol.asyncIterator]();
  const seen: SessionEvent[] = [];
  for (;;) {
    const found = held(seen);
    if (found !== undefined) return { found, run };
    const next = await run.next();
    if (next.done)
      throw new Error(`the run ended without waiting: ${JSON.stringify(seen.slice(-4))}`);
    seen.push(next.value);
  }
}

/** Waits until the running operation holds a call in memory (its event may come first). */
async function heldInMemory(session: Session): Promise<void> {
  for (let i = 0; i < 200 && session.heldNestedCalls === 0; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(session.heldNestedCalls).toBe(1);
}

async function finish(run: AsyncIterator<SessionEvent>): Promise<void> {
  for (let next = await run.next(); !next.done; next = await run.next()) {}
}

// ---- a fold ----------------------------------------------------------------------------------

const foldRequests: Body[] = [];
function foldScript(view: ScriptRequestView): ScriptedTurn {
  const body = bodyOf(view);
  if (firstText(body).includes("MARK:f")) {
    foldRequests.push(body);
    return assistantTurns(body) === 0
      ? call("write_note", { text: "from-the-fold" })
      : say("the fold is done");
  }
  if (assistantTurns(body) === 0) {
    return call("branch", { description: "writer", prompt: "MARK:f write the note" });
  }
  return say("parent done");
}
const foldConfig = {
  approval_policy: { type: "white_list" as const, tools: ["branch"] },
  folding: { enabled: true },
};
const heldFold = (seen: SessionEvent[]) =>
  seen.flatMap((e) => (e.name === "fold_tool" ? [e.payload] : [])).at(0);

describe("a denial's reason reaches a fold's model", () => {
  it("while the fold waits", async () => {
    foldRequests.length = 0;
    const h = harness(foldScript, { tools: () => [writeTool], logger: silent });
    const session = await h.manager.create({ config: foldConfig });
    const { found, run } = await runUntilHeld(
      session.sendMessage({ type: "text", text: "go" }),
      heldFold,
    );
    await heldInMemory(session);
    const decided = await collect(
      session.decideToolCalls([
        { tool_call_id: found.tool_call_id, decision: "deny", reason: REASON },
      ]),
    );
    expect(errors(decided)).toEqual([]);
    await finish(run);
    expect(toolResultsSeen(foldRequests.at(-1) as Body)).toContain(TOLD);
    // the fold's row keeps the reason as a top-level call's does
    const [fold] = await session.folds();
    const request = fold?.steps.find((s) => s.body.message_type === "tool_request");
    expect(request?.body).toMatchObject({
      calls: [{ id: found.tool_call_id, approval: "denied", approval_note: `user: ${REASON}` }],
    });
  });

  it("after a restart cut it off", async () => {
    foldRequests.length = 0;
    const store = new InMemorySessionStore();
    const first = harness(foldScript, { store, tools: () => [writeTool], logger: silent });
    const session = await first.manager.create({ config: foldConfig });
    const { found } = await runUntilHeld(
      session.sendMessage({ type: "text", text: "go" }),
      heldFold,
    );
    await new Promise((r) => setTimeout(r, 20));
    const second = harness(foldScript, { store, tools: () => [writeTool], logger: silent });
    const reloaded = await second.manager.get(session.id);
    const decided = await collect(
      reloaded!.decideToolCalls([
        { tool_call_id: found.tool_call_id, decision: "deny", reason: REASON },
      ]),
    );
    expect(errors(decided)).toEqual([]);
    // the fold's loop is not continued (decision 0044): its stored step holds what it was told
    const [fold] = (await reloaded?.folds()) ?? [];
    const result = fold?.steps.find((s) => s.body.message_type === "tool_result");
    expect(JSON.stringify(result?.body)).toContain(TOLD);
  });
});

// ---- a sub-agent -----------------------------------------------------------------------------

function agentWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), "arbor-deny-reason-"));
  mkdirSync(join(ws, ".arbor", "agents"), { recursive: true });
  writeFileSync(
    join(ws, ".arbor", "agents", "researcher.md"),
    "---\nname: researcher\ndescription: Finds facts\ntools: write_note\n---\nYou research.\n",
  );
  return ws;
}
const childRequests: Body[] = [];
const parentRequests: Body[] = [];
function subAgentScript(view: ScriptRequestView): ScriptedTurn {
  const body = bodyOf(view);
  if (body.systemPrompt.startsWith("You research.")) {
    childRequests.push(body);
    return assistantTurns(body) === 0
      ? call("write_note", { text: "from-the-child" })
      : say("the child is done");
  }
  parentRequests.push(body);
  if (assistantTurns(body) === 0) return call("researcher", { task: "write the note" });
  return say("parent done");
}
const heldSubAgent = (seen: SessionEvent[]) =>
  seen
    .flatMap((e) =>
      e.name === "subagent_update" && e.payload.kind === "approval" ? [e.payload] : [],
    )
    .at(0);

describe("a denial's reason reaches a sub-agent's model", () => {
  const make = (store = new InMemorySessionStore(), ws = agentWorkspace()) => {
    const agents = new AgentLibrary(defaultAgentDirs(ws));
    return harness(subAgentScript, {
      store,
      tools: () => [writeTool],
      logger: silent,
      agents: () => agents,
    });
  };
  const config = { approval_policy: { type: "white_list" as const, tools: ["researcher"] } };

  it("while the sub-agent waits", async () => {
    childRequests.length = 0;
    const h = make();
    const session = await h.manager.create({ config });
    const { found, run } = await runUntilHeld(
      session.sendMessage({ type: "text", text: "go" }),
      heldSubAgent,
    );
    await heldInMemory(session);
    const decided = await collect(
      session.decideToolCalls([{ tool_call_id: found.call_id, decision: "deny", reason: REASON }]),
    );
    expect(errors(decided)).toEqual([]);
    await finish(run);
    expect(toolResultsSeen(childRequests.at(-1) as Body)).toContain(TOLD);
  });

  it("after a restart cut it off", async () => {
    parentRequests.length = 0;
    const store = new InMemorySessionStore();
    const ws = agentWorkspace();
    const session = await make(store, ws).manager.create({ config });
    const { found } = await runUntilHeld(
      session.sendMessage({ type: "text", text: "go" }),
      heldSubAgent,
    );
    await new Promise((r) => setTimeout(r, 20));
    const reloaded = await make(store, ws).manager.get(session.id);
    const decided = await collect(
      reloaded!.decideToolCalls([
        { tool_call_id: found.call_id, decision: "deny", reason: REASON },
      ]),
    );
    expect(errors(decided)).toEqual([]);
    // the child loop is not continued: the parent's model is told what the child would have been
    expect(toolResultsSeen(parentRequests.at(-1) as Body)).toContain(TOLD);
  });
});

// ---- an ask-N-ways candidate -----------------------------------------------------------------

const candidateRequests: Body[] = [];
const sessionRequests: Body[] = [];
function candidateScript(view: ScriptRequestView): ScriptedTurn {
  const body = bodyOf(view);
  if (body.systemPrompt.startsWith("CANDIDATE-A")) {
    candidateRequests.push(body);
    return assistantTurns(body) === 0
      ? call("write_note", { text: "from-the-candidate" })
      : say("a is done");
  }
  if (body.systemPrompt.startsWith("CANDIDATE-B")) return say("b answers at once");
  sessionRequests.push(body);
  return say("session done");
}
const heldCandidate = (seen: SessionEvent[]) =>
  seen
    .flatMap((e) =>
      e.name === "candidate_tool" && e.payload.status === "pending_approval" ? [e.payload] : [],
    )
    .at(0);
const ask = (session: Session) =>
  session.askParallel({
    session_id: session.id,
    payload: { type: "text", text: "go" },
    candidates: [{ system_prompt: "CANDIDATE-A" }, { system_prompt: "CANDIDATE-B" }],
    judge: { strategy: "pick_first" },
  });

describe("a denial's reason reaches an ask-N-ways candidate's model", () => {
  const config = { approval_policy: { type: "manual" as const } };

  it("while the candidate waits", async () => {
    candidateRequests.length = 0;
    const h = harness(candidateScript, { tools: () => [writeTool], logger: silent });
    const session = await h.manager.create({ config });
    const { found, run } = await runUntilHeld(ask(session), heldCandidate);
    await heldInMemory(session);
    const decided = await collect(
      session.decideToolCalls([
        { tool_call_id: found.tool_call_id, decision: "deny", reason: REASON },
      ]),
    );
    expect(errors(decided)).toEqual([]);
    await finish(run);
    expect(toolResultsSeen(candidateRequests.at(-1) as Body)).toContain(TOLD);
  });

  it("decided the moment its pending event arrives (before the call may be held)", async () => {
    // older finding: the pending event was stored before the call waited, so a decision sent in
    // that instant found nothing waiting and the candidate waited for ever
    candidateRequests.length = 0;
    const h = harness(candidateScript, { tools: () => [writeTool], logger: silent });
    const session = await h.manager.create({ config });
    const { found, run } = await runUntilHeld(ask(session), heldCandidate);
    const decided = await collect(
      session.decideToolCalls([
        { tool_call_id: found.tool_call_id, decision: "deny", reason: REASON },
      ]),
    );
    expect(errors(decided)).toEqual([]);
    await finish(run);
    expect(toolResultsSeen(candidateRequests.at(-1) as Body)).toContain(TOLD);
  });

  it("after a restart cut it off", async () => {
    sessionRequests.length = 0;
    const store = new InMemorySessionStore();
    const make = () =>
      harness(candidateScript, { store, tools: () => [writeTool], logger: silent });
    const session = await make().manager.create({ config });
    const { found } = await runUntilHeld(ask(session), heldCandidate);
    await new Promise((r) => setTimeout(r, 20));
    const reloaded = await make().manager.get(session.id);
    const decided = await collect(
      reloaded!.decideToolCalls([
        { tool_call_id: found.tool_call_id, decision: "deny", reason: REASON },
      ]),
    );
    expect(errors(decided)).toEqual([]);
    // the candidate's call and its result continue the active branch: the session's model sees it
    expect(toolResultsSeen(sessionRequests.at(-1) as Body)).toContain(TOLD);
  });
});
