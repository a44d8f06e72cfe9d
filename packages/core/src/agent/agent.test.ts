import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, echoTool, testModel } from "../../test/support/agent-fixtures.js";
import { DEFAULT_CACHE_CONFIG, modelConfig } from "../model/llm-config.js";
import { type AgentMessage, type AssistantMessage, messageText } from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool } from "../tools/tool.js";
import { Agent } from "./agent.js";
import { EventStream } from "./event-stream.js";
import {
  type AgentEvent,
  type CompactionStrategy,
  DEFAULT_CONTEXT_CONFIG,
  DEFAULT_EXECUTION_LIMITS,
  DEFAULT_RETRY_CONFIG,
} from "./types.js";

const fastRetry = { maxRetries: 3, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 4 };

function agent(provider: ScriptedProvider): Agent {
  return new Agent({ provider, model: testModel, retryConfig: fastRetry });
}

const text = (message: AgentMessage | undefined) => (message ? messageText(message) : "");

describe("Agent", () => {
  it("REQ-024/025/026/031: smoke test — defaults, then builders; every setting reads back", () => {
    const provider = new ScriptedProvider([]);
    const a = new Agent({ provider, model: testModel });
    expect(a.settings).toMatchObject({
      systemPrompt: "",
      tools: [],
      thinkingLevel: "off",
      toolExecution: { type: "parallel" },
      steeringMode: "oneAtATime",
      followUpMode: "oneAtATime",
      contextConfig: DEFAULT_CONTEXT_CONFIG,
      executionLimits: DEFAULT_EXECUTION_LIMITS,
      retryConfig: DEFAULT_RETRY_CONFIG,
      cacheConfig: DEFAULT_CACHE_CONFIG,
    });
    expect(a.messages).toEqual([]);
    expect(a.isStreaming).toBe(false);
    const other = modelConfig({ protocol: "anthropic-messages", model: "claude-x" });
    const strategy: CompactionStrategy = { name: "none", compact: (m) => m };
    const filter = { name: "f", filter: () => ({ action: "pass" as const }) };
    const returned = a
      .withSystemPrompt("sys")
      .withModel(other)
      .withMaxTokens(123)
      .withTemperature(0.5)
      .withThinking("high")
      .withTools([echoTool])
      .withContextConfig(null)
      .withExecutionLimits({ maxTurns: 3, maxTotalTokens: 10, maxDurationMs: 1000 })
      .withRetryConfig(fastRetry)
      .withCacheConfig({ enabled: false, strategy: { type: "disabled" } })
      .withToolExecution({ type: "batched", size: 2 })
      .withSteeringMode("all")
      .withFollowUpMode("all")
      .withCompactionStrategy(strategy)
      .withInputFilter(filter)
      .withConfigId("cfg");
    expect(returned).toBe(a);
    expect(a.settings).toMatchObject({
      systemPrompt: "sys",
      model: other,
      maxTokens: 123,
      temperature: 0.5,
      thinkingLevel: "high",
      tools: [echoTool],
      contextConfig: null,
      executionLimits: { maxTurns: 3 },
      retryConfig: fastRetry,
      cacheConfig: { enabled: false },
      toolExecution: { type: "batched", size: 2 },
      steeringMode: "all",
      followUpMode: "all",
      compactionStrategy: strategy,
      inputFilters: [filter],
      configId: "cfg",
    });
  });

  it("REQ-034/035: prompt returns a stream at once; messages merge when the run completes", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "hi!" }], firstChunkDelayMs: 5 },
    ]);
    const a = agent(provider);
    const stream = a.prompt("hello");
    expect(stream).toBeInstanceOf(EventStream);
    expect(a.isStreaming).toBe(true);
    await collect(stream);
    await stream.result();
    expect(a.isStreaming).toBe(false);
    expect(a.messages.map(text)).toEqual(["hello", "hi!"]);
  });

  it("REQ-107: prompting while a run is active throws and points to steer()/followUp()", async () => {
    const a = agent(
      new ScriptedProvider([{ blocks: [{ type: "text", text: "x" }], firstChunkDelayMs: 5 }]),
    );
    const stream = a.prompt("one");
    expect(() => a.prompt("two")).toThrow(/steer\(\).*followUp\(\)/);
    await stream.result();
    expect(() => a.prompt("three")).not.toThrow();
  });

  it("REQ-066/088: steering mid-run is injected before the next model call; queued tools are skipped", async () => {
    let a: Agent | undefined;
    const steerTool = defineTool({
      name: "steer_me",
      label: "Steer me",
      description: "the user steers while this runs",
      parameters: z.object({}),
      execute: async () => {
        a?.steer("actually, stop");
        return { content: [{ type: "text", text: "ran" }] };
      },
    });
    const provider = new ScriptedProvider([
      {
        blocks: [
          { type: "toolCall", id: "1", name: "steer_me", arguments: {} },
          { type: "toolCall", id: "2", name: "echo", arguments: { text: "never" } },
        ],
      },
      { blocks: [{ type: "text", text: "ok, stopping" }] },
    ]);
    a = agent(provider).withTools([steerTool, echoTool]).withToolExecution({ type: "sequential" });
    const events = await collect(a.prompt("go"));
    const second = provider.requests[1];
    expect(second?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
    ]);
    expect(text(second?.messages[4])).toBe("actually, stop");
    expect(second?.messages[3]).toMatchObject({
      isError: true,
      content: [{ text: "Skipped due to queued user message." }],
    });
    expect(events.filter((e) => e.type === "turnStart")).toHaveLength(2);
  });

  it("REQ-087: steering queued before prompt() joins the first request after the prompt", async () => {
    const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "ok" }] }]);
    const a = agent(provider);
    a.steer("early note");
    await a.prompt("main").result();
    expect(provider.requests[0]?.messages.map(text)).toEqual(["main", "early note"]);
  });

  it("REQ-089/193: a follow-up re-enters the loop after the agent would stop; its turn is a continuation", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "first" }] },
      { blocks: [{ type: "text", text: "second" }] },
    ]);
    const a = agent(provider);
    const stream = a.prompt("start");
    a.followUp("and then?");
    const events = await collect(stream);
    expect(provider.requests).toHaveLength(2);
    expect(a.messages.map(text)).toEqual(["start", "first", "and then?", "second"]);
    expect(events.flatMap((e) => (e.type === "turnStart" ? [e.triggeredBy] : []))).toEqual([
      "user",
      "continuation",
    ]);
  });

  it("REQ-090: oneAtATime takes one follow-up per read; all drains the queue", async () => {
    const run = async (mode: "oneAtATime" | "all") => {
      const provider = new ScriptedProvider([]);
      const a = agent(provider).withFollowUpMode(mode);
      for (const t of ["f1", "f2", "f3"]) a.followUp(t);
      await a.prompt("p").result();
      return provider.requests.map((r) =>
        r.messages
          .filter((m) => m.role === "user")
          .map(text)
          .slice(-3),
      );
    };
    expect(await run("oneAtATime")).toHaveLength(4);
    const all = await run("all");
    expect(all).toHaveLength(2);
    expect(all[1]).toEqual(["f1", "f2", "f3"]);
  });

  it("REQ-062: maxTurns 2 → exactly 2 model calls; the last message says why the agent stopped", async () => {
    const provider = new ScriptedProvider(() => ({
      blocks: [{ type: "toolCall", name: "echo", arguments: { text: "again" } }],
    }));
    const a = agent(provider)
      .withTools([echoTool])
      .withExecutionLimits({ maxTurns: 2, maxTotalTokens: 1e9, maxDurationMs: 1e9 });
    const events = await collect(a.prompt("loop forever"));
    expect(provider.requests).toHaveLength(2);
    const last = a.messages.at(-1);
    expect(last?.role).toBe("user");
    expect(text(last)).toMatch(/^\[Agent stopped: .+\]$/);
    expect(events.at(-1)?.type).toBe("agentEnd");
    expect(events.at(-2)).toMatchObject({ type: "messageEnd", message: last });
  });

  it("REQ-067: abort() during a run stops it with stopReason aborted and agentEnd", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "slow answer" }], chunkSize: 1, chunkDelayMs: 3 },
    ]);
    const a = agent(provider);
    const stream = a.prompt("go");
    const events: AgentEvent[] = [];
    for await (const e of stream) {
      events.push(e);
      if (e.type === "messageUpdate") a.abort();
    }
    expect(a.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(events.at(-1)?.type).toBe("agentEnd");
    expect(a.isStreaming).toBe(false);
  });

  it("REQ-063/064/018: save → restore is lossless for every message kind; bad input gives clear errors", async () => {
    const assistant: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "answer" },
        {
          type: "toolCall",
          id: "c",
          name: "echo",
          arguments: { text: "x", nested: { n: [1, 2] } },
        },
      ],
      stopReason: "toolUse",
      model: "m",
      provider: "mock",
      usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10 },
      timestamp: 5,
    };
    const history: AgentMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "q" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        timestamp: 1,
      },
      assistant,
      {
        role: "toolResult",
        toolCallId: "c",
        toolName: "echo",
        content: [{ type: "text", text: "x" }],
        isError: false,
        timestamp: 6,
        details: { a: 1 },
        childLoopId: "s.c.1",
      },
      { role: "extension", kind: "note", data: { deep: [1, { two: 2 }] }, timestamp: 7 },
      { ...assistant, content: [], stopReason: "error", errorMessage: "boom" },
    ];
    const a = agent(new ScriptedProvider());
    a.restoreMessages(JSON.stringify(history));
    const saved = a.saveMessages();
    const b = agent(new ScriptedProvider());
    b.restoreMessages(saved);
    expect(b.messages).toEqual(history);
    expect(b.saveMessages()).toBe(saved);
    expect(() => b.restoreMessages("{not json")).toThrow(/restoreMessages: invalid JSON/);
    expect(() => b.restoreMessages(JSON.stringify([{ role: "robot" }]))).toThrow(
      /restoreMessages: not a list of agent messages/,
    );
    expect(b.messages).toEqual(history); // a failed restore changes nothing
  });

  it("REQ-065: reset clears history and queues and aborts the active run, whose messages are dropped", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "late" }], chunkDelayMs: 5 },
    ]);
    const a = agent(provider);
    await a.prompt("one").result();
    const stream = a.prompt("two");
    a.steer("s");
    a.followUp("f");
    a.reset();
    expect(a.isStreaming).toBe(false);
    expect(a.messages).toEqual([]);
    await stream.result();
    expect(a.messages).toEqual([]);
    await a.prompt("three").result();
    expect(a.messages.map(text)).toEqual(["three", ""]); // no queued steering/follow-up survived
  });

  it("REQ-144: promptWithSink multiplexes several runs into one caller-owned sink", async () => {
    const a = agent(
      new ScriptedProvider([
        { blocks: [{ type: "text", text: "a" }] },
        { blocks: [{ type: "text", text: "b" }] },
      ]),
    );
    const sink: AgentEvent[] = [];
    const first = await a.promptWithSink("1", { push: (e) => void sink.push(e) });
    const second = await a.promptWithSink("2", { push: (e) => void sink.push(e) });
    expect(first.map(text)).toEqual(["1", "a"]);
    expect(second.map(text)).toEqual(["2", "b"]);
    expect(sink.filter((e) => e.type === "agentEnd")).toHaveLength(2);
    expect(new Set(sink.map((e) => e.loopId)).size).toBe(2);
  });

  it("REQ-188/189/187: stable identity; loop ids end .1 and .2; configs count independently", async () => {
    const a = agent(new ScriptedProvider());
    const starts: AgentEvent[] = [];
    const sink = { push: (e: AgentEvent) => void (e.type === "agentStart" && starts.push(e)) };
    await a.promptWithSink("1", sink);
    await a.promptWithSink("2", sink);
    a.withThinking("medium");
    await a.promptWithSink("3", sink);
    a.withConfigId("my-config");
    await a.promptWithSink("4", sink);
    const ids = starts.map((e) => e.loopId);
    expect(ids).toEqual([
      `${a.sessionId}.mock.scripted-model.1`,
      `${a.sessionId}.mock.scripted-model.2`,
      `${a.sessionId}.mock.scripted-model.thinking.1`,
      `${a.sessionId}.my-config.1`,
    ]);
    expect(a.agentId).toMatch(/^[0-9a-f-]{36}$/);
    for (const e of starts) expect(e).toMatchObject({ agentId: a.agentId, sessionId: a.sessionId });
    expect(a.lastLoopId).toBe(ids[3]);
  });

  it("REQ-037/190: continue() resumes from the history with the previous loop as parent", async () => {
    const provider = new ScriptedProvider([
      { error: { status: 401, message: "expired" } },
      { blocks: [{ type: "text", text: "recovered" }] },
    ]);
    const a = agent(provider);
    await a.prompt("hello").result();
    expect(() => a.continue()).toThrow(/cannot continue from an assistant message/);
    expect(a.isStreaming).toBe(false);
    const withoutError = a.messages.slice(0, -1);
    a.restoreMessages(JSON.stringify(withoutError));
    const first = a.lastLoopId;
    const events = await collect(a.continue({ type: "rerun", tag: "2026-03-22T00:00:00Z" }));
    expect(events[0]).toMatchObject({
      type: "agentStart",
      parentLoopId: first,
      continuationKind: { type: "rerun", tag: "2026-03-22T00:00:00Z" },
    });
    expect(a.messages.map(text)).toEqual(["hello", "recovered"]);
  });
});
