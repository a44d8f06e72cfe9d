import { describe, expect, it, vi } from "vitest";
import {
  call,
  collect,
  errors,
  harness,
  say,
  stateData,
  states,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import type { ContextUpdate } from "../../protocol/events.js";
import type { SessionWrite } from "../../store/types.js";

// Integration flows (spec "Integration test scenarios"): the exact state sequence of each flow.

const STREAM = ["ConnectingToLLM", "AwaitingLLMFirstChunk"];
/** the states of a message answered in one chunk */
const ONE_CHUNK_ANSWER = [
  "ProcessingUserMessage",
  "EnhancingSystemPrompt",
  "OptimizingContext",
  "PreparingLLMRequest",
  ...STREAM,
  "StreamingLLMResponse",
  "ProcessingLLMResponse",
  "Idle",
];

/** Runs `before` ahead of each write the harness's store receives (it may wait, or throw). */
function beforeWrites(
  h: ReturnType<typeof harness>,
  before: (change: SessionWrite) => Promise<void> | void,
): void {
  const write = h.store.write.bind(h.store);
  h.store.write = async (sessionId, change) => {
    await before(change);
    return write(sessionId, change);
  };
}

describe("the model request's own state moves", () => {
  /** the writes a store received: the state types each one moved through */
  function countingStore(h: ReturnType<typeof harness>): string[][] {
    const writes: string[][] = [];
    beforeWrites(h, (change) => {
      const moved = (change.events ?? []).flatMap((e) => {
        if (e.name !== "context_update") return [];
        const update = e.payload as ContextUpdate;
        return update.previous_state !== undefined ? [update.current_state.type] : [];
      });
      writes.push(moved);
    });
    return writes;
  }

  it("Preparing → Connecting → Awaiting are not a write each: each names the state before it", async () => {
    const h = harness([{ ...say("Hi."), chunkSize: 100 }]);
    const writes = countingStore(h);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    const moves = events.flatMap((e) =>
      e.name === "context_update" && e.payload.previous_state !== undefined
        ? [[e.payload.previous_state.type, e.payload.current_state.type]]
        : [],
    );
    // an unbroken chain: every move starts where the one before it ended
    for (let i = 1; i < moves.length; i++) expect(moves[i]?.[0]).toBe(moves[i - 1]?.[1]);
    expect(moves.map((m) => m[1])).toEqual(ONE_CHUNK_ANSWER);
    // the three request moves share one write (on their own, or with the first chunk)
    const request = writes.find((w) => w.includes("PreparingLLMRequest"));
    expect(request?.slice(0, 3)).toEqual([
      "PreparingLLMRequest",
      "ConnectingToLLM",
      "AwaitingLLMFirstChunk",
    ]);
    // sequences are gapless and increasing
    const sequences = events.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => (sequences[0] ?? 0) + i));
  });

  it("a slow response: the request's moves are stored on their own, before it arrives", async () => {
    const h = harness([{ ...say("Late."), chunkSize: 100, firstChunkDelayMs: 80 }]);
    const writes = countingStore(h);
    const session = await h.manager.create();
    const seen: string[] = [];
    for await (const event of session.sendMessage({ type: "text", text: "hi" })) {
      if (event.name === "context_update" && event.payload.previous_state !== undefined) {
        seen.push(event.payload.current_state.type);
      }
      // the scripted provider starts its message with the first chunk (no "start" before it)
      if (event.name === "content_delta") expect(seen).toContain("ConnectingToLLM");
    }
    // not held until the response: written at the next turn of the event loop
    expect(writes).toContainEqual(["PreparingLLMRequest", "ConnectingToLLM"]);
  });
});

describe("the user's message write and the model request", () => {
  /** holds the write that stores a user message until `release` */
  function gateUserMessageWrite(h: ReturnType<typeof harness>, fail = false) {
    let release = (): void => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    beforeWrites(h, async (change) => {
      if (change.messages?.some((m) => m.role === "user")) {
        await released;
        if (fail) throw new Error("disk full");
      }
    });
    return release;
  }

  it("the request goes out while the message is being written; every step is stored after it", async () => {
    const h = harness([{ ...say("Answer."), chunkSize: 100 }]);
    const release = gateUserMessageWrite(h);
    const session = await h.manager.create();
    const collecting = collect(session.sendMessage({ type: "text", text: "hi" }));
    await vi.waitFor(() => expect(h.provider.requests).toHaveLength(1));
    // the model sees the message that is not stored yet
    expect(JSON.stringify(h.provider.requests[0]?.messages)).toContain("hi");
    expect(session.messages().messages).toHaveLength(0);
    release();
    const events = await collecting;
    expect(states(events)).toEqual(ONE_CHUNK_ANSWER);
    const sequences = events.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => (sequences[0] ?? 0) + i));
    expect(session.messages().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("an interrupt while the message is being written: the message is kept, the run pauses", async () => {
    const h = harness([{ ...say("Cut."), chunkSize: 1, chunkDelayMs: 20, firstChunkDelayMs: 50 }]);
    const release = gateUserMessageWrite(h);
    const session = await h.manager.create();
    const collecting = collect(session.sendMessage({ type: "text", text: "hi" }));
    await vi.waitFor(() => expect(h.provider.requests).toHaveLength(1));
    const interrupting = collect(session.interrupt());
    release();
    const events = await collecting;
    await interrupting;
    expect(session.state).toMatchObject({ type: "Paused", reason: "interrupted" });
    expect(states(events).slice(0, 3)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
    ]);
    const messages = session.messages().messages;
    expect(messages[0]).toMatchObject({ role: "user", body: { text: "hi" } });
    expect(messages.at(-1)?.body).toMatchObject({ kind: "interrupted" });
  });

  it("a message write that fails: the request is cut, nothing else is stored, a storage error", async () => {
    const h = harness([{ ...say("Never shown."), chunkSize: 100, firstChunkDelayMs: 50 }]);
    const release = gateUserMessageWrite(h, true);
    const session = await h.manager.create();
    const collecting = collect(session.sendMessage({ type: "text", text: "hi" }));
    await vi.waitFor(() => expect(h.provider.requests).toHaveLength(1));
    release();
    const events = await collecting;
    expect(events.map((e) => [e.name, e.sequence])).toEqual([["error", 0]]);
    expect(errors(events).map((e) => e.code)).toEqual(["storage"]);
    expect(session.state.type).toBe("Idle");
    expect(session.messages().messages).toHaveLength(0);
    const stored = await h.store.readEvents(session.id, 0);
    expect(stored).toEqual([]);
  });
});

describe("integration flows", () => {
  it("simple text conversation: User → LLM → Response", async () => {
    const h = harness([{ ...say("Hello there, friend!"), chunkSize: 8 }]);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(states(events)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
      "PreparingLLMRequest",
      ...STREAM,
      "StreamingLLMResponse",
      "StreamingLLMResponse",
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "Idle",
    ]);
    expect(stateData(events).filter((s) => s.type === "StreamingLLMResponse")).toEqual([
      { type: "StreamingLLMResponse", chunks: 1, chars: 8 },
      { type: "StreamingLLMResponse", chunks: 2, chars: 16 },
      { type: "StreamingLLMResponse", chunks: 3, chars: 20 },
    ]);
    const deltas = events.flatMap((e) => (e.name === "content_delta" ? [e.payload.delta] : []));
    expect(deltas.join("")).toBe("Hello there, friend!");
    const final = events.find((e) => e.name === "content_final");
    expect(final?.name === "content_final" && final.payload.sequence).toBe(final?.sequence);
    // sequences increase by one across every stored event
    const seqs = events.map((e) => e.sequence);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    const messages = session.messages().messages;
    expect(messages.map((m) => [m.role, m.body.message_type, m.status])).toEqual([
      ["user", "text", "complete"],
      ["assistant", "text", "complete"],
    ]);
    expect(messages[1]!.meta?.model).toBe("scripted-model");
    expect(session.state).toEqual({ type: "Idle" });
  });

  it("conversation with file references: resolved in the workspace, sent with a header", async () => {
    const workspace = tempWorkspace({ "a.txt": "one\ntwo\nthree\n" });
    const h = harness([say("Read it.")], { tools: () => [] });
    const session = await h.manager.create({ config: { workspace } });
    const events = await collect(
      session.sendMessage({
        type: "file_reference",
        path: "a.txt",
        range: { start_line: 2, end_line: 3 },
      }),
    );
    expect(states(events).slice(0, 4)).toEqual([
      "ProcessingUserMessage",
      "ResolvingFileReferences",
      "EnhancingSystemPrompt",
      "OptimizingContext",
    ]);
    expect(states(events).at(-1)).toBe("Idle");
    const sent = h.provider.requests[0]!.messages[0]!;
    expect(sent.role === "user" && sent.content[0]?.type === "text" && sent.content[0].text).toBe(
      "File: a.txt (lines 2-3)\ntwo\nthree",
    );
  });

  it("conversation with a single tool call (auto-approved)", async () => {
    const h = harness([call("echo", { text: "x" }, "c1"), say("Done.")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "echo x" }));
    expect(states(events)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
      "PreparingLLMRequest",
      ...STREAM,
      "StreamingLLMResponse",
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "ParsingToolCalls",
      "ExecutingTool",
      "CollectingToolResults",
      "ProcessingToolResults",
      "ToolAutoLoop",
      "PreparingLLMRequest",
      ...STREAM,
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "Idle",
    ]);
    expect(stateData(events).find((s) => s.type === "ExecutingTool")).toEqual({
      type: "ExecutingTool",
      tool_name: "echo",
      attempt: 1,
      index: 1,
      total: 1,
    });
    const messages = session.messages().messages;
    expect(messages.map((m) => m.body.message_type)).toEqual([
      "text",
      "tool_request",
      "tool_result",
      "text",
    ]);
    const request = messages[1]!;
    const result = messages[2]!;
    expect(request.body.message_type === "tool_request" && request.body.calls[0]?.approval).toBe(
      "auto_approved",
    );
    expect(result.body.message_type === "tool_result" && result.body.request_id).toBe(request.id);
    expect(result.body.message_type === "tool_result" && result.body.status).toBe("success");
  });

  it("conversation with multiple tool calls in one round", async () => {
    const h = harness([
      {
        blocks: [
          { type: "toolCall", id: "a", name: "echo", arguments: { text: "1" } },
          { type: "toolCall", id: "b", name: "echo", arguments: { text: "2" } },
        ],
      },
      say("Both done."),
    ]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "twice" }));
    const executing = stateData(events).filter((s) => s.type === "ExecutingTool");
    expect(executing.map((s) => s.type === "ExecutingTool" && [s.index, s.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(stateData(events).find((s) => s.type === "ToolAutoLoop")).toEqual({
      type: "ToolAutoLoop",
      depth: 1,
      tools_executed: 2,
      tool_names: ["echo"],
    });
    expect(session.state.type).toBe("Idle");
  });

  it("auto-loop with 3+ iterations tracks depth and tools executed", async () => {
    const h = harness([
      call("echo", { text: "1" }),
      call("echo", { text: "2" }),
      call("echo", { text: "3" }),
      say("Three rounds."),
    ]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "loop" }));
    expect(stateData(events).filter((s) => s.type === "ToolAutoLoop")).toEqual([
      { type: "ToolAutoLoop", depth: 1, tools_executed: 1, tool_names: ["echo"] },
      { type: "ToolAutoLoop", depth: 2, tools_executed: 2, tool_names: ["echo"] },
      { type: "ToolAutoLoop", depth: 3, tools_executed: 3, tool_names: ["echo"] },
    ]);
    expect(states(events).at(-1)).toBe("Idle");
    expect(h.provider.requests).toHaveLength(4);
  });

  it("error and recovery: a connection failure ends Failed, the next message succeeds", async () => {
    const h = harness([{ error: { status: 500, message: "upstream down" } }, say("Back.")]);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(states(events).slice(-2)).toEqual(["ConnectingToLLM", "Failed"]);
    expect(errors(events).map((e) => e.code)).toEqual(["llm_connection"]);
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
    const retry = await collect(session.sendMessage({ type: "text", text: "again" }));
    expect(states(retry)[0]).toBe("ProcessingUserMessage");
    expect(session.state.type).toBe("Idle");
  });
});
