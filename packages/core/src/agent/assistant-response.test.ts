import { describe, expect, it } from "vitest";
import {
  collect,
  echoTool,
  loopConfig,
  recordingLogger,
  types,
} from "../../test/support/agent-fixtures.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  userMessage,
} from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import type { AgentEventSink } from "./event-sink.js";
import { agentLoop, runAgentLoop } from "./loop.js";
import type { AgentContext, AgentHooks } from "./types.js";

// streamAssistantResponse through the loop: errors as values, retry, interruption, abort.

function context(messages: AgentMessage[] = []): AgentContext {
  return { systemPrompt: "You are a test.", messages, tools: [echoTool] };
}

const ask = (text = "hi") => [userMessage(text, 1)];

describe("streamAssistantResponse", () => {
  it("REQ-083/081/093: an irrecoverable provider error becomes an error message; onError, turnEnd, afterTurn, agentEnd", async () => {
    const provider = new ScriptedProvider([{ error: { status: 401, message: "bad key" } }]);
    const calls: string[] = [];
    const hooks: AgentHooks = {
      onError: (message) => void calls.push(`onError:${message}`),
      afterTurn: () => void calls.push("afterTurn"),
    };
    const stream = agentLoop(ask(), context(), loopConfig(provider, { hooks }));
    const events = await collect(stream);
    const result = await stream.result();
    const last = result.at(-1);
    expect(last).toMatchObject({
      role: "assistant",
      stopReason: "error",
      content: [],
      errorMessage: "bad key",
    });
    expect(calls).toEqual(["onError:bad key", "afterTurn"]);
    expect(types(events).slice(-4)).toEqual(["messageStart", "messageEnd", "turnEnd", "agentEnd"]);
    expect(provider.requests).toHaveLength(1); // auth errors are not retried
  });

  it("REQ-074/135: retryable errors are retried with backoff; retryAfter is honoured; retry events and logs carry the fields", async () => {
    const provider = new ScriptedProvider([
      { error: { status: 429, message: "rate limited", headers: { "retry-after-ms": "30" } } },
      { error: { status: 503, message: "overloaded" } },
      { blocks: [{ type: "text", text: "finally" }] },
    ]);
    const logger = recordingLogger();
    const started = Date.now();
    const stream = agentLoop(ask(), context(), loopConfig(provider, { logger }));
    const events = await collect(stream);
    expect(Date.now() - started).toBeGreaterThanOrEqual(29);
    const retries = events.filter((e) => e.type === "retry");
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({
      attempt: 1,
      maxRetries: 3,
      delayMs: 30,
      error: { kind: "rate_limited" },
    });
    expect(retries[1]).toMatchObject({ attempt: 2, maxRetries: 3, error: { kind: "overloaded" } });
    const delay2 = retries[1]?.type === "retry" ? retries[1].delayMs : -1;
    expect(delay2).toBeGreaterThanOrEqual(1); // 2 ms × [0.8, 1.2]
    expect(delay2).toBeLessThanOrEqual(3);
    const logs = logger.entries.filter((e) => e.message.includes("retrying"));
    expect(logs).toHaveLength(2);
    expect(logs[0]?.fields).toMatchObject({
      attempt: 1,
      maxRetries: 3,
      delayMs: 30,
      cause: { kind: "rate_limited" },
    });
    expect((await stream.result()).at(-1)).toMatchObject({ stopReason: "stop" });
    expect(provider.requests).toHaveLength(3);
  });

  it("REQ-074: after maxRetries the error propagates as an error message", async () => {
    const provider = new ScriptedProvider(() => ({
      error: { status: 429, message: "still limited" },
    }));
    const config = loopConfig(provider, {
      retryConfig: { maxRetries: 2, initialDelayMs: 1, backoffMultiplier: 1, maxDelayMs: 1 },
    });
    const result = await agentLoop(ask(), context(), config).result();
    expect(provider.requests).toHaveLength(3);
    expect(result.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "still limited" });
  });

  it("REQ-074: a stream interrupted after partial output is closed, retried and completed", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "abcdefgh" }], chunkSize: 2, interruptAfterChunks: 2 },
      { blocks: [{ type: "text", text: "whole" }] },
    ]);
    const stream = agentLoop(ask(), context(), loopConfig(provider));
    const events = await collect(stream);
    const assistantEvents = events.filter(
      (e) =>
        (e.type === "messageStart" || e.type === "messageEnd") && e.message.role === "assistant",
    );
    expect(assistantEvents.map((e) => e.type)).toEqual([
      "messageStart",
      "messageEnd",
      "messageStart",
      "messageEnd",
    ]);
    expect(assistantEvents[1]).toMatchObject({
      message: { stopReason: "error", errorMessage: "stream interrupted" },
    });
    const result = await stream.result();
    expect(result.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messageText(result[1] as AssistantMessage)).toBe("whole");
  });

  it("REQ-082/161: abort mid-stream ends with stopReason aborted, turnEnd, afterTurn and agentEnd", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "a long answer" }], chunkSize: 1, chunkDelayMs: 2 },
    ]);
    const controller = new AbortController();
    const order: string[] = [];
    const sink: AgentEventSink = {
      push: (e) => {
        order.push(e.type);
        if (e.type === "messageUpdate") controller.abort();
      },
    };
    const config = loopConfig(provider, {
      hooks: { afterTurn: () => void order.push("afterTurn") },
    });
    const result = await runAgentLoop(ask(), context(), config, sink, controller.signal);
    const last = result.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(messageText(last as AssistantMessage).length).toBeGreaterThan(0);
    expect(order.slice(-4)).toEqual(["messageEnd", "turnEnd", "afterTurn", "agentEnd"]);
    expect(provider.requests).toHaveLength(1);
  });
});
