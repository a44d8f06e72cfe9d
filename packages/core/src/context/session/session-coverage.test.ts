import { describe, expect, it } from "vitest";
import {
  call,
  collect,
  errors,
  harness,
  say,
  stateData,
  states,
} from "../../../test/support/session-harness.js";
import type { SessionConfig } from "../../model/session-config.js";
import { InMemorySessionStore } from "../../store/memory-store.js";
import type { LoadedSession } from "../../store/types.js";

// The remaining items of the spec's "Comprehensive Test Coverage" and the plan-act config
// scenarios: transient-error retries, circular tool calls, and agent_mode defaults/persistence.

const TO_FIRST_CHUNK = ["PreparingLLMRequest", "ConnectingToLLM", "AwaitingLLMFirstChunk"];
const PIPELINE = ["ProcessingUserMessage", "EnhancingSystemPrompt", "OptimizingContext"];
const answer = (text: string) => ({ ...say(text), chunkSize: 1_000 });

describe("Error condition testing", () => {
  it("TransientError retry logic: a 503 is retried, the answer arrives, no error is reported", async () => {
    const h = harness([{ error: { status: 503, message: "overloaded" } }, answer("Second try.")], {
      retryConfig: { maxRetries: 2, initialDelayMs: 1, backoffMultiplier: 1, maxDelayMs: 1 },
    });
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(errors(events)).toEqual([]);
    expect(states(events)).toEqual([
      ...PIPELINE,
      ...TO_FIRST_CHUNK,
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "Idle",
    ]);
    expect(h.provider.requests).toHaveLength(2);
    // the failed attempt leaves nothing behind: one answer, complete
    expect(session.messages().messages.map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
  });

  it("a transient error that outlasts the retries ends Failed{recoverable}; the retry of the message succeeds", async () => {
    const h = harness(
      [
        { error: { status: 503, message: "overloaded" } },
        { error: { status: 503, message: "still overloaded" } },
        answer("Finally."),
      ],
      { retryConfig: { maxRetries: 1, initialDelayMs: 1, backoffMultiplier: 1, maxDelayMs: 1 } },
    );
    const session = await h.manager.create();
    const failed = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(states(failed)).toEqual([...PIPELINE, ...TO_FIRST_CHUNK.slice(0, 2), "Failed"]);
    expect(errors(failed).map((e) => [e.code, e.recoverable])).toEqual([["llm_connection", true]]);
    expect(session.state).toMatchObject({ type: "Failed", recoverable: true });
    const retried = await collect(session.sendMessage({ type: "text", text: "hi again" }));
    expect(states(retried).at(-1)).toBe("Idle");
    expect(h.provider.requests).toHaveLength(3);
  });
});

describe("Auto-loop boundary testing", () => {
  it("circular tool dependencies: calls that ping-pong forever stop at the depth limit, every round counted", async () => {
    // echo(a) → echo(b) → echo(a) → …: the model never finishes on its own
    const h = harness((r) => call("echo", { text: r.index % 2 === 0 ? "a" : "b" }));
    const session = await h.manager.create({
      config: { approval_policy: { type: "limited_auto", max_depth: 3 } },
    });
    const events = await collect(session.sendMessage({ type: "text", text: "loop" }));
    const round = [
      "StreamingLLMResponse",
      "StreamingLLMResponse",
      "ProcessingLLMResponse",
      "ParsingToolCalls",
      "ExecutingTool",
      "CollectingToolResults",
      "ProcessingToolResults",
      "ToolAutoLoop",
    ];
    expect(states(events)).toEqual([
      ...PIPELINE,
      ...TO_FIRST_CHUNK,
      ...round,
      ...TO_FIRST_CHUNK,
      ...round,
      ...TO_FIRST_CHUNK,
      ...round,
      "Paused",
    ]);
    expect(stateData(events).filter((s) => s.type === "ToolAutoLoop")).toEqual([
      { type: "ToolAutoLoop", depth: 1, tools_executed: 1, tool_names: ["echo"] },
      { type: "ToolAutoLoop", depth: 2, tools_executed: 2, tool_names: ["echo"] },
      { type: "ToolAutoLoop", depth: 3, tools_executed: 3, tool_names: ["echo"] },
    ]);
    expect(session.state).toEqual({ type: "Paused", reason: "auto_loop_limit" });
    expect(h.provider.requests).toHaveLength(3);
  });
});

/** A store whose sessions come back as an older version wrote them: no agent_mode in the config. */
class OldConfigStore extends InMemorySessionStore {
  override async loadSession(id: string): Promise<LoadedSession | undefined> {
    const loaded = await super.loadSession(id);
    if (!loaded) return undefined;
    const config: Partial<SessionConfig> = loaded.session.config;
    delete config.agent_mode;
    return loaded;
  }
}

describe("Chat Configuration (plan-act)", () => {
  it("chat config includes agent mode: Act for new chats and for stored chats without the field", async () => {
    const store = new OldConfigStore();
    const h = harness([], { store });
    const created = await h.manager.create();
    expect(created.config.agent_mode).toBe("act");
    const reloaded = await harness([], { store }).manager.get(created.id);
    expect(reloaded?.config.agent_mode).toBe("act");
  });

  it("mode can be updated: stored at once, used by the very next message, kept across a restart", async () => {
    const store = new InMemorySessionStore();
    const h = harness([answer("planning"), answer("acting")], { store });
    const session = await h.manager.create();
    const switched = await collect(session.switchMode("plan"));
    expect(switched.every((e) => e.sequence > 0)).toBe(true);
    expect((await store.loadSession(session.id))?.session.config.agent_mode).toBe("plan");
    await collect(session.sendMessage({ type: "text", text: "think" }));
    expect(h.provider.requests[0]!.tools.map((t) => t.name)).toEqual([
      "echo",
      "explode",
      "present_plan",
      "ask_question",
    ]);
    const restarted = await harness([answer("acting")], { store }).manager.get(session.id);
    expect(restarted?.config.agent_mode).toBe("plan");
    await collect(restarted!.switchMode("act"));
    expect((await store.loadSession(session.id))?.session.config.agent_mode).toBe("act");
  });
});
