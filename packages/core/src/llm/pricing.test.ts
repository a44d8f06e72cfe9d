import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { Usage } from "../model/llm-messages.js";
import { toUsage } from "./ai-sdk-adapter.js";
import { DEFAULT_MODELS } from "./env-config.js";
import { OFFLINE_MODEL_ID } from "./offline/answers.js";
import { costOfUsage, MODEL_PRICES, modelPrice, normalizeModelId } from "./pricing.js";

function usage(fields: Partial<Omit<Usage, "totalTokens">>): Usage {
  const u = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...fields };
  return { ...u, totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite };
}

const MILLION = 1_000_000;

describe("model ids", () => {
  it.each([
    ["claude-sonnet-4-5", "claude-sonnet-4-5"],
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"],
    ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"],
    ["anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"],
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"],
    ["global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"],
    ["claude-sonnet-4-5@20250929", "claude-sonnet-4-5"],
    ["claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"],
    ["claude-3-5-haiku-latest", "claude-3-5-haiku"],
    ["GPT-4o-2024-08-06", "gpt-4o"],
    ["openai/gpt-5-mini-2025-08-07", "gpt-5-mini"],
    ["models/gemini-2.5-flash", "gemini-2.5-flash"],
    ["gemini-2.0-flash-001", "gemini-2.0-flash"],
  ])("%s → %s", (id, normalized) => {
    expect(normalizeModelId(id)).toBe(normalized);
  });

  it.each([
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"],
    ["claude-opus-4-1@20250805", "claude-opus-4-1"],
    ["claude-opus-4-20250514", "claude-opus-4"],
    ["claude-opus-4-0", "claude-opus-4-0"],
    ["claude-3-7-sonnet-20250219", "claude-3-7-sonnet"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"],
    ["gpt-5-chat-latest", "gpt-5"],
    ["gpt-5-codex", "gpt-5"],
    ["o3-2025-04-16", "o3"],
    ["o4-mini-2025-04-16", "o4-mini"],
    ["o3-mini-2025-01-31", "o3-mini"],
    ["gemini-2.5-flash-lite-preview-09-2025", "gemini-2.5-flash-lite"],
    ["gemini-2.5-pro-preview-06-05", "gemini-2.5-pro"],
    ["google/gemini-2.0-flash-001", "gemini-2.0-flash"],
  ])("%s is priced as %s (its longest known prefix)", (id, key) => {
    expect(modelPrice(id)).toBe(MODEL_PRICES[key]);
  });

  it("keeps a dated snapshot that has its own price", () => {
    expect(modelPrice("gpt-4o-2024-05-13")).toEqual({ input: 5, output: 15 });
    expect(modelPrice("gpt-4o-2024-11-20")).toBe(MODEL_PRICES["gpt-4o"]);
  });

  it.each([
    // the offline model, local servers, unknown providers
    OFFLINE_MODEL_ID,
    "default",
    "llama3.1:8b",
    "qwen2.5-coder",
    "",
    // another version of a known family is not that family
    "claude-opus-4-9",
    "claude-sonnet-4-7-20260101",
    "gpt-5.1",
    "gpt-4",
    "chatgpt-4o-latest",
    "gemini-1.5-pro",
    // variants priced differently (other modalities, old previews)
    "gpt-4o-audio-preview-2024-12-17",
    "gpt-4o-mini-realtime-preview",
    "gpt-4o-mini-tts",
    "gemini-2.5-flash-image-preview",
    "gemini-2.5-flash-preview-05-20",
  ])("%j has no known price", (id) => {
    expect(modelPrice(id)).toBeUndefined();
    expect(costOfUsage(usage({ input: 1000, output: 1000 }), id)).toBeUndefined();
  });

  it("prices every default model of a paid provider", () => {
    for (const [provider, model] of Object.entries(DEFAULT_MODELS)) {
      const known = costOfUsage(usage({ input: 1 }), model) !== undefined;
      expect(known, `${provider}: ${model}`).toBe(
        provider !== "offline" && provider !== "openai-compatible",
      );
    }
  });
});

describe("costOfUsage", () => {
  it("prices input, output, cache reads and cache writes per million tokens", () => {
    // claude-sonnet-4-5: $3 input, $15 output, $0.30 cache hit, $3.75 5-minute cache write
    const cost = costOfUsage(
      usage({ input: 1000, output: 2000, cacheRead: 10_000, cacheWrite: 4000 }),
      "claude-sonnet-4-5-20250929",
    );
    expect(cost).toBeCloseTo((1000 * 3 + 2000 * 15 + 10_000 * 0.3 + 4000 * 3.75) / MILLION, 12);
    expect(costOfUsage(usage({ input: MILLION }), "claude-opus-4-5")).toBeCloseTo(5, 12);
    expect(costOfUsage(usage({ output: MILLION }), "claude-opus-4-1")).toBeCloseTo(75, 12);
    expect(costOfUsage(usage({ cacheRead: MILLION }), "claude-3-haiku")).toBeCloseTo(0.03, 12);
    expect(costOfUsage(usage({ cacheWrite: MILLION }), "claude-3-haiku")).toBeCloseTo(0.3, 12);
    expect(costOfUsage(usage({ output: MILLION }), "gpt-5-nano")).toBeCloseTo(0.4, 12);
    expect(costOfUsage(usage({ cacheRead: MILLION }), "gpt-4.1")).toBeCloseTo(0.5, 12);
    expect(costOfUsage(usage({ cacheRead: MILLION }), "gemini-2.5-flash")).toBeCloseTo(0.03, 12);
  });

  it("is 0 for a known model that used no tokens", () => {
    expect(costOfUsage(usage({}), "gpt-4.1")).toBe(0);
  });

  it("prices cache writes as input where the provider publishes no cache-write price", () => {
    expect(costOfUsage(usage({ cacheWrite: MILLION }), "gpt-4o")).toBeCloseTo(2.5, 12);
    expect(costOfUsage(usage({ cacheWrite: 100_000 }), "gemini-2.5-pro")).toBeCloseTo(0.125, 12);
    // and cache reads as input for a model without caching
    expect(costOfUsage(usage({ cacheRead: MILLION }), "gemini-2.0-flash-lite")).toBeCloseTo(
      0.075,
      12,
    );
  });

  it("bills the whole request at the long-context tier above 200K prompt tokens", () => {
    const short = usage({ input: 150_000, cacheRead: 50_000, output: 1000 });
    expect(costOfUsage(short, "gemini-2.5-pro")).toBeCloseTo(
      (150_000 * 1.25 + 50_000 * 0.125 + 1000 * 10) / MILLION,
      12,
    );
    const long = usage({ input: 150_000, cacheRead: 50_001, output: 1000 });
    expect(costOfUsage(long, "gemini-2.5-pro")).toBeCloseTo(
      (150_000 * 2.5 + 50_001 * 0.25 + 1000 * 15) / MILLION,
      12,
    );
    expect(costOfUsage(usage({ input: 250_000, output: 1000 }), "claude-sonnet-4-5")).toBeCloseTo(
      (250_000 * 6 + 1000 * 22.5) / MILLION,
      12,
    );
    // models without a long-context tier keep their price
    expect(costOfUsage(usage({ input: 250_000 }), "claude-opus-4-5")).toBeCloseTo(1.25, 12);
  });

  it("does not count cached tokens twice: the adapter's input excludes them", () => {
    // OpenAI reports 10,000 prompt tokens of which 8,000 were cached
    const fromProvider: LanguageModelV3Usage = {
      inputTokens: { total: 10_000, noCache: 2000, cacheRead: 8000, cacheWrite: undefined },
      outputTokens: { total: 500, text: 500, reasoning: undefined },
    };
    const u = toUsage(fromProvider);
    expect(u).toMatchObject({ input: 2000, cacheRead: 8000, cacheWrite: 0, output: 500 });
    expect(costOfUsage(u, "gpt-4.1")).toBeCloseTo((2000 * 2 + 8000 * 0.5 + 500 * 8) / MILLION, 12);
  });

  it("every price in the table is a finite, non-negative number", () => {
    for (const [id, price] of Object.entries(MODEL_PRICES)) {
      if (price === null) continue;
      const tiers = [price, ...(price.longContext ? [price.longContext.prices] : [])];
      for (const tier of tiers) {
        for (const value of [tier.input, tier.output, tier.cacheRead ?? 0, tier.cacheWrite ?? 0]) {
          expect(Number.isFinite(value) && value >= 0, id).toBe(true);
        }
      }
      expect(normalizeModelId(id), `${id} is a normalized key`).toBe(
        id === "gpt-4o-2024-05-13" ? "gpt-4o" : id,
      );
    }
  });
});
