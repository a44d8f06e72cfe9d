import type { Usage } from "../model/llm-messages.js";
import { effectivePrices, type ModelPriceEntry, SHIPPED_PRICES } from "./price-table.js";

// What a model's tokens cost, in US dollars, from a table of list prices.
//
// The table is data: prices.json beside this file (price-table.ts parses it), with its date
// (`as_of`) and the page each provider's prices come from (`sources`), and a deployment may put
// its own prices.json in the data directory over it (docs/cost.md). The prices are the providers'
// public LIST prices (standard / pay-as-you-go tier, no batch, flex or priority discounts, no
// negotiated rates) in USD per million tokens. Cloud resellers (Bedrock, Vertex, Azure) are
// priced as the maker's own API (their regional endpoints may add a premium). Audio/image/video
// input rates, Gemini's cache storage per hour and tool fees (web search, code execution) are
// not modelled.
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
   * with the 1M context window, Claude Haiku 5.5 above 100K).
   */
  longContext?: { aboveTokens: number; prices: TokenPrices };
}

/** An entry of the JSON table as the functions below read it. */
function toModelPrice(entry: ModelPriceEntry): ModelPrice {
  const tier = (t: Omit<ModelPriceEntry, "long_context">): TokenPrices => ({
    input: t.input,
    output: t.output,
    ...(t.cache_read === undefined ? {} : { cacheRead: t.cache_read }),
    ...(t.cache_write === undefined ? {} : { cacheWrite: t.cache_write }),
  });
  const long = entry.long_context;
  return {
    ...tier(entry),
    ...(long === undefined
      ? {}
      : { longContext: { aboveTokens: long.above_tokens, prices: tier(long) } }),
  };
}

function toModelPrices(
  models: Readonly<Record<string, ModelPriceEntry | null>>,
): Record<string, ModelPrice | null> {
  return Object.fromEntries(
    Object.entries(models).map(([id, entry]) => [id, entry === null ? null : toModelPrice(entry)]),
  );
}

/**
 * The SHIPPED table (prices.json): model id (normalized: lower case, no provider prefix, no date
 * or version suffix) → price. `null` marks a variant of a priced model that must NOT inherit its
 * price (a different modality or tier Arbor does not price); its id then has no known cost. The
 * table in force may differ: a deployment's data directory can override it (price-table.ts).
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice | null>> = toModelPrices(
  SHIPPED_PRICES.models,
);

// the converted table in force, rebuilt when the table in force changes (an override at start)
let converted: { from: object; prices: Readonly<Record<string, ModelPrice | null>> } | undefined;
function pricesInForce(): Readonly<Record<string, ModelPrice | null>> {
  const table = effectivePrices();
  if (converted?.from !== table) {
    converted = {
      from: table,
      prices: table.overridden ? toModelPrices(table.models) : MODEL_PRICES,
    };
  }
  return converted.prices;
}

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
function entry(prices: Readonly<Record<string, ModelPrice | null>>, key: string) {
  return Object.hasOwn(prices, key) ? prices[key] : undefined;
}

/**
 * The price of a model id, or undefined when it is not known. An id matches its longest known
 * prefix that ends at a "-" (after normalizeModelId), so "gpt-4o-mini-2024-07-18" is gpt-4o-mini
 * and "gemini-2.5-flash-preview-09-2025" is gemini-2.5-flash; but a prefix followed by a number
 * is another version ("claude-opus-4-6" is not claude-opus-4), and a `null` entry stops the
 * search (a priced model's audio/realtime variant is not priced as the model).
 */
export function modelPrice(model: string): ModelPrice | undefined {
  const prices = pricesInForce();
  const lower = model.trim().toLowerCase();
  // a dated snapshot with its own price (gpt-4o-2024-05-13) is listed with its date
  const dated = entry(prices, lower.slice(lower.lastIndexOf("/") + 1).replace(BEDROCK_PREFIX, ""));
  if (dated !== undefined) return dated ?? undefined;
  const id = normalizeModelId(model);
  if (id === "") return undefined;
  let end = id.length;
  while (end > 0) {
    const found = entry(prices, id.slice(0, end));
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
