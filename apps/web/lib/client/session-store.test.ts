import type { ContextState } from "@arbor/core";
import { describe, expect, it, vi } from "vitest";
import { type LiveFold, mergeFolds, SessionLiveStore } from "./session-store";
import type { StreamedEvent } from "./sse";

const base = { context_id: "s", timestamp: "2025-01-01T00:00:00Z", metadata: {} };

function update(sequence: number, state: ContextState, created?: string): StreamedEvent {
  return {
    name: "context_update",
    sequence,
    payload: {
      ...base,
      current_state: state,
      ...(created
        ? {
            message_update: {
              kind: "created" as const,
              message_id: created,
              message_type: "text" as const,
              role: "assistant" as const,
              branch_id: "b",
            },
          }
        : {}),
    },
  };
}

function delta(sequence: number, text: string, channel: "text" | "thinking" = "text") {
  const event: StreamedEvent = {
    name: "content_delta",
    sequence,
    payload: { context_id: "s", message_id: "m1", sequence, delta: text, channel, is_final: false },
  };
  return event;
}

function store() {
  const effects = { onMessagesChanged: vi.fn(), onSessionChanged: vi.fn() };
  return { store: new SessionLiveStore(effects), effects };
}

describe("SessionLiveStore", () => {
  it("refetches the session (its title, the list's count) when a user message is stored", () => {
    const { store: s, effects } = store();
    const stored: StreamedEvent = {
      name: "context_update",
      sequence: 1,
      payload: {
        ...base,
        current_state: { type: "OptimizingContext" },
        message_update: {
          kind: "created",
          message_id: "u1",
          message_type: "text",
          role: "user",
          branch_id: "b",
        },
      },
    };
    s.ingest(stored, "subscription");
    expect(effects.onSessionChanged).toHaveBeenCalledTimes(1);
    // an assistant's message does not: its operation refetches when it rests
    s.ingest(update(2, { type: "ProcessingLLMResponse" }, "a1"), "subscription");
    expect(effects.onSessionChanged).toHaveBeenCalledTimes(1);
  });

  it("refetches the session when its title changed (the model's automatic title), and only then", () => {
    const { store: s, effects } = store();
    s.ingest(update(1, { type: "Idle" }), "subscription");
    const rested = effects.onSessionChanged.mock.calls.length;
    s.ingest(update(2, { type: "Idle" }), "subscription");
    expect(effects.onSessionChanged).toHaveBeenCalledTimes(rested);
    const titled: StreamedEvent = {
      name: "context_update",
      sequence: 3,
      payload: {
        ...base,
        current_state: { type: "Idle" },
        metadata: { title_changed: "Comparing sorting algorithms" },
      },
    };
    s.ingest(titled, "subscription");
    expect(effects.onSessionChanged).toHaveBeenCalledTimes(rested + 1);
  });

  it("keeps the auto-loop round through the next request until the operation rests", () => {
    const { store: s } = store();
    s.ingest(update(1, { type: "ProcessingUserMessage" }), "subscription");
    s.ingest(
      update(2, { type: "ToolAutoLoop", depth: 2, tools_executed: 3, tool_names: ["bash"] }),
      "subscription",
    );
    s.ingest(update(3, { type: "PreparingLLMRequest" }), "subscription");
    s.ingest(update(4, { type: "ConnectingToLLM" }), "subscription");
    s.ingest(update(5, { type: "AwaitingLLMFirstChunk" }), "subscription");
    expect(s.getSnapshot().autoLoop).toEqual({ depth: 2, tools_executed: 3, tool_names: ["bash"] });
    s.ingest(update(6, { type: "Idle" }), "subscription");
    expect(s.getSnapshot().autoLoop).toBeUndefined();
  });

  it("builds the streamed text per channel and the state from context_update", () => {
    const { store: s, effects } = store();
    s.ingest(
      update(1, { type: "StreamingLLMResponse", chunks: 0, chars: 0 }, "m1"),
      "subscription",
    );
    s.ingest(delta(2, "Hel"), "subscription");
    s.ingest(delta(3, "hmm", "thinking"), "subscription");
    s.ingest(delta(4, "lo"), "subscription");
    const snap = s.getSnapshot();
    expect(snap.streams.m1).toEqual({ text: "Hello", thinking: "hmm", chunks: 3 });
    expect(snap.state?.type).toBe("StreamingLLMResponse");
    expect(snap.announced.map((a) => a.message_id)).toEqual(["m1"]);
    expect(snap.lastSequence).toBe(4);
    expect(effects.onMessagesChanged).toHaveBeenCalled();
  });

  it("announces a message known only from its deltas until its content_final", () => {
    const { store: s } = store();
    s.ingest(delta(1, "Hi"), "subscription");
    expect(s.getSnapshot().announced).toEqual([
      { message_id: "m1", message_type: "text", role: "assistant", branch_id: "" },
    ]);
    s.ingest(
      {
        name: "content_final",
        sequence: 2,
        payload: { context_id: "s", message_id: "m1", sequence: 2, is_final: true },
      },
      "subscription",
    );
    expect(s.getSnapshot().announced).toEqual([]);
    expect(s.getSnapshot().streams.m1?.text).toBe("Hi");
  });

  it("places an answer announced at stream start, keeps it past content_final, drops a failed attempt", () => {
    const { store: s } = store();
    const streaming: ContextState = { type: "StreamingLLMResponse", chunks: 0, chars: 0 };
    s.ingest(update(1, streaming, "m1"), "subscription");
    expect(s.getSnapshot().announced).toEqual([
      { message_id: "m1", message_type: "text", role: "assistant", branch_id: "b" },
    ]);
    s.ingest(delta(2, "Hi"), "subscription");
    s.ingest(
      {
        name: "content_final",
        sequence: 3,
        payload: { context_id: "s", message_id: "m1", sequence: 3, is_final: true },
      },
      "subscription",
    );
    // announced with its branch: it stays until the fetched list holds it
    expect(s.getSnapshot().announced.map((m) => m.message_id)).toEqual(["m1"]);
    s.ingest(
      {
        name: "context_update",
        sequence: 4,
        payload: {
          ...base,
          current_state: streaming,
          message_update: { kind: "status_changed", message_id: "m1", status: "failed" },
        },
      },
      "subscription",
    );
    expect(s.getSnapshot().announced).toEqual([]);
  });

  it("never applies an event twice, whichever source brings it", () => {
    const { store: s } = store();
    s.ingest(delta(1, "a"), "request");
    s.ingest(delta(1, "a"), "subscription");
    s.ingest(delta(2, "b"), "subscription");
    s.ingest(delta(2, "b"), "request");
    expect(s.getSnapshot().streams.m1?.text).toBe("ab");
  });

  it("leaves an event after a gap on a request stream to the in-order subscription", () => {
    const { store: s } = store();
    s.ingest(delta(1, "a"), "subscription");
    s.ingest(delta(3, "c"), "request"); // 2 not seen yet: skipped, not applied out of order
    expect(s.getSnapshot().streams.m1?.text).toBe("a");
    s.ingest(delta(2, "b"), "subscription");
    s.ingest(delta(3, "c"), "subscription");
    expect(s.getSnapshot().streams.m1?.text).toBe("abc");
  });

  it("shows an error until a new operation starts; live refusals are left to their request", () => {
    const { store: s } = store();
    const refusal: StreamedEvent = {
      name: "error",
      sequence: 0,
      payload: { context_id: "s", code: "invalid_transition", message: "no", recoverable: true },
    };
    s.ingest(refusal, "subscription");
    expect(s.getSnapshot().error).toBeUndefined();
    s.ingest(refusal, "request");
    expect(s.getSnapshot().error?.message).toBe("no");
    s.ingest(update(1, { type: "ProcessingUserMessage" }), "subscription");
    expect(s.getSnapshot().error).toBeUndefined();
  });

  it("asks for a session refetch when a resting state is reached", () => {
    const { store: s, effects } = store();
    s.ingest(update(1, { type: "ConnectingToLLM" }), "subscription");
    expect(effects.onSessionChanged).not.toHaveBeenCalled();
    s.ingest(update(2, { type: "Idle" }), "subscription");
    expect(effects.onSessionChanged).toHaveBeenCalledTimes(1);
  });
  it("follows a sub-agent call: start, steps, text, end", () => {
    const { store: s } = store();
    const base = { context_id: "s", tool_call_id: "c1", tool_name: "researcher", loop_id: "s.c.2" };
    const events = [
      { ...base, kind: "started" as const },
      { ...base, kind: "progress" as const, text: "read_file {}" },
      { ...base, kind: "text" as const, delta: "Fact" },
      { ...base, kind: "text" as const, delta: ": 42." },
    ];
    events.forEach((payload, i) => {
      s.ingest({ name: "subagent_update", sequence: i + 1, payload }, "subscription");
    });
    expect(s.getSnapshot().subAgents.c1).toMatchObject({
      status: "running",
      progress: ["read_file {}"],
      text: "Fact: 42.",
    });
    const usage = {
      input: 3,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 4,
      cost_usd: null,
      cost_complete: false,
    };
    s.ingest(
      {
        name: "subagent_update",
        sequence: 5,
        payload: { ...base, kind: "ended", status: "completed", turns: 1, usage },
      },
      "subscription",
    );
    expect(s.getSnapshot().subAgents.c1).toMatchObject({ status: "completed", turns: 1, usage });
  });
  it("keeps a sub-agent's held call with its latest status", () => {
    const { store: s } = store();
    const base = { context_id: "s", tool_call_id: "c1", tool_name: "researcher", loop_id: "s.c.2" };
    const held = { ...base, kind: "approval" as const, call_id: "w1", call_name: "write_note" };
    s.ingest(
      {
        name: "subagent_update",
        sequence: 1,
        payload: { ...held, arguments: { text: "x" }, status: "pending_approval" },
      },
      "subscription",
    );
    expect(s.getSnapshot().subAgents.c1?.approvals).toEqual([
      {
        call_id: "w1",
        call_name: "write_note",
        arguments: { text: "x" },
        status: "pending_approval",
        cancelled: false,
      },
    ]);
    s.ingest(
      {
        name: "subagent_update",
        sequence: 2,
        payload: { ...held, status: "denied", cancelled: true },
      },
      "subscription",
    );
    expect(s.getSnapshot().subAgents.c1?.approvals).toEqual([
      expect.objectContaining({ arguments: { text: "x" }, status: "denied", cancelled: true }),
    ]);
  });
  it("follows a fold from its start through the budget warning to its forced return", () => {
    const { store: s, effects } = store();
    s.ingest(
      {
        name: "fold_started",
        sequence: 1,
        payload: {
          context_id: "s",
          fold_id: "fold-1",
          parent_fold_id: null,
          depth: 1,
          description: "scan",
          budget: 1000,
          timeout_seconds: 300,
          injected_memory_ids: [],
          loop_id: "s.c.2",
        },
      },
      "subscription",
    );
    expect(s.getSnapshot().folds["fold-1"]).toMatchObject({ status: "running", tokens_used: 0 });
    s.ingest(
      {
        name: "fold_budget_warning",
        sequence: 2,
        payload: {
          context_id: "s",
          fold_id: "fold-1",
          tokens_used: 850,
          budget: 1000,
          tokens_left: 150,
        },
      },
      "subscription",
    );
    expect(s.getSnapshot().folds["fold-1"]).toMatchObject({ warned: true, tokens_used: 850 });
    s.ingest(
      {
        name: "fold_returned",
        sequence: 3,
        payload: {
          context_id: "s",
          fold_id: "fold-1",
          forced: true,
          reason: "budget",
          tokens_used: 1200,
          budget: 1000,
          message: "partial",
        },
      },
      "subscription",
    );
    expect(s.getSnapshot().folds["fold-1"]).toMatchObject({
      status: "forced",
      reason: "budget",
      tokens_used: 1200,
      message: "partial",
    });
    expect(effects.onMessagesChanged).toHaveBeenCalled();
  });

  it("refetches a fold's steps when one of its calls waits for a person or is decided", () => {
    const { store: s, effects } = store();
    for (const [sequence, status] of [
      [1, "pending_approval"],
      [2, "approved"],
    ] as const) {
      s.ingest(
        {
          name: "fold_tool",
          sequence,
          payload: {
            context_id: "s",
            fold_id: "fold-1",
            tool_call_id: "w1",
            tool_name: "write_file",
            status,
          },
        },
        "subscription",
      );
    }
    expect(effects.onMessagesChanged).toHaveBeenCalledTimes(2);
    expect(s.getSnapshot().lastSequence).toBe(2);
  });

  it("keeps the latest progress of each running tool call until the operation rests", () => {
    const { store: s } = store();
    const progress = (sequence: number, message: string): StreamedEvent => ({
      name: "tool_progress",
      sequence,
      payload: { context_id: "s", tool_call_id: "call-1", tool_name: "mcp__x__long", message },
    });
    s.ingest(
      update(1, {
        type: "ExecutingTool",
        tool_name: "mcp__x__long",
        attempt: 1,
        index: 1,
        total: 1,
      }),
      "subscription",
    );
    s.ingest(progress(2, "progress 1/3"), "subscription");
    s.ingest(progress(3, "halfway (2/3)"), "subscription");
    expect(s.getSnapshot().toolProgress).toEqual({ "call-1": "halfway (2/3)" });
    s.ingest(update(4, { type: "Idle" }), "subscription");
    expect(s.getSnapshot().toolProgress).toEqual({});
  });
});

describe("mergeFolds", () => {
  const live = (overrides: Partial<LiveFold>): LiveFold => ({
    fold_id: "fold-1",
    parent_fold_id: null,
    depth: 1,
    description: "scan",
    budget: 1000,
    tokens_used: 0,
    loop_id: "s.c.2.fold.1",
    tool_call_id: "call-1",
    status: "running",
    warned: false,
    reason: null,
    message: undefined,
    ...overrides,
  });
  const fetched = {
    fold_id: "fold-1",
    parent_fold_id: null,
    depth: 1,
    description: "scan",
    budget: 1000,
    timeout_seconds: 300,
    loop_id: "s.c.2.fold.1",
    tool_call_id: "call-1",
    injected_memory_ids: [],
    status: "running" as const,
    reason: null,
    tokens_used: 100,
    warned: false,
    message: null,
    steps: [],
  };

  it("shows a fold the events announced before the list has it", () => {
    expect(mergeFolds([], { "fold-1": live({ tokens_used: 40 }) })).toEqual([
      expect.objectContaining({ fold_id: "fold-1", tool_call_id: "call-1", steps: [] }),
    ]);
  });

  it("updates a running fetched fold from later events, but not an ended one", () => {
    const ended = live({ status: "forced", reason: "budget", tokens_used: 1100, message: "p" });
    expect(mergeFolds([fetched], { "fold-1": ended })[0]).toMatchObject({
      status: "forced",
      reason: "budget",
      tokens_used: 1100,
      message: "p",
    });
    const done = { ...fetched, status: "returned" as const, message: "ok", tokens_used: 300 };
    expect(mergeFolds([done], { "fold-1": live({ tokens_used: 50 }) })[0]).toMatchObject({
      status: "returned",
      tokens_used: 300,
    });
  });
});
