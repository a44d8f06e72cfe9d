import {
  APICallError,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { convertArrayToReadableStream } from "@ai-sdk/provider-utils/test";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ModelConfigInput } from "../model/llm-config.js";
import { DEFAULT_CACHE_CONFIG, modelConfig } from "../model/llm-config.js";
import { AiSdkProvider, parseToolArguments, toUsage } from "./ai-sdk-adapter.js";
import type { ProviderEvent, StreamRequest } from "./provider.js";

const usage = (
  input: number,
  output: number,
  cacheRead = 0,
  cacheWrite = 0,
): LanguageModelV3Usage => ({
  inputTokens: { total: input + cacheRead + cacheWrite, noCache: input, cacheRead, cacheWrite },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

function finish(
  unified: "stop" | "length" | "tool-calls" | "error" | "other" | "content-filter",
  u = usage(10, 5),
): LanguageModelV3StreamPart {
  return { type: "finish", finishReason: { unified, raw: unified }, usage: u };
}

function setup(
  parts: LanguageModelV3StreamPart[] | (() => never),
  config: Partial<ModelConfigInput> = {},
) {
  const model = new MockLanguageModelV3({
    doStream:
      typeof parts === "function"
        ? async () => parts()
        : async () => ({ stream: convertArrayToReadableStream(parts) }),
  });
  const provider = new AiSdkProvider({ protocol: "anthropic-messages", createModel: () => model });
  const request: StreamRequest = {
    model: modelConfig({ protocol: "anthropic-messages", model: "claude-test", ...config }),
    systemPrompt: "be brief",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 0 }],
    tools: [],
    thinkingLevel: "off",
    cache: DEFAULT_CACHE_CONFIG,
  };
  return { model, provider, request };
}

async function collect(iter: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

describe("AiSdkProvider stream mapping", () => {
  it("text, reasoning with signature, usage incl. cache (REQ-128, REQ-131)", async () => {
    const { provider, request } = setup([
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", modelId: "claude-test-20250101" },
      { type: "reasoning-start", id: "0" },
      { type: "reasoning-delta", id: "0", delta: "let me " },
      { type: "reasoning-delta", id: "0", delta: "think" },
      {
        type: "reasoning-delta",
        id: "0",
        delta: "",
        providerMetadata: { anthropic: { signature: "sig-1" } },
      },
      { type: "reasoning-end", id: "0" },
      { type: "text-start", id: "1" },
      { type: "text-delta", id: "1", delta: "Hello" },
      { type: "text-delta", id: "1", delta: " world" },
      { type: "text-end", id: "1" },
      finish("stop", usage(100, 20, 300, 40)),
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "thinkingDelta",
      "thinkingDelta",
      "textDelta",
      "textDelta",
      "done",
    ]);
    const done = events.at(-1);
    if (done?.type !== "done") throw new Error("no done");
    expect(done.message).toMatchObject({
      role: "assistant",
      provider: "anthropic",
      model: "claude-test-20250101",
      stopReason: "stop",
      content: [
        { type: "thinking", thinking: "let me think", signature: "sig-1" },
        { type: "text", text: "Hello world" },
      ],
      usage: { input: 100, output: 20, cacheRead: 300, cacheWrite: 40, totalTokens: 460 },
    });
  });

  it("redacted thinking keeps the payload in signature", async () => {
    const { provider, request } = setup([
      {
        type: "reasoning-start",
        id: "0",
        providerMetadata: { anthropic: { redactedData: "enc" } },
      },
      { type: "reasoning-end", id: "0" },
      finish("stop"),
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    const last = events.at(-1);
    expect(last?.type === "done" && last.message.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      signature: "enc",
      redacted: true,
    });
  });

  it("tool input deltas → toolCallDelta; tool-call → parsed arguments; REQ-043 toolUse", async () => {
    const { provider, request } = setup([
      { type: "tool-input-start", id: "t1", toolName: "read" },
      { type: "tool-input-delta", id: "t1", delta: '{"path":' },
      { type: "tool-input-delta", id: "t1", delta: '"a.ts"}' },
      { type: "tool-input-end", id: "t1" },
      { type: "tool-call", toolCallId: "t1", toolName: "read", input: '{"path":"a.ts"}' },
      { type: "tool-call", toolCallId: "t2", toolName: "ls", input: "" },
      finish("tool-calls"),
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    const deltas = events.filter((e) => e.type === "toolCallDelta");
    expect(deltas.every((d) => d.type === "toolCallDelta" && d.partial.role === "assistant")).toBe(
      true,
    );
    expect(deltas.map((d) => d.type === "toolCallDelta" && [d.id, d.name, d.delta])).toEqual([
      ["t1", "read", '{"path":'],
      ["t1", "read", '"a.ts"}'],
    ]);
    const done = events.at(-1);
    if (done?.type !== "done") throw new Error("no done");
    expect(done.message.stopReason).toBe("toolUse");
    expect(done.message.content).toEqual([
      { type: "toolCall", id: "t1", name: "read", arguments: { path: "a.ts" } },
      { type: "toolCall", id: "t2", name: "ls", arguments: {} },
    ]);
  });

  it("whole tool calls without deltas (Gemini) still emit one delta", async () => {
    const { provider, request } = setup([
      { type: "tool-call", toolCallId: "g0", toolName: "grep", input: '{"q":"x"}' },
      finish("stop"),
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events.filter((e) => e.type === "toolCallDelta")).toHaveLength(1);
    const done = events.at(-1);
    // a "stop" finish with tool calls is still toolUse
    expect(done?.type === "done" && done.message.stopReason).toBe("toolUse");
  });

  it.each([
    ["length", "length"],
    ["stop", "stop"],
    ["other", "stop"],
  ] as const)("finish %s → stopReason %s", async (unified, expected) => {
    const { provider, request } = setup([finish(unified)]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    const done = events.at(-1);
    expect(done?.type === "done" && done.message.stopReason).toBe(expected);
  });

  it("bad tool JSON is kept under __raw", () => {
    expect(parseToolArguments('{"a":')).toEqual({ __raw: '{"a":' });
    expect(parseToolArguments("[1]")).toEqual({ __raw: "[1]" });
    expect(parseToolArguments(' {"a":1} ')).toEqual({ a: 1 });
  });

  it("usage without a noCache split derives input from the total", () => {
    expect(
      toUsage({
        inputTokens: { total: 50, noCache: undefined, cacheRead: 20, cacheWrite: undefined },
        outputTokens: { total: 7, text: undefined, reasoning: undefined },
      }),
    ).toEqual({ input: 30, output: 7, cacheRead: 20, cacheWrite: 0, totalTokens: 57 });
  });
});

describe("AiSdkProvider errors never throw", () => {
  it("thrown APICallError → classified error event with partial.errorMessage", async () => {
    const { provider, request } = setup(() => {
      throw new APICallError({
        message: "Too Many Requests",
        url: "http://x/v1/messages",
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { "retry-after": "3" },
        responseBody: '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
      });
    });
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events.map((e) => e.type)).toEqual(["start", "error"]);
    const err = events[1];
    if (err?.type !== "error") throw new Error("no error");
    expect(err.error).toEqual({
      kind: "rate_limited",
      message: "slow down",
      retryAfterMs: 3000,
      status: 429,
    });
    expect(err.partial.stopReason).toBe("error");
    expect(err.partial.errorMessage).toBe("slow down");
  });

  it("an error stream part ends the stream with one error event, keeping partial content", async () => {
    const { provider, request } = setup([
      { type: "text-delta", id: "1", delta: "par" },
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      { type: "text-delta", id: "1", delta: "never seen" },
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events.map((e) => e.type)).toEqual(["start", "textDelta", "error"]);
    const err = events[2];
    if (err?.type !== "error") throw new Error("no error");
    expect(err.error.kind).toBe("overloaded");
    expect(err.partial.content).toEqual([{ type: "text", text: "par" }]);
  });

  it("finish with unified error or content filter → error event", async () => {
    for (const unified of ["error", "content-filter"] as const) {
      const { provider, request } = setup([finish(unified)]);
      const events = await collect(provider.stream(request, new AbortController().signal));
      const last = events.at(-1);
      expect(last?.type).toBe("error");
      expect(last?.type === "error" && last.partial.stopReason).toBe("error");
    }
  });

  it("a stream that ends without finish is a network error (retryable)", async () => {
    const { provider, request } = setup([{ type: "text-delta", id: "1", delta: "cut" }]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    const last = events.at(-1);
    expect(last?.type === "error" && last.error.kind).toBe("network");
  });

  it("model construction failures become error events", async () => {
    const provider = new AiSdkProvider({ protocol: "azure-openai-responses" });
    const events = await collect(
      provider.stream(
        {
          model: modelConfig({ protocol: "azure-openai-responses", model: "dep", apiKey: "k" }),
          systemPrompt: "",
          messages: [],
          tools: [],
          thinkingLevel: "off",
          cache: DEFAULT_CACHE_CONFIG,
        },
        new AbortController().signal,
      ),
    );
    const last = events.at(-1);
    expect(last?.type).toBe("error");
    expect(last?.type === "error" && last.partial.provider).toBe("azure_openai");
  });

  it("abort mid-stream → cancelled, stopReason aborted", async () => {
    const ctrl = new AbortController();
    let pull: ((v: LanguageModelV3StreamPart) => void) | undefined;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(c) {
            c.enqueue({ type: "text-delta", id: "1", delta: "a" });
            pull = (v) => c.enqueue(v);
          },
        }),
      }),
    });
    const provider = new AiSdkProvider({ protocol: "openai-chat", createModel: () => model });
    const { request } = setup([]);
    const events: ProviderEvent[] = [];
    for await (const e of provider.stream(
      { ...request, model: modelConfig({ protocol: "openai-chat", model: "m" }) },
      ctrl.signal,
    )) {
      events.push(e);
      if (e.type === "textDelta") ctrl.abort();
    }
    expect(pull).toBeDefined();
    expect(events.map((e) => e.type)).toEqual(["start", "textDelta", "error"]);
    const last = events[2];
    if (last?.type !== "error") throw new Error("no error");
    expect(last.error.kind).toBe("cancelled");
    expect(last.partial.stopReason).toBe("aborted");
    expect(last.partial.provider).toBe("openai");
  });

  it("already-aborted signal → cancelled without calling the model", async () => {
    const { provider, request, model } = setup([finish("stop")]);
    const ctrl = new AbortController();
    ctrl.abort();
    const events = await collect(provider.stream(request, ctrl.signal));
    expect(events.at(-1)?.type === "error").toBe(true);
    expect(model.doStreamCalls).toHaveLength(0);
  });
});

describe("AiSdkProvider request conversion", () => {
  it("passes converted call options and the abort signal to doStream", async () => {
    const { provider, request, model } = setup([finish("stop")]);
    await collect(provider.stream({ ...request, maxTokens: 77 }, new AbortController().signal));
    const call = model.doStreamCalls[0];
    expect(call?.maxOutputTokens).toBe(77);
    expect(call?.abortSignal).toBeDefined();
    expect(call?.prompt.map((m) => m.role)).toEqual(["system", "user"]);
  });
});
