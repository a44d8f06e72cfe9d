import type { Usage } from "../model/llm-messages.js";

// What a model's tokens cost, in US dollars, from a table of list prices.
//
// The prices are the providers' public LIST prices (standard / pay-as-you-go tier, no batch,
// flex or priority discounts, no negotiated rates) in USD per million tokens, as published on
// the Anthropic, OpenAI and Google Gemini API pricing pages, taken in November 2025. Cloud
// resellers (Bedrock, Vertex, Azure) are priced as the maker's own API (their regional
// endpoints may add a premium). Audio/image/video input rates, Gemini's cache storage per hour
// and tool fees (web search, code execution) are not modelled. Update the table, and this date,
// when the providers change their prices.
//
// Usage counts (model/llm-messages.ts, ai-sdk-adapter.ts toUsage): `input` EXCLUDES cached
// tokens on every protocol (it is the AI SDK's `inputTokens.noCache`), so input, cacheRead and
// cacheWrite are disjoint and each is priced once; `output` includes reasoning/thinking tokens,
// which every provider bills as output.
//
// Cache writes: Anthropic's price is its 5-minute cache write (1.25 × input; Arbor sets
// `cacheControl: {type: "ephemeral"}` without a 1-hour TTL). OpenAI and Gemini publish no
// cache-write price (OpenAI caches implicitly; Gemini bills creating a cache as input), so
// cache writes are priced as input there. A model without a cache-read price (gemini-2.0-flash-
// lite has no caching) has cache reads priced as input.

/** USD per million tokens. */
export interface TokenPrices {
  input: number;
  output: number;
  /** cache hits; defaults to `input` */
  cacheRead?: number;
  /** cache writes; defaults to `input` */
  cacheWrite?: number;
}

export interface ModelPrice extends TokenPrices {
  /**
   * Long-context tier: when a request's prompt (input + cacheRead + cacheWrite) is larger than
   * `aboveTokens`, the whole request is billed at `prices` (Gemini 2.5 Pro, Claude Sonnet 4/4.5
   * with the 1M context window).
   */
  longContext?: { aboveTokens: number; prices: TokenPrices };
}

/** Anthropic publishes all four prices (cache writes: the 5-minute ones). */
const anthropic = (
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  longContext?: ModelPrice["longContext"],
): ModelPrice => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  ...(longContext === undefined ? {} : { longContext }),
});

/** Sonnet 4 / 4.5 with the 1M-token context window: prompts over 200K tokens cost more. */
const SONNET_LONG_CONTEXT: ModelPrice["longContext"] = {
  aboveTokens: 200_000,
  prices: { input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 },
};

/** A variant of a priced model (another modality, an old preview) that must not get its price. */
const UNPRICED = null;

/**
 * Model id (normalized: lower case, no provider prefix, no date or version suffix) → price.
 * `null` marks a variant of a priced model that must NOT inherit its price (a different
 * modality or tier Arbor does not price); its id then has no known cost.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice | null>> = {
  // --- Anthropic (platform.claude.com/docs/en/about-claude/pricing): input, output, cache hit, 5m write
  "claude-opus-4-5": anthropic(5, 25, 0.5, 6.25),
  "claude-opus-4-1": anthropic(15, 75, 1.5, 18.75),
  "claude-opus-4-0": anthropic(15, 75, 1.5, 18.75),
  "claude-opus-4": anthropic(15, 75, 1.5, 18.75),
  "claude-sonnet-4-5": anthropic(3, 15, 0.3, 3.75, SONNET_LONG_CONTEXT),
  "claude-sonnet-4-0": anthropic(3, 15, 0.3, 3.75, SONNET_LONG_CONTEXT),
  "claude-sonnet-4": anthropic(3, 15, 0.3, 3.75, SONNET_LONG_CONTEXT),
  "claude-3-7-sonnet": anthropic(3, 15, 0.3, 3.75),
  "claude-3-5-sonnet": anthropic(3, 15, 0.3, 3.75),
  "claude-haiku-4-5": anthropic(1, 5, 0.1, 1.25),
  "claude-3-5-haiku": anthropic(0.8, 4, 0.08, 1),
  "claude-3-haiku": anthropic(0.25, 1.25, 0.03, 0.3),
  "claude-3-opus": anthropic(15, 75, 1.5, 18.75),

  // --- OpenAI (https://openai.com/api/pricing), standard tier; "cached input" = cacheRead
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "gpt-5-pro": { input: 15, output: 120 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  // the first gpt-4o snapshot kept its launch price
  "gpt-4o-2024-05-13": { input: 5, output: 15 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  "gpt-4o-audio": UNPRICED,
  "gpt-4o-realtime": UNPRICED,
  "gpt-4o-search": UNPRICED,
  "gpt-4o-transcribe": UNPRICED,
  "gpt-4o-mini-audio": UNPRICED,
  "gpt-4o-mini-realtime": UNPRICED,
  "gpt-4o-mini-search": UNPRICED,
  "gpt-4o-mini-transcribe": UNPRICED,
  "gpt-4o-mini-tts": UNPRICED,
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  "o3-pro": { input: 20, output: 80 },
  "o3-mini": { input: 1.1, output: 4.4, cacheRead: 0.55 },
  "o3-deep-research": UNPRICED,
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
  "o4-mini-deep-research": UNPRICED,

  // --- Google Gemini API (https://ai.google.dev/gemini-api/docs/pricing), paid tier, text input
  "gemini-2.5-pro": {
    input: 1.25,
    output: 10,
    cacheRead: 0.125,
    longContext: { aboveTokens: 200_000, prices: { input: 2.5, output: 15, cacheRead: 0.25 } },
  },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cacheRead: 0.03 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cacheRead: 0.01 },
  "gemini-2.0-flash": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "gemini-2.0-flash-lite": { input: 0.075, output: 0.3 },
  // previews that were priced differently, and other modalities
  "gemini-2.5-flash-preview-04-17": UNPRICED,
  "gemini-2.5-flash-preview-05-20": UNPRICED,
  "gemini-2.5-flash-image": UNPRICED,
  "gemini-2.5-flash-preview-tts": UNPRICED,
  "gemini-2.5-pro-preview-tts": UNPRICED,
  "gemini-2.5-flash-native-audio": UNPRICED,
  "gemini-2.5-flash-live": UNPRICED,
  "gemini-2.0-flash-exp": UNPRICED,
  "gemini-2.0-flash-thinking": UNPRICED,
  "gemini-2.0-flash-preview-image-generation": UNPRICED,
  "gemini-2.0-flash-live": UNPRICED,
};

/** Bedrock cross-region inference profiles put a geography before the vendor: us.anthropic.… */
const BEDROCK_PREFIX = /^(?:(?:us|eu|apac|au|ca|jp|us-gov|global)\.)?(?:anthropic|openai|google)\./;

/** Date and version suffixes, stripped from the end one after another. */
const SUFFIXES = [
  /-\d{8}$/, // Anthropic: -20250929
  /-\d{4}-\d{2}-\d{2}$/, // OpenAI: -2025-08-07
  /-v\d+(?::[\w-]+)*$/, // Bedrock: -v1:0, -v2:0:200k
  /-\d{3}$/, // Gemini: -001
  /-latest$/, // aliases: claude-3-5-sonnet-latest
];

/**
 * The id with provider prefixes ("anthropic/", "models/", Bedrock's "us.anthropic."), Vertex's
 * "@version" and date/version suffixes removed, in lower case. Claude ids written with dots
 * (OpenRouter's "claude-sonnet-4.5") get Anthropic's hyphens.
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf("/") + 1);
  id = id.replace(BEDROCK_PREFIX, "");
  const at = id.indexOf("@");
  if (at >= 0) id = id.slice(0, at);
  let stripped = true;
  while (stripped) {
    stripped = false;
    for (const suffix of SUFFIXES) {
      const next = id.replace(suffix, "");
      if (next !== id && next !== "") {
        id = next;
        stripped = true;
      }
    }
  }
  if (id.startsWith("claude-")) id = id.replace(/(\d)\.(\d)/g, "$1-$2");
  return id;
}

/** The table entry for an exact key, or undefined when there is none. */
function entry(key: string): ModelPrice | null | undefined {
  return Object.hasOwn(MODEL_PRICES, key) ? MODEL_PRICES[key] : undefined;
}

/**
 * The price of a model id, or undefined when it is not known. An id matches its longest known
 * prefix that ends at a "-" (after normalizeModelId), so "gpt-4o-mini-2024-07-18" is gpt-4o-mini
 * and "gemini-2.5-flash-preview-09-2025" is gemini-2.5-flash; but a prefix followed by a number
 * is another version ("claude-opus-4-6" is not claude-opus-4), and a `null` entry stops the
 * search (a priced model's audio/realtime variant is not priced as the model).
 */
export function modelPrice(model: string): ModelPrice | undefined {
  const lower = model.trim().toLowerCase();
  // a dated snapshot with its own price (gpt-4o-2024-05-13) is listed with its date
  const dated = entry(lower.slice(lower.lastIndexOf("/") + 1).replace(BEDROCK_PREFIX, ""));
  if (dated !== undefined) return dated ?? undefined;
  const id = normalizeModelId(model);
  if (id === "") return undefined;
  let end = id.length;
  while (end > 0) {
    const found = entry(id.slice(0, end));
    if (found !== undefined) {
      const rest = id.slice(end);
      if (found === null) return undefined;
      if (!/^-\d/.test(rest)) return found;
    }
    end = id.lastIndexOf("-", end - 1);
  }
  return undefined;
}

/**
 * USD cost of one request's usage on `model` at list prices; undefined when the model's prices
 * are not known (the offline model, a local OpenAI-compatible server, a model newer than the
 * table). `usage.input` excludes cached tokens (see the top of this file).
 */
export function costOfUsage(usage: Usage, model: string): number | undefined {
  const price = modelPrice(model);
  if (price === undefined) return undefined;
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  const long = price.longContext;
  const prices: TokenPrices = long !== undefined && prompt > long.aboveTokens ? long.prices : price;
  const perMillion =
    usage.input * prices.input +
    usage.output * prices.output +
    usage.cacheRead * (prices.cacheRead ?? prices.input) +
    usage.cacheWrite * (prices.cacheWrite ?? prices.input);
  return perMillion / 1_000_000;
}
