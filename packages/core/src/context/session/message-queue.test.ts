import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  echoTool,
  errors,
  gatedTool,
  harness,
  say,
  writeTool,
} from "../../../test/support/session-harness.js";
import type { StreamProvider, StreamRequest } from "../../llm/provider.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { SessionEvent } from "../../protocol/events.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import { ScriptedProvider } from "../../testing/scripted-provider.js";
import type { Session } from "./session.js";

// Messages sent while the agent works (message-queue.ts, docs/decisions/0011): stored at once as
// queued, steering delivered at the next turn boundary, follow-ups after the run, kept across an
// interrupt, an approval wait and a restart.

/** What the transcript shows: text, or the message type. */
function transcript(session: Session): string[] {
  return session
    .messages()
    .messages.map((m) =>
      m.body.message_type === "text" ? `${m.role}:${m.body.text}` : m.body.message_type,
    );
}

/** The roles and texts of one model request. */
function sent(request: StreamRequest | undefined): string[] {
  return (request?.messages ?? []).map((m) => {
    if (m.role === "toolResult") return "toolResult";
    const text = Array.isArray(m.content)
      ? m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
      : m.content;
    return `${m.role}:${text}`;
  });
}

function queuedTexts(session: Session): string[] {
  return session
    .messages()
    .queued.map((m: ContextMessage) => (m.body.message_type === "text" ? m.body.text : "?"));
}

function updates(events: readonly SessionEvent[], id: string): string[] {
  return events.flatMap((e) =>
    e.name === "context_update" && e.payload.message_update?.message_id === id
      ? [e.payload.message_update.kind]
      : [],
  );
}

/** The first model answer stops after its first event until `release()`: the run is mid-answer. */
function holdFirstAnswer(inner: ScriptedProvider) {
  let release!: () => void;
  let markStreaming!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const streaming = new Promise<void>((r) => {
    markStreaming = r;
  });
  let calls = 0;
  const provider: StreamProvider = {
    providerId: inner.providerId,
    async *stream(request, signal) {
      const first = calls++ === 0;
      let held = false;
      for await (const event of inner.stream(request, signal)) {
        yield event;
        if (first && !held) {
          held = true;
          markStreaming();
          await gate;
        }
      }
    },
  };
  return { provider, streaming, release };
}

const autoApprove = { config: { approval_policy: { type: "auto_approve_all" as const } } };

describe("a message sent while the agent works", () => {
  it("is stored at once as queued, then steers the run after the tool round, before the next request", async () => {
    const slow = gatedTool();
    const h = harness([call("slow", {}, "c1"), say("changed course")], {
      tools: () => [slow.tool, echoTool],
    });
    const session = await h.manager.create(autoApprove);
    const all: SessionEvent[] = [];
    const watching = (async () => {
      for await (const event of session.events(0)) {
        all.push(event);
        if (event.name === "context_update" && event.payload.current_state.type === "Idle") break;
      }
    })();
    const running = collect(session.sendMessage({ type: "text", text: "run the slow tool" }));
    await slow.started;
    expect(session.working).toBe(true);

    const queued = await collect(
      session.sendMessage({ type: "text", text: "actually, stop there" }, { delivery: "steer" }),
    );
    // the stream is the queued update alone, stored (a sequence) before the tool has finished
    expect(queued).toHaveLength(1);
    const update = queued[0]?.name === "context_update" ? queued[0].payload.message_update : null;
    expect(update).toMatchObject({ kind: "queued", role: "user", delivery: "steer" });
    expect(queued[0]?.sequence).toBeGreaterThan(0);
    const id = update?.message_id ?? "";
    const stored = await h.store.loadSession(session.id);
    expect(stored?.messages.find((m) => m.id === id)).toMatchObject({
      status: "queued",
      meta: { delivery: "steer" },
    });
    expect(queuedTexts(session)).toEqual(["actually, stop there"]);
    expect(transcript(session)).not.toContain("user:actually, stop there");

    slow.release();
    await running;
    await session.idle();
    await watching;
    expect(errors(all)).toEqual([]);
    // delivered after the tool round's result, before the next model request, which saw it
    expect(transcript(session)).toEqual([
      "user:run the slow tool",
      "tool_request",
      "tool_result",
      "user:actually, stop there",
      "assistant:changed course",
    ]);
    expect(h.provider.requests).toHaveLength(2);
    expect(sent(h.provider.requests[1])).toEqual([
      "user:run the slow tool",
      "assistant:",
      "toolResult",
      "user:actually, stop there",
    ]);
    expect(updates(all, id)).toEqual(["queued", "created", "completed"]);
    expect(queuedTexts(session)).toEqual([]);
    expect(session.messages().messages.find((m) => m.id === id)).toMatchObject({
      status: "complete",
      meta: { delivery: "steer" },
    });
    expect(session.state).toEqual({ type: "Idle" });
  });

  it("waits for every call of the round: steering does not skip the round's other calls", async () => {
    const slow = gatedTool();
    const h = harness(
      [
        {
          blocks: [
            { type: "toolCall", name: "slow", arguments: {}, id: "c1" },
            { type: "toolCall", name: "echo", arguments: { text: "x" }, id: "c2" },
          ],
        },
        say("done"),
      ],
      { tools: () => [slow.tool, echoTool] },
    );
    const session = await h.manager.create(autoApprove);
    const running = collect(session.sendMessage({ type: "text", text: "go" }));
    await slow.started;
    await collect(session.sendMessage({ type: "text", text: "note" }));
    slow.release();
    await running;
    await session.idle();
    const results = session
      .messages()
      .messages.flatMap((m) => (m.body.message_type === "tool_result" ? [m.body] : []));
    expect(results.map((r) => r.status)).toEqual(["success", "success"]);
    expect(transcript(session)).toEqual([
      "user:go",
      "tool_request",
      "tool_result",
      "tool_result",
      "user:note",
      "assistant:done",
    ]);
  });

  it("as a follow-up waits for the run to end, then starts the next run by itself", async () => {
    const slow = gatedTool();
    const h = harness([call("slow", {}, "c1"), say("first answer"), say("second answer")], {
      tools: () => [slow.tool, echoTool],
    });
    const session = await h.manager.create(autoApprove);
    const running = collect(session.sendMessage({ type: "text", text: "start" }));
    await slow.started;
    const queued = await collect(
      session.sendMessage({ type: "text", text: "and then this" }, { delivery: "follow_up" }),
    );
    expect(errors(queued)).toEqual([]);
    slow.release();
    await running;
    await session.idle();
    expect(transcript(session)).toEqual([
      "user:start",
      "tool_request",
      "tool_result",
      "assistant:first answer",
      "user:and then this",
      "assistant:second answer",
    ]);
    // the second run is a new model request with the whole conversation
    expect(sent(h.provider.requests[2]).slice(-2)).toEqual([
      "assistant:first answer",
      "user:and then this",
    ]);
    expect(session.state).toEqual({ type: "Idle" });
  });

  it("steering that finds no turn boundary (the answer was final) starts the next run; follow-ups go one run each", async () => {
    const scripted = new ScriptedProvider([
      say("slow answer"),
      say("to steer"),
      say("to follow-up one"),
      say("to follow-up two"),
    ]);
    const held = holdFirstAnswer(scripted);
    const h = harness([], { provider: held.provider });
    const session = await h.manager.create();
    const running = collect(session.sendMessage({ type: "text", text: "hello" }));
    // queued while the final answer streams: after the run's last turn boundary
    await held.streaming;
    await collect(session.sendMessage({ type: "text", text: "f1" }, { delivery: "follow_up" }));
    await collect(session.sendMessage({ type: "text", text: "s1" }));
    await collect(session.sendMessage({ type: "text", text: "f2" }, { delivery: "follow_up" }));
    held.release();
    await running;
    await session.idle();
    // the steering message joined the run that started first (the oldest queued message, f1)
    expect(transcript(session)).toEqual([
      "user:hello",
      "assistant:slow answer",
      "user:f1",
      "user:s1",
      "assistant:to steer",
      "user:f2",
      "assistant:to follow-up one",
    ]);
    expect(scripted.requests).toHaveLength(3);
  });

  it("a steering message that becomes the next run's prompt reaches the model once, however slow the store", async () => {
    const scripted = new ScriptedProvider([say("slow answer"), say("to steer")]);
    const held = holdFirstAnswer(scripted);
    // writes take a while (a database under load): the prompt's delivery is still on its way
    // into the pool when the next run's loop asks for steering messages
    const store = new InMemorySessionStore();
    const write = store.write.bind(store);
    store.write = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return write(...args);
    };
    const h = harness([], { provider: held.provider, store });
    const session = await h.manager.create();
    const running = collect(session.sendMessage({ type: "text", text: "hello" }));
    await held.streaming;
    await collect(session.sendMessage({ type: "text", text: "s1" }));
    held.release();
    await running;
    await session.idle();
    expect(transcript(session)).toEqual([
      "user:hello",
      "assistant:slow answer",
      "user:s1",
      "assistant:to steer",
    ]);
    expect(sent(scripted.requests[1])).toEqual(["user:hello", "assistant:slow answer", "user:s1"]);
  });

  it("is kept through an interrupt and delivered by resume", async () => {
    const slow = gatedTool();
    const h = harness([call("slow", {}, "c1"), say("resumed")], {
      tools: () => [slow.tool, echoTool],
    });
    const session = await h.manager.create(autoApprove);
    const running = collect(session.sendMessage({ type: "text", text: "start" }));
    await slow.started;
    await collect(session.sendMessage({ type: "text", text: "steer me" }));
    await collect(session.sendMessage({ type: "text", text: "later" }, { delivery: "follow_up" }));
    await collect(session.interrupt());
    await running;
    await session.idle();
    expect(session.state).toEqual({ type: "Paused", reason: "interrupted" });
    // nothing queued was lost or delivered: no run starts by itself from Paused
    expect(queuedTexts(session)).toEqual(["steer me", "later"]);
    expect(h.provider.requests).toHaveLength(1);

    const resumed = await collect(session.resume());
    await session.idle();
    expect(errors(resumed)).toEqual([]);
    expect(sent(h.provider.requests[1]).at(-1)).toBe("user:steer me");
    expect(transcript(session).slice(-4)).toEqual([
      "user:steer me",
      "assistant:resumed",
      "user:later",
      "assistant:",
    ]);
    expect(queuedTexts(session)).toEqual([]);
  });

  it("while the run waits for an approval: stays queued, then is delivered after the approved call's result", async () => {
    const h = harness([call("write_note", { text: "n" }, "w1"), say("after approval")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "manual" } },
    });
    await collect(session.sendMessage({ type: "text", text: "write a note" }));
    expect(session.state.type).toBe("AwaitingToolApproval");
    expect(session.working).toBe(true);

    const queued = await collect(session.sendMessage({ type: "text", text: "make it short" }));
    expect(errors(queued)).toEqual([]);
    await session.idle();
    // no run starts by itself while a decision is pending
    expect(session.state.type).toBe("AwaitingToolApproval");
    expect(queuedTexts(session)).toEqual(["make it short"]);
    expect(h.provider.requests).toHaveLength(1);

    const decided = await collect(
      session.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }]),
    );
    await session.idle();
    expect(errors(decided)).toEqual([]);
    expect(transcript(session)).toEqual([
      "user:write a note",
      "tool_request",
      "tool_result",
      "user:make it short",
      "assistant:after approval",
    ]);
    expect(sent(h.provider.requests[1]).slice(-2)).toEqual(["toolResult", "user:make it short"]);
    expect(writeTool.name).toBe("write_note");
  });

  it("survives a crash: the queued row is reloaded and delivered by resume", async () => {
    const crash = { on: false };
    const store = new InMemorySessionStore({
      faults: (op) => (crash.on && op.kind === "write" ? new Error("process gone") : undefined),
    });
    const slow = gatedTool();
    const first = harness([call("slow", {}, "c1")], { store, tools: () => [slow.tool, echoTool] });
    const session = await first.manager.create(autoApprove);
    const running = collect(session.sendMessage({ type: "text", text: "start" }));
    await slow.started;
    await collect(session.sendMessage({ type: "text", text: "kept across the crash" }));
    crash.on = true; // the process dies: nothing more reaches the store
    slow.release();
    await running;
    await session.idle();
    crash.on = false;

    const second = harness([say("picked up")], { store, tools: () => [slow.tool, echoTool] });
    const reloaded = await second.manager.get(session.id);
    expect(reloaded?.state).toMatchObject({ type: "Failed", recoverable: true });
    expect(reloaded ? queuedTexts(reloaded) : []).toEqual(["kept across the crash"]);
    const resumed = await collect(reloaded!.resume());
    await reloaded!.idle();
    expect(errors(resumed)).toEqual([]);
    expect(sent(second.provider.requests[0]).at(-1)).toBe("user:kept across the crash");
    expect(transcript(reloaded!).slice(-2)).toEqual([
      "user:kept across the crash",
      "assistant:picked up",
    ]);
    expect(queuedTexts(reloaded!)).toEqual([]);
  });

  it("is refused like any message when it is empty; nothing is stored", async () => {
    const slow = gatedTool();
    const h = harness([call("slow", {}, "c1"), say("ok")], { tools: () => [slow.tool] });
    const session = await h.manager.create(autoApprove);
    const running = collect(session.sendMessage({ type: "text", text: "start" }));
    await slow.started;
    const refused = await collect(session.sendMessage({ type: "text", text: "   " }));
    expect(errors(refused).map((e) => e.code)).toEqual(["invalid_request"]);
    expect(refused[0]?.sequence).toBe(0);
    slow.release();
    await running;
    await session.idle();
    expect(queuedTexts(session)).toEqual([]);
    expect(h.provider.requests).toHaveLength(2);
  });
});
