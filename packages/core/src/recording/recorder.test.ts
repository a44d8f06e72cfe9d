import { describe, expect, it } from "vitest";
import type { AgentEvent, ContinuationKind, Logger } from "../agent/types.js";
import type { AssistantMessage, StopReason, Usage } from "../model/llm-messages.js";
import { userMessage } from "../model/llm-messages.js";
import { type LoopRecord, parseSessionLoopTree } from "../model/loop-records.js";
import { configIdOf, LoopRecorder } from "./recorder.js";
import { childrenOf, getLoop, parallelSiblings, rootLoops, totalUsage } from "./session-tree.js";
import { InMemoryLoopRecordSink, type LoopRecordSink } from "./sink.js";

// Events are built by hand, in the order the agent loop emits them (REQ-185).

function usage(input: number, output: number): Usage {
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output };
}

function assistant(
  text: string,
  stopReason: StopReason = "stop",
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    stopReason,
    model: "claude-test",
    provider: "anthropic",
    usage: usage(10, 5),
    timestamp: 1_000,
    ...extra,
  };
}

function start(
  loopId: string,
  sessionId: string,
  extra: { parentLoopId?: string; continuationKind?: ContinuationKind; timestamp?: number } = {},
): AgentEvent {
  return {
    type: "agentStart",
    loopId,
    agentId: `agent-of-${sessionId}`,
    sessionId,
    timestamp: extra.timestamp ?? 1_000,
    ...(extra.parentLoopId === undefined ? {} : { parentLoopId: extra.parentLoopId }),
    ...(extra.continuationKind === undefined ? {} : { continuationKind: extra.continuationKind }),
  };
}

/** turnStart + turnEnd of one turn answered by `message`. */
function turn(loopId: string, index: number, message: AssistantMessage): AgentEvent[] {
  return [
    { type: "turnStart", loopId, turn: index, triggeredBy: index === 0 ? "user" : "continuation" },
    { type: "turnEnd", loopId, turn: index, message, toolResults: [] },
  ];
}

function end(loopId: string, last: AssistantMessage, timestamp = 1_500, total?: Usage): AgentEvent {
  return {
    type: "agentEnd",
    loopId,
    messages: [userMessage("hi", 900), last],
    usage: total ?? last.usage,
    timestamp,
  };
}

function toolEnd(loopId: string, toolCallId: string, childLoopId?: string): AgentEvent {
  return {
    type: "toolExecutionEnd",
    loopId,
    toolCallId,
    toolName: "delegate",
    result: { content: [{ type: "text", text: "done" }] },
    isError: false,
    ...(childLoopId === undefined ? {} : { childLoopId }),
  };
}

function record(recorder: LoopRecorder, events: AgentEvent[]): void {
  for (const event of events) recorder.onEvent(event);
}

function capturingLogger(): Logger & { lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  const at = (level: string) => (message: string) => {
    lines.push({ level, message });
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const S = "sess-a";
const L1 = `${S}.anthropic.claude-test.1`;
const L2 = `${S}.anthropic.claude-test.2`;

describe("LoopRecorder", () => {
  it("test_session_recorder_single_loop: one run becomes one completed record", () => {
    const recorder = new LoopRecorder({ logger: capturingLogger() });
    const answer = assistant("hello");
    record(recorder, [start(L1, S, { timestamp: 1_000 }), ...turn(L1, 0, answer), end(L1, answer)]);

    const session = recorder.getSession(S);
    expect(session?.agentId).toBe(`agent-of-${S}`);
    expect(session?.loops).toHaveLength(1);
    const loop = session?.loops[0];
    expect(loop).toMatchObject({
      loopId: L1,
      sessionId: S,
      status: "completed",
      startedAt: 1_000,
      endedAt: 1_500,
      durationMs: 500,
      turns: 1,
      usage: usage(10, 5),
      config: { model: "claude-test", provider: "anthropic", configId: "anthropic.claude-test" },
      childLoopIds: [],
      childLoopRefs: [],
    });
    expect(loop?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(loop?.parentLoopId).toBeUndefined();
    expect(loop?.error).toBeUndefined();
    if (session) expect(totalUsage(session)).toEqual(usage(10, 5));
  });

  it("test_session_recorder_continuation: a continuation joins the session as a child loop", () => {
    const recorder = new LoopRecorder();
    const a = assistant("first");
    const b = assistant("second", "stop", { usage: usage(20, 7) });
    record(recorder, [start(L1, S), ...turn(L1, 0, a), end(L1, a)]);
    record(recorder, [
      start(L2, S, { parentLoopId: L1, continuationKind: { type: "default" }, timestamp: 2_000 }),
      ...turn(L2, 0, b),
      end(L2, b, 2_400),
    ]);

    expect(recorder.sessions()).toHaveLength(1);
    const session = recorder.getSession(S);
    if (!session) throw new Error("no session");
    expect(session.loops.map((l) => l.loopId)).toEqual([L1, L2]);
    expect(getLoop(session, L2)?.parentLoopId).toBe(L1);
    expect(getLoop(session, L1)?.childLoopIds).toEqual([L2]);
    expect(rootLoops(session).map((l) => l.loopId)).toEqual([L1]);
    expect(childrenOf(session, L1).map((l) => l.loopId)).toEqual([L2]);
    expect(totalUsage(session)).toEqual(usage(30, 12));
  });

  it("a loop is never recorded as its own parent (the parent link is dropped, with a warning)", () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => warnings.push(message),
      error: () => undefined,
    };
    const recorder = new LoopRecorder({ logger });
    const a = assistant("a");
    record(recorder, [start(L1, S), ...turn(L1, 0, a), end(L1, a)]);
    record(recorder, [start(L2, S, { parentLoopId: L2, continuationKind: { type: "default" } })]);
    const session = recorder.getSession(S);
    if (!session) throw new Error("no session");
    expect(getLoop(session, L2)?.parentLoopId).toBeUndefined();
    expect(getLoop(session, L2)?.childLoopIds).toEqual([]);
    expect(rootLoops(session).map((l) => l.loopId)).toEqual([L1, L2]);
    expect(warnings).toEqual(["a loop named itself as its parent; recorded without a parent"]);
  });

  it("test_session_recorder_continuation_kind: rerun and branch tags are kept and survive JSON", () => {
    const recorder = new LoopRecorder();
    const a = assistant("a");
    const rerun: ContinuationKind = { type: "rerun", tag: "2025-01-02T03:04:05Z" };
    const branch: ContinuationKind = { type: "branch", tag: "2025-01-02T03:04:06Z" };
    record(recorder, [start(L1, S), ...turn(L1, 0, a), end(L1, a)]);
    record(recorder, [start(L2, S, { parentLoopId: L1, continuationKind: rerun }), end(L2, a)]);
    record(recorder, [start(`${S}.x.3`, S, { parentLoopId: L1, continuationKind: branch })]);

    const session = recorder.getSession(S);
    if (!session) throw new Error("no session");
    expect(getLoop(session, L1)?.continuationKind).toBeUndefined();
    expect(getLoop(session, L2)?.continuationKind).toEqual(rerun);
    expect(getLoop(session, `${S}.x.3`)?.continuationKind).toEqual(branch);
    expect(childrenOf(session, L1).map((l) => l.loopId)).toEqual([L2, `${S}.x.3`]);
    expect(parseSessionLoopTree(JSON.parse(JSON.stringify(session)))).toEqual(session);
  });

  it("test_session_recorder_bidirectional_tree: a sub-agent session links both ways", () => {
    const recorder = new LoopRecorder();
    const child = "sess-child.anthropic.claude-test.1";
    const callsTool = assistant("delegating", "toolUse");
    const childAnswer = assistant("child result");
    const parentAnswer = assistant("all done");
    record(recorder, [
      start(L1, S),
      ...turn(L1, 0, callsTool),
      // the sub-agent tool runs a loop in its own session, naming the parent loop
      start(child, "sess-child", { parentLoopId: L1, timestamp: 1_100 }),
      ...turn(child, 0, childAnswer),
      end(child, childAnswer, 1_200),
      toolEnd(L1, "call_1", child),
      ...turn(L1, 1, parentAnswer),
      end(L1, parentAnswer),
    ]);

    const parentSession = recorder.getSession(S);
    const childSession = recorder.getSession("sess-child");
    if (!parentSession || !childSession) throw new Error("missing session");
    const parent = getLoop(parentSession, L1);
    expect(parent?.childLoopIds).toEqual([child]);
    expect(parent?.childLoopRefs).toEqual([
      {
        toolCallId: "call_1",
        toolName: "delegate",
        childSessionId: "sess-child",
        childLoopId: child,
      },
    ]);
    const spawnRef = {
      parentSessionId: S,
      parentLoopId: L1,
      parentAgentId: `agent-of-${S}`,
      toolCallId: "call_1",
      toolName: "delegate",
    };
    expect(childSession.parentSpawnRef).toEqual(spawnRef);
    expect(getLoop(childSession, child)?.spawnRef).toEqual(spawnRef);
    expect(getLoop(childSession, child)?.parentLoopId).toBe(L1);
    // The child is a root of its own session and not an in-session child of the parent.
    expect(rootLoops(childSession).map((l) => l.loopId)).toEqual([child]);
    expect(childrenOf(parentSession, L1)).toEqual([]);
    expect(parallelSiblings(parentSession, L1)).toEqual([]);
    expect(parentSession.parentSpawnRef).toBeUndefined();
  });

  it("links a child whose tool call was recorded before the child's agentStart", () => {
    const recorder = new LoopRecorder();
    record(recorder, [start(L1, S), toolEnd(L1, "call_9", "sess-late.x.1")]);
    expect(recorder.getLoop(L1)?.childLoopIds).toEqual(["sess-late.x.1"]);
    expect(recorder.getLoop(L1)?.childLoopRefs).toEqual([]);

    record(recorder, [start("sess-late.x.1", "sess-late")]);
    expect(recorder.getLoop(L1)?.childLoopRefs).toEqual([
      {
        toolCallId: "call_9",
        toolName: "delegate",
        childSessionId: "sess-late",
        childLoopId: "sess-late.x.1",
      },
    ]);
    expect(recorder.getLoop("sess-late.x.1")?.parentLoopId).toBe(L1);
    expect(recorder.getSession("sess-late")?.parentSpawnRef?.toolCallId).toBe("call_9");
  });

  it("REQ-221: flushing between child agentEnd and parent toolExecutionEnd still enriches the SpawnRef", async () => {
    const sink = new InMemoryLoopRecordSink();
    const recorder = new LoopRecorder({ sink });
    const child = "sess-child.c.1";
    const answer = assistant("child result");
    record(recorder, [
      start(L1, S),
      start(child, "sess-child", { parentLoopId: L1 }),
      ...turn(child, 0, answer),
      end(child, answer),
    ]);
    await recorder.flush();
    expect(sink.latest(child)?.status).toBe("completed");
    expect(sink.latest(child)?.spawnRef?.toolCallId).toBeUndefined();
    // The child session is settled but its parent loop is open: it must stay in memory.
    expect(recorder.releaseSettled()).toEqual([]);

    recorder.onEvent(toolEnd(L1, "call_1", child));
    await recorder.flush();
    const enriched = {
      parentSessionId: S,
      parentLoopId: L1,
      parentAgentId: `agent-of-${S}`,
      toolCallId: "call_1",
      toolName: "delegate",
    };
    expect(recorder.getSession("sess-child")?.parentSpawnRef).toEqual(enriched);
    expect(sink.latest(child)?.spawnRef).toEqual(enriched);
    expect(sink.latest(L1)?.childLoopRefs.map((r) => r.toolCallId)).toEqual(["call_1"]);
    const stored = sink.sessions().find((s) => s.sessionId === "sess-child");
    expect(stored?.parentSpawnRef).toEqual(enriched);

    recorder.onEvent(end(L1, assistant("done")));
    expect(recorder.releaseSettled().sort()).toEqual([S, "sess-child"].sort());
    expect(recorder.sessions()).toEqual([]);
  });

  it("derives the status from the last assistant message's stop reason", () => {
    const recorder = new LoopRecorder();
    const failed = assistant("", "error", { errorMessage: "401 invalid key" });
    const aborted = assistant("partial", "aborted");
    const cut = assistant("long", "length");
    record(recorder, [start("e.1", "e"), end("e.1", failed)]);
    record(recorder, [start("a.1", "a"), end("a.1", aborted)]);
    record(recorder, [start("l.1", "l"), end("l.1", cut)]);
    expect(recorder.getLoop("e.1")).toMatchObject({ status: "error", error: "401 invalid key" });
    expect(recorder.getLoop("a.1")?.status).toBe("aborted");
    expect(recorder.getLoop("a.1")?.error).toBeUndefined();
    expect(recorder.getLoop("l.1")?.status).toBe("completed");
  });

  it("prefers agentEnd's usage total and keeps the per-turn sum when it is empty", () => {
    const recorder = new LoopRecorder();
    const a = assistant("a");
    const empty: Usage = usage(0, 0);
    record(recorder, [start("u.1", "u"), ...turn("u.1", 0, a), ...turn("u.1", 1, a)]);
    expect(recorder.getLoop("u.1")?.usage).toEqual(usage(20, 10));
    record(recorder, [end("u.1", a, 1_500, usage(25, 12))]);
    expect(recorder.getLoop("u.1")?.usage).toEqual(usage(25, 12));
    expect(recorder.getLoop("u.1")?.turns).toBe(2);

    record(recorder, [start("v.1", "v"), ...turn("v.1", 0, a), end("v.1", a, 1_500, empty)]);
    expect(recorder.getLoop("v.1")?.usage).toEqual(usage(10, 5));
  });

  it("abandon closes a running loop with an error, and a late agentEnd still wins", () => {
    const recorder = new LoopRecorder({ now: () => 4_000 });
    record(recorder, [start(L1, S, { timestamp: 1_000 })]);
    expect(recorder.abandon("nope", "x")).toBe(false);
    expect(recorder.abandon(L1, "stream closed before agentEnd")).toBe(true);
    expect(recorder.getLoop(L1)).toMatchObject({
      status: "error",
      error: "stream closed before agentEnd",
      endedAt: 4_000,
      durationMs: 3_000,
    });
    expect(recorder.abandon(L1, "again")).toBe(false);

    recorder.onEvent(end(L1, assistant("made it")));
    expect(recorder.getLoop(L1)?.status).toBe("completed");
    expect(recorder.getLoop(L1)?.error).toBeUndefined();
  });

  it("returned closes a loop stopped by beforeTurn (no agentEnd) from its last answer; a closed loop stays as it ended", () => {
    const recorder = new LoopRecorder({ now: () => 4_000 });
    const asked = assistant("", "toolUse", { usage: usage(7, 3) });
    record(recorder, [start(L1, S, { timestamp: 1_000 }), ...turn(L1, 0, asked)]);
    expect(recorder.returned("nope", [])).toBe(false);
    expect(recorder.returned(L1, [userMessage("plan it"), asked])).toBe(true);
    expect(recorder.getLoop(L1)).toMatchObject({
      status: "completed",
      endedAt: 4_000,
      durationMs: 3_000,
      turns: 1,
      usage: usage(7, 3),
    });
    expect(recorder.getLoop(L1)?.messages).toHaveLength(2);
    expect(recorder.getLoop(L1)?.error).toBeUndefined();

    // a loop that ended with agentEnd keeps that outcome
    record(recorder, [start(L2, S), ...turn(L2, 0, asked), end(L2, assistant("x", "error"))]);
    expect(recorder.returned(L2, [])).toBe(false);
    expect(recorder.getLoop(L2)?.status).toBe("error");
  });

  it("ignores events of unrecorded loops and duplicate starts without throwing", () => {
    const logger = capturingLogger();
    const recorder = new LoopRecorder({ logger });
    // beforeLoop returned false: agentEnd without agentStart
    recorder.onEvent({
      type: "agentEnd",
      loopId: "x.1",
      messages: [],
      usage: usage(0, 0),
      timestamp: 1,
    });
    record(recorder, [start(L1, S), start(L1, S)]);
    expect(recorder.sessions()).toHaveLength(1);
    expect(recorder.getSession(S)?.loops).toHaveLength(1);
    expect(logger.lines.map((l) => l.level)).toEqual(["debug", "warn"]);
  });

  it("hands out copies: changing a returned record does not change the recorder's", () => {
    const recorder = new LoopRecorder();
    record(recorder, [start(L1, S)]);
    const copy = recorder.getLoop(L1) as LoopRecord;
    copy.childLoopIds.push("bogus");
    expect(recorder.getLoop(L1)?.childLoopIds).toEqual([]);
  });
});

describe("LoopRecorder with a sink", () => {
  it("sends running, then completed records of a loop, in order", async () => {
    const sink = new InMemoryLoopRecordSink();
    const recorder = new LoopRecorder({ sink });
    const a = assistant("a", "toolUse");
    const b = assistant("b");
    record(recorder, [start(L1, S), ...turn(L1, 0, a), ...turn(L1, 1, b), end(L1, b)]);
    await recorder.flush();

    const statuses = sink.writes.filter((w) => w.loopId === L1).map((w) => w.status);
    expect(statuses[0]).toBe("running");
    expect(statuses.at(-1)).toBe("completed");
    expect(statuses.indexOf("completed")).toBe(statuses.length - 1);
    expect(sink.latest(L1)).toEqual(recorder.getLoop(L1));
    expect(sink.sessions()).toEqual(recorder.sessions());
  });

  it("never overlaps upserts of one loop, even when the sink is slow", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const seen: Array<{ status: string; turns: number }> = [];
    const slow: LoopRecordSink = {
      async upsertLoop(r) {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push({ status: r.status, turns: r.turns });
        inFlight -= 1;
      },
    };
    const recorder = new LoopRecorder({ sink: slow });
    const a = assistant("a", "toolUse");
    record(recorder, [start(L1, S), ...turn(L1, 0, a)]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    record(recorder, [...turn(L1, 1, a), ...turn(L1, 2, a), end(L1, assistant("z"))]);
    await recorder.flush();

    expect(maxInFlight).toBe(1);
    expect(seen[0]).toEqual({ status: "running", turns: 0 });
    expect(seen.at(-1)).toEqual({ status: "completed", turns: 3 });
    const turnsSeen = seen.map((s) => s.turns);
    expect([...turnsSeen].sort((x, y) => x - y)).toEqual(turnsSeen);
  });

  it("a failing sink is logged and does not break recording", async () => {
    const logger = capturingLogger();
    let calls = 0;
    const failing: LoopRecordSink = {
      upsertLoop() {
        calls += 1;
        if (calls % 2 === 0) throw new Error("disk full");
        return Promise.reject(new Error("database locked"));
      },
    };
    const recorder = new LoopRecorder({ sink: failing, logger });
    const a = assistant("a");
    record(recorder, [start(L1, S), ...turn(L1, 0, a), end(L1, a)]);
    await recorder.flush();

    expect(calls).toBeGreaterThanOrEqual(2);
    expect(recorder.getLoop(L1)?.status).toBe("completed");
    const errors = logger.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(calls);
    expect(errors[0]?.message).toBe("loop record sink failed");
  });
});

describe("configIdOf", () => {
  it("reads the middle segment of {sessionId}.{configId}.{N}", () => {
    expect(configIdOf("s1.openai.gpt-4.1.thinking.3", "s1")).toBe("openai.gpt-4.1.thinking");
    expect(configIdOf("s1.my-config.12", "s1")).toBe("my-config");
    expect(configIdOf("other.my-config.1", "s1")).toBeUndefined();
    expect(configIdOf("s1.7", "s1")).toBeUndefined();
    expect(configIdOf("s1.no-counter", "s1")).toBeUndefined();
  });
});
