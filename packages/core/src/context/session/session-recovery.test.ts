import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  echoTool,
  errors,
  gatedTool,
  harness,
  say,
  states,
} from "../../../test/support/session-harness.js";
import type { ContextMessage } from "../../model/message-types.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { INTERRUPTED_BY_RESTART } from "./recovery.js";
import { LEFT_OUT_NOTE, NO_RESULT_TEXT, toAgentMessages } from "./to-agent-messages.js";

// Crash during a tool run (issue #9 finding 6): the store holds a tool_request whose call has no
// result and the state ExecutingTool. After the restart the call gets a stored error result, the
// session is Failed{recoverable}, and resume continues the run with a valid transcript.

/** A session "killed" while its tool runs: from then on no write reaches the store. */
async function crashDuringTool(store: InMemorySessionStore, crash: { on: boolean }) {
  const slow = gatedTool();
  const first = harness([call("slow", {}, "call-1")], {
    store,
    tools: () => [slow.tool, echoTool],
  });
  const session = await first.manager.create({
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  const running = collect(session.sendMessage({ type: "text", text: "run the slow tool" }));
  await slow.started;
  await new Promise((r) => setTimeout(r, 20));
  crash.on = true;
  slow.release();
  await running;
  await session.idle();
  crash.on = false;
  return session.id;
}

function callsAndResults(messages: readonly ContextMessage[]) {
  const calls = messages.flatMap((m) =>
    m.body.message_type === "tool_request" ? m.body.calls.map((c) => c.id) : [],
  );
  const results = messages.flatMap((m) =>
    m.body.message_type === "tool_result" ? [m.body.tool_call_id] : [],
  );
  return { calls, results };
}

describe("recovery after a crash during a tool run", () => {
  it("stores an error result for the cut-off call, rests Failed{recoverable}, and resume continues", async () => {
    const crash = { on: false };
    const store = new InMemorySessionStore({
      faults: (op) => (crash.on && op.kind === "write" ? new Error("process gone") : undefined),
    });
    const id = await crashDuringTool(store, crash);
    expect((await store.loadSession(id))?.session.state.type).toBe("ExecutingTool");

    const second = harness([say("Picking up after the restart.")], {
      store,
      tools: () => [echoTool],
    });
    const reloaded = await second.manager.get(id);
    expect(reloaded?.state).toMatchObject({ type: "Failed", recoverable: true });
    const messages = reloaded?.messages().messages ?? [];
    const { calls, results } = callsAndResults(messages);
    expect(calls).toEqual(["call-1"]);
    expect(results).toEqual(["call-1"]);
    const result = messages.find((m) => m.body.message_type === "tool_result");
    expect(result?.body).toMatchObject({
      status: "error",
      tool_name: "slow",
      content: [{ type: "text", text: INTERRUPTED_BY_RESTART }],
    });
    // stored, not only in memory: a third load sees the same result and does not recover again
    const stored = await store.loadSession(id);
    expect(stored?.messages.some((m) => m.id === result?.id)).toBe(true);
    expect(stored?.session.state).toMatchObject({ type: "Failed", recoverable: true });

    const resumed = await collect(reloaded!.resume());
    expect(errors(resumed)).toEqual([]);
    expect(states(resumed)[0]).toBe("PreparingLLMRequest");
    expect(reloaded?.state).toEqual({ type: "Idle" });
    const sent = second.provider.requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(sent[2]).toMatchObject({
      role: "toolResult",
      toolCallId: "call-1",
      isError: true,
      content: [{ type: "text", text: INTERRUPTED_BY_RESTART }],
    });
    expect(reloaded?.messages().messages.at(-1)?.body).toMatchObject({
      message_type: "text",
      text: "Picking up after the restart.",
    });
  });

  it("a Failed session whose last tool calls have no results (an older store) is not resumed blindly", async () => {
    const store = new InMemorySessionStore();
    const first = harness([], { store });
    const created = await first.manager.create();
    const branchId = created.activeBranchId;
    const at = "2026-01-01T00:00:00.000Z";
    await store.write(created.id, {
      messages: [
        {
          id: "req-1",
          session_id: created.id,
          role: "assistant",
          status: "complete",
          created_at: at,
          body: {
            message_type: "tool_request",
            text: "",
            thinking: [],
            calls: [{ id: "c-1", name: "echo", arguments: { text: "x" }, approval: "approved" }],
          },
        },
      ],
      branch_appends: [{ branch_id: branchId, message_ids: ["req-1"] }],
      session: { state: { type: "Failed", error: "old crash", recoverable: true } },
      events: [],
    });
    const second = harness([say("never")], { store });
    const loaded = await second.manager.get(created.id);
    const events = await collect(loaded!.resume());
    expect(errors(events).map((e) => e.code)).toEqual(["invalid_transition"]);
    expect(second.provider.requests).toHaveLength(0);
  });

  it("a non-recoverable failure and a session at rest are not resumed", async () => {
    const h = harness([say("Hi.")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hello" }));
    const idle = await collect(session.resume());
    expect(errors(idle).map((e) => e.code)).toEqual(["invalid_transition"]);
  });
});

describe("the model's view keeps every tool_use with a tool_result", () => {
  const at = "2026-01-01T00:00:00.000Z";
  const row = (id: string, role: ContextMessage["role"], body: ContextMessage["body"]) =>
    ({ id, session_id: "s", role, body, status: "complete", created_at: at }) as ContextMessage;
  const request = row("r1", "assistant", {
    message_type: "tool_request",
    text: "",
    thinking: [],
    calls: [
      { id: "a", name: "echo", arguments: {}, approval: "auto_approved" },
      { id: "b", name: "echo", arguments: {}, approval: "auto_approved" },
    ],
  });
  const resultA = row("t1", "tool", {
    message_type: "tool_result",
    request_id: "r1",
    tool_call_id: "a",
    tool_name: "echo",
    content: [{ type: "text", text: "ok" }],
    status: "success",
  });
  const user = row("u1", "user", { message_type: "text", text: "next" });

  it("a call without a stored result (an older store) gets an error result after its message", () => {
    const sent = toAgentMessages([request, resultA, user]);
    expect(sent.map((m) => (m.role === "toolResult" ? `result:${m.toolCallId}` : m.role))).toEqual([
      "user",
      "assistant",
      "result:a",
      "result:b",
      "user",
    ]);
    expect(sent[3]).toMatchObject({ isError: true, content: [{ text: NO_RESULT_TEXT }] });
    const none = toAgentMessages([request, user]);
    expect(none.filter((m) => m.role === "toolResult")).toHaveLength(2);
  });

  it("a view cut to begin with an answer or orphan results gets a note first", () => {
    const sent = toAgentMessages([resultA, request, user]);
    expect(sent.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
    ]);
    expect(sent[0]).toMatchObject({ content: [{ type: "text", text: LEFT_OUT_NOTE }] });
    expect(toAgentMessages([])).toEqual([]);
  });

  it("calls last in the history, awaiting a decision, are left for the continuation to run", () => {
    expect(toAgentMessages([user, request]).map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
