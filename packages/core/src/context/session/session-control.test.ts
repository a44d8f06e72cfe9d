import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  echoTool,
  errors,
  gatedTool,
  harness,
  say,
  stateData,
  states,
  tempWorkspace,
} from "../../../test/support/session-harness.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { createDefaultTools } from "../../tools/builtin/default-tools.js";

// Approvals (durable across a restart), limits, interrupts, timeouts, storage failures, plan/act,
// branches, replay and recovery.

describe("approval policies and the auto-loop", () => {
  it("manual approval is durable: a new SessionManager over the same store continues the loop", async () => {
    const store = new InMemorySessionStore();
    const first = harness([call("write_note", { text: "a" }, "c1")], { store });
    const session = await first.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "write" }));
    expect(states(events).slice(-2)).toEqual(["ParsingToolCalls", "AwaitingToolApproval"]);
    expect(session.state).toEqual({
      type: "AwaitingToolApproval",
      pending_requests: ["c1"],
      tool_names: ["write_note"],
    });
    // "restart": a fresh manager and provider over the same store
    const second = harness([say("Written.")], { store });
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state.type).toBe("AwaitingToolApproval");
    const decided = await collect(
      reloaded!.decideToolCalls([{ tool_call_id: "c1", decision: "approve", remember: true }]),
    );
    expect(states(decided)).toEqual([
      "ExecutingTool",
      "CollectingToolResults",
      "ProcessingToolResults",
      "ToolAutoLoop",
      "PreparingLLMRequest",
      "ConnectingToLLM",
      "AwaitingLLMFirstChunk",
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "Idle",
    ]);
    expect(reloaded!.config.approval_policy).toEqual({ type: "white_list", tools: ["write_note"] });
    const request = reloaded!
      .messages()
      .messages.find((m) => m.body.message_type === "tool_request");
    expect(request?.body.message_type === "tool_request" && request.body.calls[0]?.approval).toBe(
      "approved",
    );
  });

  it("a denied call sends an error result to the model", async () => {
    const h = harness([call("write_note", { text: "a" }, "c1"), say("OK, not writing.")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "white_list", tools: ["echo"] } },
    });
    await collect(session.sendMessage({ type: "text", text: "write" }));
    const events = await collect(
      session.decideToolCalls([{ tool_call_id: "c1", decision: "deny" }]),
    );
    expect(states(events).slice(0, 2)).toEqual(["ProcessingToolResults", "ToolAutoLoop"]);
    const sent = h.provider.requests[1]!.messages.find((m) => m.role === "toolResult");
    expect(sent?.role === "toolResult" && sent.isError).toBe(true);
    expect(sent?.role === "toolResult" && sent.content[0]).toEqual({
      type: "text",
      text: "The user denied this tool call.",
    });
    const result = session.messages().messages.find((m) => m.body.message_type === "tool_result");
    expect(result?.body.message_type === "tool_result" && result.body.status).toBe("denied");
  });

  it("maximum depth limit reached: LimitedAuto pauses with a notice, resume continues by hand", async () => {
    // circular tool calls: the model asks for the same call again and again
    const h = harness((request) =>
      request.index < 5 ? call("echo", { text: "same" }) : say("Stopped."),
    );
    const session = await h.manager.create({
      config: { approval_policy: { type: "limited_auto", max_depth: 2 } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "loop" }));
    expect(states(events).slice(-2)).toEqual(["ToolAutoLoop", "Paused"]);
    expect(session.state).toEqual({ type: "Paused", reason: "auto_loop_limit" });
    const notice = session.messages().messages.at(-1);
    expect(notice?.body).toMatchObject({
      message_type: "system_control",
      kind: "auto_loop_limit",
      text: "Auto-loop stopped after 2 rounds.",
    });
    expect(h.provider.requests).toHaveLength(2);
    const resumed = await collect(session.resume());
    expect(states(resumed)[0]).toBe("PreparingLLMRequest");
    expect(session.state).toEqual({ type: "Paused", reason: "auto_loop_limit" });
    expect(h.provider.requests).toHaveLength(4);
  });

  it("tool failure in the middle of the loop: an error result, the loop goes on", async () => {
    const h = harness([
      call("echo", { text: "1" }),
      call("explode", {}),
      say("Recovered from the failure."),
    ]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(states(events).at(-1)).toBe("Idle");
    const results = session
      .messages()
      .messages.filter((m) => m.body.message_type === "tool_result");
    expect(results.map((m) => m.body.message_type === "tool_result" && m.body.status)).toEqual([
      "success",
      "error",
    ]);
  });

  it("timeout during the loop: Failed{recoverable} with a timeout error, partial results kept", async () => {
    const h = harness([
      call("echo", { text: "1" }),
      { ...say("slow answer that never finishes"), chunkDelayMs: 40, chunkSize: 2 },
    ]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" }, auto_loop_iteration_timeout_ms: 50 },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "go" }));
    expect(errors(events).map((e) => e.code)).toEqual(["timeout"]);
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
    const kinds = session.messages().messages.map((m) => `${m.body.message_type}:${m.status}`);
    expect(kinds.slice(0, 3)).toEqual([
      "text:complete",
      "tool_request:complete",
      "tool_result:complete",
    ]);
    expect(kinds.at(-1)).toBe("text:incomplete");
  });

  it("user interruption: the running tool is cancelled at once, nothing further runs, resume continues", async () => {
    const slow = gatedTool();
    const h = harness([call("slow", {}), say("After resume.")], {
      tools: () => [slow.tool, echoTool],
    });
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const sending = collect(session.sendMessage({ type: "text", text: "go" }));
    await slow.started;
    // the tool never finishes on its own (it ignores its signal): the interrupt does not wait
    const interrupting = collect(session.interrupt());
    const events = await sending;
    await interrupting;
    expect(states(events).slice(-2)).toEqual(["Interrupting", "Paused"]);
    expect(session.state).toEqual({ type: "Paused", reason: "interrupted" });
    expect(h.provider.requests).toHaveLength(1);
    const result = session.messages().messages.find((m) => m.body.message_type === "tool_result");
    expect(result?.body).toMatchObject({
      status: "cancelled",
      content: [{ type: "text", text: expect.stringContaining("Cancelled") }],
    });
    slow.release();
    const resumed = await collect(session.resume());
    expect(states(resumed)).toContain("StreamingLLMResponse");
    expect(session.state.type).toBe("Idle");
    // the model saw the call and its cancelled result
    const sent = h.provider.requests[1]?.messages ?? [];
    expect(sent.at(-1)).toMatchObject({ role: "toolResult", isError: true });
  });

  it("interrupt during a real bash `sleep 20` settles within a second", async () => {
    const workspace = tempWorkspace({});
    const h = harness([call("bash", { command: "sleep 20" }), say("never")], {
      tools: () => createDefaultTools({ workspaceRoot: workspace }),
    });
    const session = await h.manager.create({
      config: { workspace, approval_policy: { type: "auto_approve_all" } },
    });
    const seen: string[] = [];
    const sending = (async () => {
      for await (const event of session.sendMessage({ type: "text", text: "wait" })) {
        if (event.name === "context_update") seen.push(event.payload.current_state.type);
      }
    })();
    await until(() => seen.includes("ExecutingTool"));
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await collect(session.interrupt());
    await sending;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(session.state).toEqual({ type: "Paused", reason: "interrupted" });
    const result = session.messages().messages.find((m) => m.body.message_type === "tool_result");
    expect(result?.body).toMatchObject({ status: "cancelled", tool_name: "bash" });
  });
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("errors and edge cases", () => {
  it("storage failure: error event with sequence 0, state stays as stored, session stays usable", async () => {
    const h = harness([say("Fine.")]);
    const session = await h.manager.create();
    h.store.failNextWrite();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: "error", sequence: 0, payload: { code: "storage" } });
    expect(session.state.type).toBe("Idle");
    expect(session.messages().messages).toHaveLength(0);
    const again = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(states(again).at(-1)).toBe("Idle");
  });

  it("empty messages are rejected and nothing is stored; >10K characters are accepted", async () => {
    const h = harness([say("Long one.")]);
    const session = await h.manager.create();
    const empty = await collect(session.sendMessage({ type: "text", text: "   " }));
    expect(errors(empty).map((e) => e.code)).toEqual(["invalid_request"]);
    expect(empty[0]?.sequence).toBe(0);
    await collect(session.sendMessage({ type: "text", text: "x".repeat(12_000) }));
    expect(session.messages().messages[0]?.body).toMatchObject({ text: "x".repeat(12_000) });
  });

  it("file read failure: the state rolls back, the message is not in the pool", async () => {
    const h = harness([say("never")], { tools: () => [] });
    const session = await h.manager.create({ config: { workspace: "/tmp" } });
    const events = await collect(
      session.sendMessage({ type: "file_reference", path: "no-such-file-xyz.txt" }),
    );
    expect(states(events)).toEqual(["ProcessingUserMessage", "ResolvingFileReferences", "Idle"]);
    expect(errors(events).map((e) => e.code)).toEqual(["file_read"]);
    expect(session.messages().messages).toHaveLength(0);
    expect(h.provider.requests).toHaveLength(0);
  });

  it("stream interruption: partial text kept incomplete, Failed, recoverable", async () => {
    const h = harness([{ ...say("partial answer here"), chunkSize: 4, interruptAfterChunks: 2 }]);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(errors(events).map((e) => e.code)).toEqual(["llm_stream_interrupted"]);
    const last = session.messages().messages.at(-1);
    expect(last?.status).toBe("incomplete");
    expect(last?.body).toMatchObject({ message_type: "text", text: "partial " });
  });

  it("concurrent operations are queued, never interleaved", async () => {
    const h = harness([say("one")]);
    const session = await h.manager.create();
    const [a, b] = await Promise.all([
      collect(session.sendMessage({ type: "text", text: "first" })),
      collect(session.switchMode("plan")),
    ]);
    expect(a.at(-1)!.sequence).toBeLessThan(b[0]!.sequence);
    expect(states(a).at(-1)).toBe("Idle");
    expect(session.config.agent_mode).toBe("plan");
    expect(
      session
        .messages()
        .messages.map((m) => (m.body.message_type === "text" ? m.body.text : m.body.message_type)),
    ).toEqual(["first", "one", "system_control"]);
  });

  it("invalid transitions are refused: deciding with nothing pending", async () => {
    const h = harness([]);
    const session = await h.manager.create();
    const events = await collect(
      session.decideToolCalls([{ tool_call_id: "x", decision: "approve" }]),
    );
    expect(errors(events).map((e) => e.code)).toEqual(["invalid_transition"]);
    expect(session.state.type).toBe("Idle");
  });
});

describe("replay, recovery, plan/act, branches", () => {
  it("events(after) replays stored events then follows live ones, no gap, no duplicate", async () => {
    const h = harness([say("one"), say("two")]);
    const session = await h.manager.create();
    const first = await collect(session.sendMessage({ type: "text", text: "a" }));
    const from = first[4]!.sequence;
    const seen: number[] = [];
    const follow = (async () => {
      for await (const e of session.events(from)) {
        seen.push(e.sequence);
        if (
          e.name === "context_update" &&
          e.payload.current_state.type === "Idle" &&
          seen.length > first.length - 5
        )
          break;
      }
    })();
    const second = await collect(session.sendMessage({ type: "text", text: "b" }));
    await follow;
    const expected = [...first.slice(5), ...second].map((e) => e.sequence);
    expect(seen).toEqual(expected);
  });

  it("crash recovery: a session stored mid-stream reloads Idle with the partial answer incomplete", async () => {
    let crashed = false;
    const store = new InMemorySessionStore({
      faults: (op) => (crashed && op.kind === "write" ? new Error("process gone") : undefined),
    });
    const first = harness([{ ...say("abcdefgh"), chunkSize: 2, chunkDelayMs: 5 }], { store });
    const session = await first.manager.create();
    // "crash": once two deltas are stored, nothing more reaches the store
    for await (const e of session.sendMessage({ type: "text", text: "hi" })) {
      if (e.name === "content_delta" && e.payload.delta === "cd") {
        crashed = true;
        break;
      }
    }
    await session.idle();
    crashed = false;
    const second = harness([], { store });
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state.type).toBe("Idle");
    const messages = reloaded!.messages().messages;
    expect(messages.at(-2)).toMatchObject({ status: "incomplete", body: { text: "abcd" } });
    expect(messages.at(-1)?.body).toMatchObject({
      message_type: "system_control",
      kind: "recovered",
    });
  });

  it("plan mode: present_plan becomes a Plan message; approvePlan switches to Act and continues", async () => {
    const h = harness([
      call("present_plan", { summary: "Do it", steps: [{ title: "Write" }] }, "p1"),
      call("write_note", { text: "n" }),
      say("Carried out."),
    ]);
    const session = await h.manager.create({
      config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "plan it" }));
    expect(states(events).slice(-3)).toEqual(["ProcessingLLMResponse", "ParsingPlan", "Idle"]);
    expect(h.provider.requests[0]!.tools.map((t) => t.name)).toEqual([
      "echo",
      "explode",
      "present_plan",
      "ask_question",
    ]);
    const plan = session.messages().messages.find((m) => m.body.message_type === "plan");
    expect(plan).toBeDefined();
    const approved = await collect(session.approvePlan(plan!.id));
    expect(session.config.agent_mode).toBe("act");
    expect(states(approved)).toContain("ExecutingTool");
    expect(session.state.type).toBe("Idle");
    const texts = session
      .messages()
      .messages.map((m) => m.body.message_type === "text" && m.body.text);
    expect(texts).toContain("Plan approved. Carry it out.");
  });

  it("branch switching during a conversation", async () => {
    const h = harness([say("one"), say("two"), say("on the fork")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "a" }));
    await collect(session.sendMessage({ type: "text", text: "b" }));
    const main = session.activeBranchId;
    const firstAnswer = session.messages().messages[1]!.id;
    const created = await collect(
      session.createBranch({ from_message_id: firstAnswer, name: "alt" }),
    );
    expect(states(created)).toEqual(["SwitchingBranch", "Idle"]);
    await collect(session.sendMessage({ type: "text", text: "c" }));
    expect(
      session.messages().messages.map((m) => m.body.message_type === "text" && m.body.text),
    ).toEqual(["a", "one", "c", "on the fork"]);
    await collect(session.switchBranch(main));
    expect(session.messages().messages).toHaveLength(4);
    expect(session.activeBranchId).toBe(main);
  });

  it("context compression during the conversation: summaries in the optimized view only", async () => {
    const h = harness((r) => say(`answer ${r.index} ${"words ".repeat(200)}`));
    const session = await h.manager.create({
      config: {
        model: { protocol: "offline", model: "scripted-model", context_window: 4_000 },
        optimization: {
          strategy: {
            type: "intelligent",
            keep_recent: 2,
            file_reference_window: 0,
            summarize: true,
          },
          trigger_ratio: 0.5,
          target_ratio: 0.4,
        },
      },
    });
    const turns: SessionEvent[][] = [];
    for (let i = 0; i < 8; i++)
      turns.push(
        await collect(session.sendMessage({ type: "text", text: `q${i} ${"text ".repeat(200)}` })),
      );
    // a compressing turn has the same state sequence as any other: the optimization happens
    // inside OptimizingContext (and before each request), reported in a context_update
    const last = turns.at(-1)!;
    expect(states(last)).toEqual([
      "ProcessingUserMessage",
      "EnhancingSystemPrompt",
      "OptimizingContext",
      "PreparingLLMRequest",
      "ConnectingToLLM",
      "AwaitingLLMFirstChunk",
      ...states(last).filter((s) => s === "StreamingLLMResponse"),
      "ProcessingLLMResponse",
      "Idle",
    ]);
    const compressions = turns
      .flat()
      .flatMap((e) =>
        e.name === "context_update" && e.payload.metadata.optimization_id !== undefined
          ? [e.payload.metadata]
          : [],
      );
    expect(compressions.length).toBeGreaterThan(0);
    for (const c of compressions)
      expect(Number(c.tokens_after)).toBeLessThan(Number(c.tokens_before));
    const full = session.messages();
    const optimized = session.messages({ view: "optimized" });
    expect(full.messages).toHaveLength(16);
    expect(optimized.messages.length).toBeLessThan(16);
    expect(optimized.optimizations.length).toBeGreaterThan(0);
    expect(optimized.messages.some((m) => m.body.message_type === "system_control")).toBe(true);
    const request = h.provider.requests.at(-1)!;
    const first = request.messages[0];
    expect(
      first?.role === "user" && first.content[0]?.type === "text" && first.content[0].text,
    ).toMatch(/^\[Summary of earlier conversation\]/);
  });
});

void stateData;
