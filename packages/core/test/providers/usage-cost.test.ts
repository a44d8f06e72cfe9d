import { describe, expect, it } from "vitest";
import type { AiSdkProtocol } from "../../src/llm/model-factory.js";
import { costOfUsage } from "../../src/llm/pricing.js";
import { modelConfig } from "../../src/model/llm-config.js";
import type { Usage } from "../../src/model/llm-messages.js";
import { done, provider, request, run } from "./provider-harness.js";

// Cost arithmetic on each provider's own usage shape (issue #28): a response in the provider's
// wire format, written here by hand with the counts the provider reports, goes through the AI SDK
// provider package and Arbor's adapter (ai-sdk-adapter.ts toUsage) into costOfUsage. A change in
// how any of them maps cached, cache-write or reasoning tokens changes the cost and fails here.
//   Anthropic: input_tokens EXCLUDES cache reads and writes, which come separately.
//   OpenAI:    prompt_tokens INCLUDES cached_tokens; reasoning_tokens are inside completion_tokens.
//   Gemini:    promptTokenCount INCLUDES cachedContentTokenCount; thoughtsTokenCount is NOT in
//              candidatesTokenCount, and is billed as output; a long prompt bills the long tier.

const MILLION = 1_000_000;

/** A fetch that answers every request with `body` as an event stream, and records the URL. */
function answering(body: string): { fetch: typeof globalThis.fetch; urls: string[] } {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream" },
    });
  };
  return { fetch, urls };
}

const sse = (events: Array<[string | undefined, unknown]>): string =>
  events
    .map(([name, data]) => `${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}\n\n`)
    .join("");

async function usageThrough(
  protocol: AiSdkProtocol,
  model: string,
  body: string,
  // another host than OpenAI's is served by the openai-compatible package; OpenAI's own URL (the
  // fetch above answers it, nothing leaves the machine) by @ai-sdk/openai, which reads cache writes
  baseUrl = "http://127.0.0.1:9",
): Promise<{ usage: Usage; urls: string[] }> {
  const { fetch, urls } = answering(body);
  const config = modelConfig({ protocol, model, apiKey: "k", baseUrl });
  const message = done(await run(provider(protocol, fetch), request(config, { tools: [] })));
  return { usage: message.usage, urls };
}

describe("Anthropic Messages: input excludes cache reads and writes", () => {
  const body = (usage: Record<string, number>, output: number) =>
    sse([
      [
        "message_start",
        {
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5-20250929",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        },
      ],
      [
        "content_block_start",
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: output },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ]);

  it("prices uncached input, cache reads, 5-minute cache writes and output once each", async () => {
    const { usage, urls } = await usageThrough(
      "anthropic-messages",
      "claude-sonnet-4-5-20250929",
      body(
        { input_tokens: 1000, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 4000 },
        2000,
      ),
    );
    expect(urls[0]).toMatch(/\/messages$/);
    expect(usage).toMatchObject({ input: 1000, cacheRead: 10_000, cacheWrite: 4000, output: 2000 });
    // claude-sonnet-4-5: $3 input, $0.30 cache hit, $3.75 5-minute write, $15 output
    expect(costOfUsage(usage, "claude-sonnet-4-5-20250929")).toBeCloseTo(
      (1000 * 3 + 10_000 * 0.3 + 4000 * 3.75 + 2000 * 15) / MILLION,
      12,
    );
  });

  it("an uncached request costs input and output only", async () => {
    const { usage } = await usageThrough(
      "anthropic-messages",
      "claude-haiku-4-5",
      body({ input_tokens: 5000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, 800),
    );
    expect(usage).toMatchObject({ input: 5000, cacheRead: 0, cacheWrite: 0, output: 800 });
    expect(costOfUsage(usage, "claude-haiku-4-5")).toBeCloseTo((5000 * 1 + 800 * 5) / MILLION, 12);
  });

  it("a Haiku 5.5 prompt over 100K tokens (cache included) bills the whole request higher", async () => {
    const { usage } = await usageThrough(
      "anthropic-messages",
      "claude-haiku-5-5",
      body(
        { input_tokens: 20_000, cache_read_input_tokens: 80_001, cache_creation_input_tokens: 0 },
        1000,
      ),
    );
    expect(costOfUsage(usage, "claude-haiku-5-5")).toBeCloseTo(
      (20_000 * 0.5 + 80_001 * 0.05 + 1000 * 2.5) / MILLION,
      12,
    );
  });
});

describe("OpenAI Chat Completions: cached_tokens inside prompt_tokens, reasoning inside output", () => {
  const chunk = (extra: Record<string, unknown>) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "o4-mini-2025-04-16",
    ...extra,
  });
  const body = (usage: Record<string, unknown>) =>
    `${sse([
      [
        undefined,
        chunk({
          choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }],
        }),
      ],
      [undefined, chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })],
      [undefined, chunk({ choices: [], usage })],
    ])}data: [DONE]\n\n`;

  it("prices the cached part of the prompt at the cached rate, and reasoning as output", async () => {
    const { usage, urls } = await usageThrough(
      "openai-chat",
      "o4-mini-2025-04-16",
      body({
        prompt_tokens: 10_000,
        completion_tokens: 1500,
        total_tokens: 11_500,
        prompt_tokens_details: { cached_tokens: 8000 },
        completion_tokens_details: { reasoning_tokens: 1200 },
      }),
    );
    expect(urls[0]).toMatch(/\/chat\/completions$/);
    expect(usage).toMatchObject({ input: 2000, cacheRead: 8000, cacheWrite: 0, output: 1500 });
    // o4-mini: $1.10 input, $0.275 cached input, $4.40 output (reasoning included)
    expect(costOfUsage(usage, "o4-mini-2025-04-16")).toBeCloseTo(
      (2000 * 1.1 + 8000 * 0.275 + 1500 * 4.4) / MILLION,
      12,
    );
  });

  it("GPT-6 Sol: cache writes (inside prompt_tokens) at the write price, apart from reads and input", async () => {
    const { usage, urls } = await usageThrough(
      "openai-chat",
      "gpt-6-sol",
      body({
        prompt_tokens: 20_000,
        completion_tokens: 900,
        total_tokens: 20_900,
        prompt_tokens_details: { cached_tokens: 12_000, cache_write_tokens: 6000 },
        completion_tokens_details: { reasoning_tokens: 700 },
      }),
      "https://api.openai.com/v1",
    );
    expect(urls[0]).toBe("https://api.openai.com/v1/chat/completions");
    expect(usage).toMatchObject({ input: 2000, cacheRead: 12_000, cacheWrite: 6000, output: 900 });
    // gpt-6-sol: $2 input, $0.20 cached input, $2.50 cache writes, $10 output
    expect(costOfUsage(usage, "gpt-6-sol")).toBeCloseTo(
      (2000 * 2 + 12_000 * 0.2 + 6000 * 2.5 + 900 * 10) / MILLION,
      12,
    );
    // GPT-6.2 Sol halves the cached-input price only; a dated snapshot is the same model
    expect(costOfUsage(usage, "gpt-6.2-sol-2026-11-01")).toBeCloseTo(
      (2000 * 2 + 12_000 * 0.1 + 6000 * 2.5 + 900 * 10) / MILLION,
      12,
    );
  });

  it("a GPT-6 prompt over 272K input tokens (cached included) bills the whole request higher", async () => {
    const { usage } = await usageThrough(
      "openai-chat",
      "gpt-6-luna",
      body({
        prompt_tokens: 300_000,
        completion_tokens: 1000,
        total_tokens: 301_000,
        prompt_tokens_details: { cached_tokens: 250_000 },
      }),
    );
    expect(usage).toMatchObject({ input: 50_000, cacheRead: 250_000, cacheWrite: 0 });
    // gpt-6-luna above 272K: input and cache prices twice ($0.20, $0.02), output 1.5 times ($0.75)
    expect(costOfUsage(usage, "gpt-6-luna")).toBeCloseTo(
      (50_000 * 0.2 + 250_000 * 0.02 + 1000 * 0.75) / MILLION,
      12,
    );
    // at 272K exactly, the short-context prices
    const at = { ...usage, input: 22_000, totalTokens: 273_000 };
    expect(costOfUsage(at, "gpt-6-luna")).toBeCloseTo(
      (22_000 * 0.1 + 250_000 * 0.01 + 1000 * 0.5) / MILLION,
      12,
    );
  });

  it("without a cache hit the whole prompt is input", async () => {
    const { usage } = await usageThrough(
      "openai-chat",
      "gpt-4.1",
      body({ prompt_tokens: 3000, completion_tokens: 200, total_tokens: 3200 }),
    );
    expect(usage).toMatchObject({ input: 3000, cacheRead: 0, output: 200 });
    expect(costOfUsage(usage, "gpt-4.1")).toBeCloseTo((3000 * 2 + 200 * 8) / MILLION, 12);
  });
});

describe("Gemini: cachedContentTokenCount inside promptTokenCount, thoughts apart, long context", () => {
  const body = (usageMetadata: Record<string, number>) =>
    sse([
      [
        undefined,
        {
          candidates: [
            {
              content: { role: "model", parts: [{ text: "ok" }] },
              finishReason: "STOP",
              index: 0,
            },
          ],
          usageMetadata,
          modelVersion: "gemini-2.5-pro",
        },
      ],
    ]);

  it("prices cached content at the cache rate and thoughts as output", async () => {
    const { usage, urls } = await usageThrough(
      "google-gemini",
      "gemini-2.5-pro",
      body({
        promptTokenCount: 50_000,
        cachedContentTokenCount: 40_000,
        candidatesTokenCount: 1000,
        thoughtsTokenCount: 3000,
        totalTokenCount: 54_000,
      }),
    );
    expect(urls[0]).toMatch(/gemini-2\.5-pro:streamGenerateContent/);
    expect(usage).toMatchObject({ input: 10_000, cacheRead: 40_000, cacheWrite: 0, output: 4000 });
    // gemini-2.5-pro up to 200K: $1.25 input, $0.125 cached, $10 output (thinking included)
    expect(costOfUsage(usage, "gemini-2.5-pro")).toBeCloseTo(
      (10_000 * 1.25 + 40_000 * 0.125 + 4000 * 10) / MILLION,
      12,
    );
  });

  it("a prompt over 200K tokens (cached content included) bills every token at the long tier", async () => {
    const { usage } = await usageThrough(
      "google-gemini",
      "gemini-2.5-pro",
      body({
        promptTokenCount: 250_000,
        cachedContentTokenCount: 200_000,
        candidatesTokenCount: 1000,
        thoughtsTokenCount: 500,
        totalTokenCount: 251_500,
      }),
    );
    expect(usage).toMatchObject({ input: 50_000, cacheRead: 200_000, output: 1500 });
    // above 200K: $2.50 input, $0.25 cached, $15 output
    expect(costOfUsage(usage, "gemini-2.5-pro")).toBeCloseTo(
      (50_000 * 2.5 + 200_000 * 0.25 + 1500 * 15) / MILLION,
      12,
    );
  });
});
