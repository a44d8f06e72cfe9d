import { describe, expect, it } from "vitest";
import {
  collect,
  echoTool,
  loopConfig,
  recordingLogger,
  types,
} from "../../test/support/agent-fixtures.js";
import type { ProviderEvent, StreamProvider } from "../llm/provider.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  userMessage,
} from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import type { AgentEventSink } from "./event-sink.js";
import { EventStream } from "./event-stream.js";
import { agentLoop, runAgentLoop } from "./loop.js";
import type { AgentContext, AgentEvent, AgentHooks } from "./types.js";

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

// docs/decisions/0074: provider events handed over together are mapped in one go and a sink that
// persists is waited for once per batch; it still gets every event, in order, each one after the
// previous one's write, and the loop takes nothing more from the provider before the batch is stored.
describe("streamAssistantResponse: a persisting sink, waited for per batch", () => {
  /** A provider whose stream the test fills, batch by batch, logging each read of the loop. */
  class LoggedStream extends EventStream<ProviderEvent, AssistantMessage> {
    readonly log: string[];
    constructor(log: string[]) {
      super();
      this.log = log;
    }
    override takeBuffered(max?: number): ProviderEvent[] {
      const taken = super.takeBuffered(max);
      if (taken.length > 0) this.log.push(`take ${taken.length}`);
      return taken;
    }
  }
  class BatchedProvider implements StreamProvider {
    readonly providerId = "mock";
    readonly stream$: LoggedStream;
    constructor(log: string[]) {
      this.stream$ = new LoggedStream(log);
    }
    stream(): EventStream<ProviderEvent, AssistantMessage> {
      return this.stream$;
    }
  }

  const partial: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: "" }],
    stopReason: "stop",
    model: "scripted",
    provider: "mock",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
    timestamp: 1,
  };
  function delta(text: string): ProviderEvent {
    const block = partial.content[0] as { type: "text"; text: string };
    block.text += text;
    return { type: "textDelta", delta: text, partial };
  }

  it("hands each event over after the previous one is stored, every one in order, and reads the next batch only after", async () => {
    const log: string[] = [];
    const provider = new BatchedProvider(log);
    const stored: AgentEvent[] = [];
    let busy = 0;
    const sink: AgentEventSink = {
      async push(event) {
        if (busy > 0) log.push("OVERLAP");
        busy++;
        const what =
          event.type === "messageUpdate" && event.delta.type === "text"
            ? event.delta.delta
            : event.type;
        log.push(`push ${what}`);
        // the second batch arrives while the first is still being stored
        if (what === "a") {
          for (const text of ["d", "e"]) provider.stream$.push(delta(text));
          provider.stream$.push({ type: "done", message: partial });
          provider.stream$.end(partial);
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
        stored.push(event);
        log.push(`stored ${what}`);
        busy--;
      },
    };
    // the first batch, there when the loop first reads: start and three deltas (one network
    // read, many SSE events)
    for (const event of [{ type: "start", partial } as const, delta("a"), delta("b"), delta("c")])
      provider.stream$.push(event);
    await runAgentLoop(ask(), context(), loopConfig(provider), sink);

    expect(log).not.toContain("OVERLAP");
    for (let i = 0; i < log.length; i++) {
      const line = log[i] as string;
      if (line.startsWith("push ")) expect(log[i + 1]).toBe(`stored ${line.slice(5)}`);
    }
    // the second read comes only once the first batch's last event is stored
    const takes = log.flatMap((line, i) => (line.startsWith("take") ? [i] : []));
    expect(takes).toHaveLength(2);
    expect(log[(takes[1] as number) - 1]).toBe("stored c");
    expect(log.slice(takes[1] as number, (takes[1] as number) + 2)).toEqual(["take 3", "push d"]);
    expect(log[takes[0] as number]).toBe("take 4");
    // every event, in order, with the run's one loop id
    const updates = stored.filter((e) => e.type === "messageUpdate");
    expect(
      updates.map((e) => e.type === "messageUpdate" && e.delta.type === "text" && e.delta.delta),
    ).toEqual(["a", "b", "c", "d", "e"]);
    const streamed = stored.filter(
      (e) => e.type.startsWith("message") && "message" in e && e.message.role === "assistant",
    );
    expect(types(streamed)).toEqual([
      "messageStart",
      ...Array(5).fill("messageUpdate"),
      "messageEnd",
    ]);
    expect(new Set(stored.map((e) => e.loopId)).size).toBe(1);
    expect(types(stored).at(-1)).toBe("agentEnd");
  });

  it("a burst of 1,000 chunks reaches a persisting sink and a sink that returns nothing alike, in order", async () => {
    const text = Array.from({ length: 1000 }, (_, i) => `${i},`).join("");
    const script = () => new ScriptedProvider([{ blocks: [{ type: "text", text }], chunkSize: 4 }]);
    const persisted: AgentEvent[] = [];
    let busy = 0;
    let overlaps = 0;
    await runAgentLoop(ask(), context(), loopConfig(script()), {
      async push(event) {
        if (busy++ > 0) overlaps++;
        await Promise.resolve();
        persisted.push(event);
        busy--;
      },
    });
    const plain: AgentEvent[] = [];
    await runAgentLoop(ask(), context(), loopConfig(script()), {
      push: (event) => void plain.push(event),
    });
    expect(overlaps).toBe(0);
    const deltas = (events: AgentEvent[]) =>
      events.flatMap((e) =>
        e.type === "messageUpdate" && e.delta.type === "text" ? [e.delta.delta] : [],
      );
    expect(deltas(persisted).join("")).toBe(text);
    expect(deltas(persisted)).toEqual(deltas(plain));
    expect(types(persisted)).toEqual(types(plain));
  });

  it("a sink that waits for some events only gets the same events as one that never waits, in order, one write at a time", async () => {
    // the loop maps a text delta inline while nothing is to be waited for, and through pushAfter
    // once a write is in flight: the two paths alternate here within one batch
    const text = Array.from({ length: 300 }, (_, i) => `${i};`).join("");
    const script = () => new ScriptedProvider([{ blocks: [{ type: "text", text }], chunkSize: 3 }]);
    const mixed: AgentEvent[] = [];
    let busy = 0;
    let overlaps = 0;
    await runAgentLoop(ask(), context(), loopConfig(script()), {
      push(event) {
        if (busy > 0) overlaps++;
        if (mixed.push(event) % 3 !== 0) return;
        busy++;
        return Promise.resolve().then(() => {
          busy--;
        });
      },
    });
    const plain: AgentEvent[] = [];
    await runAgentLoop(ask(), context(), loopConfig(script()), {
      push: (event) => void plain.push(event),
    });
    expect(overlaps).toBe(0);
    const streamed = (events: AgentEvent[]): unknown[] =>
      events.flatMap((e): unknown[] => {
        if (e.type === "messageUpdate")
          return [
            { type: e.type, delta: e.delta, role: e.message.role, text: messageText(e.message) },
          ];
        if (e.type === "messageStart" || e.type === "messageEnd")
          return [{ type: e.type, role: e.message.role }];
        return [];
      });
    expect(streamed(mixed)).toEqual(streamed(plain));
    expect(types(mixed)).toEqual(types(plain));
    const deltas = mixed.flatMap((e) =>
      e.type === "messageUpdate" && e.delta.type === "text" ? [e.delta.delta] : [],
    );
    expect(deltas.join("")).toBe(text);
  });
});
