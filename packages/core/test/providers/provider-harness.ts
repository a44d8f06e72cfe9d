import { expect } from "vitest";
import { AiSdkProvider } from "../../src/llm/ai-sdk-adapter.js";
import type { AiSdkProtocol, FetchFunction } from "../../src/llm/model-factory.js";
import type {
  ProviderError,
  ProviderEvent,
  StreamProvider,
  StreamRequest,
} from "../../src/llm/provider.js";
import { DEFAULT_CACHE_CONFIG, type ModelConfig } from "../../src/model/llm-config.js";
import type { AssistantMessage, Message } from "../../src/model/llm-messages.js";
import type { FakeLlmServer } from "../../src/testing/fake-llm-server/index.js";
import type { ScriptedTurn } from "../../src/testing/script.js";

// Shared REQ-167 checks: every protocol goes through the real AiSdkProvider and the AI SDK
// provider package against the local fake server speaking that protocol's wire format.

export const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

export const listTool = {
  name: "list_files",
  description: "List files",
  parameters: { type: "object", properties: {}, additionalProperties: false },
};

/** A finished tool round trip, so the request carries tool calls, results and 4 messages. */
export const history: Message[] = [
  { role: "user", content: [{ type: "text", text: "What's in the repo?" }], timestamp: 1 },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Listing." },
      { type: "toolCall", id: "call_prev", name: "list_files", arguments: {} },
    ],
    stopReason: "toolUse",
    model: "m",
    provider: "p",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
    timestamp: 2,
  },
  {
    role: "toolResult",
    toolCallId: "call_prev",
    toolName: "list_files",
    content: [{ type: "text", text: "README.md" }],
    isError: false,
    timestamp: 3,
  },
  { role: "user", content: [{ type: "text", text: "Weather in Oslo?" }], timestamp: 4 },
];

export const toolTurn: ScriptedTurn = {
  blocks: [
    { type: "thinking", thinking: "The user wants weather.", signature: "sig-1" },
    { type: "text", text: "Let me check the forecast." },
    { type: "toolCall", name: "get_weather", arguments: { city: "Oslo" } },
  ],
  usage: { input: 100, output: 30, cacheRead: 20, cacheWrite: 7 },
  chunkSize: 5,
};

export function request(model: ModelConfig, extra: Partial<StreamRequest> = {}): StreamRequest {
  return {
    model,
    systemPrompt: "You are a weather bot.",
    messages: history,
    tools: [listTool, weatherTool],
    thinkingLevel: "medium",
    maxTokens: 1000,
    cache: DEFAULT_CACHE_CONFIG,
    ...extra,
  };
}

export function provider(protocol: AiSdkProtocol, fetch?: FetchFunction): AiSdkProvider {
  return new AiSdkProvider({ protocol, ...(fetch ? { fetch } : {}) });
}

export async function run(
  p: StreamProvider,
  req: StreamRequest,
  signal = new AbortController().signal,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const e of p.stream(req, signal)) events.push(e);
  return events;
}

export function done(events: ProviderEvent[]): AssistantMessage {
  const last = events.at(-1);
  if (last?.type !== "done") {
    throw new Error(`expected done, got ${JSON.stringify(last)}`);
  }
  return last.message;
}

export function failure(events: ProviderEvent[]): {
  error: ProviderError;
  partial: AssistantMessage;
} {
  const last = events.at(-1);
  if (last?.type !== "error") throw new Error(`expected error, got ${JSON.stringify(last)}`);
  expect(events.filter((e) => e.type === "error" || e.type === "done")).toHaveLength(1);
  return { error: last.error, partial: last.partial };
}

/** The body the server recorded for the last request. */
export function lastBody(server: FakeLlmServer): Record<string, unknown> {
  const body = server.requests.at(-1)?.body;
  if (typeof body !== "object" || body === null) throw new Error("no recorded JSON body");
  return body as Record<string, unknown>;
}

/**
 * The protocol-independent checks: tool-call response parsing, stop reasons, usage incl. cache
 * tokens, classified HTTP errors, a dropped connection and an abort mid-stream.
 */
export async function commonChecks(
  server: FakeLlmServer,
  p: AiSdkProvider,
  model: ModelConfig,
  expectations: { thinking: boolean; cacheWrite: boolean },
): Promise<void> {
  // response parsing, tool-call extraction, REQ-043 toolUse, REQ-128 usage
  server.enqueue(toolTurn);
  const events = await run(p, request(model));
  const message = done(events);
  expect(message.stopReason).toBe("toolUse");
  const text = message.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
  expect(text).toBe("Let me check the forecast.");
  const call = message.content.find((b) => b.type === "toolCall");
  expect(call).toMatchObject({
    type: "toolCall",
    name: "get_weather",
    arguments: { city: "Oslo" },
  });
  expect(call?.type === "toolCall" && call.id.length > 0).toBe(true);
  expect(events.filter((e) => e.type === "textDelta").length).toBeGreaterThan(1);
  expect(events.some((e) => e.type === "toolCallDelta")).toBe(true);
  if (expectations.thinking) {
    const thinking = message.content.find((b) => b.type === "thinking");
    expect(thinking?.type === "thinking" && thinking.thinking).toBe("The user wants weather.");
  }
  // wire formats without a cache-write count (OpenAI, Gemini) report those tokens as input
  expect(message.usage.input).toBe(expectations.cacheWrite ? 100 : 107);
  expect(message.usage.output).toBe(30);
  expect(message.usage.cacheRead).toBe(20);
  expect(message.usage.cacheWrite).toBe(expectations.cacheWrite ? 7 : 0);
  expect(message.usage.totalTokens).toBe(
    message.usage.input + message.usage.output + message.usage.cacheRead + message.usage.cacheWrite,
  );

  // plain stop and length
  server.enqueue({ blocks: [{ type: "text", text: "Sunny." }] });
  expect(done(await run(p, request(model))).stopReason).toBe("stop");
  server.enqueue({ blocks: [{ type: "text", text: "Cut off" }], stopReason: "length" });
  expect(done(await run(p, request(model))).stopReason).toBe("length");

  // REQ-075 error statuses → classified errors
  server.enqueue({
    error: { status: 429, message: "quota exhausted", headers: { "retry-after": "3" } },
  });
  const limited = failure(await run(p, request(model)));
  expect(limited.error).toMatchObject({ kind: "rate_limited", retryAfterMs: 3000, status: 429 });
  expect(limited.partial.stopReason).toBe("error");
  expect(limited.partial.errorMessage).toContain("quota exhausted");

  server.enqueue({
    error: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" },
  });
  expect(failure(await run(p, request(model))).error.kind).toBe("context_overflow");

  server.enqueue({ error: { status: 401, message: "invalid api key" } });
  expect(failure(await run(p, request(model))).error.kind).toBe("auth");

  // a dropped connection mid-stream → network (retryable)
  server.enqueue({
    blocks: [{ type: "text", text: "x".repeat(200) }],
    chunkSize: 10,
    interruptAfterChunks: 3,
  });
  expect(failure(await run(p, request(model))).error.kind).toBe("network");

  // abort mid-stream → cancelled, stopReason aborted
  server.enqueue({
    blocks: [{ type: "text", text: "y".repeat(400) }],
    chunkSize: 10,
    chunkDelayMs: 20,
  });
  const ctrl = new AbortController();
  const aborted: ProviderEvent[] = [];
  for await (const e of p.stream(request(model), ctrl.signal)) {
    aborted.push(e);
    if (e.type === "textDelta") ctrl.abort();
  }
  const cancelled = failure(aborted);
  expect(cancelled.error.kind).toBe("cancelled");
  expect(cancelled.partial.stopReason).toBe("aborted");
  expect(aborted.filter((e) => e.type === "textDelta")).toHaveLength(1);
}
