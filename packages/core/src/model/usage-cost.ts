import { z } from "zod";
import { emptyUsage, type Usage, UsageSchema } from "./llm-messages.js";

// What usage cost, as every answer of the API shows it (issue #28, decision 0062). The prices
// live in llm/pricing.ts (a layer above this one): callers hand its costOfUsage in as `PriceOf`.
//
// The rule for a person never to be shown a made-up number:
// - one model's usage: `cost_usd` is its price at list prices, or null when the model has no
//   price (never 0);
// - a sum: `cost_usd` adds the parts that have a price; null when no part has one. Whenever a
//   part has no price, `cost_complete` is false: the figure is what the priced part cost, not the
//   whole. An empty sum (nothing spent) is $0, complete.

/** USD of `usage` on `model` at list prices, or undefined when the model has no price. */
export type PriceOf = (usage: Usage, model: string) => number | undefined;

export const UsageCostFields = {
  cost_usd: z
    .number()
    .nonnegative()
    .nullable()
    .describe(
      "US dollars at list prices; null when no model of this usage has a price (never 0 for an unknown model)",
    ),
  cost_complete: z
    .boolean()
    .describe(
      "false when some of these tokens come from a model without a price: `cost_usd` is then what the priced part cost, not the whole",
    ),
};

/** Token usage with its cost. */
export const CostedUsageSchema = UsageSchema.extend(UsageCostFields);
export type CostedUsage = z.infer<typeof CostedUsageSchema>;

/** One model's usage with its cost; `model` undefined (not known) has no price. */
export function pricedUsage(
  usage: Usage,
  model: string | undefined,
  priceOf: PriceOf,
): CostedUsage {
  const cost = model === undefined ? undefined : priceOf(usage, model);
  return withCost(usage, cost ?? null);
}

/** `usage` with a cost already known (`null`: no price). */
export function withCost(usage: Usage, cost: number | null): CostedUsage {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    totalTokens: usage.totalTokens,
    cost_usd: cost,
    cost_complete: cost !== null,
  };
}

/** The sum of costed parts, by the rule at the top of this file. */
export function sumCostedUsage(parts: Iterable<CostedUsage>): CostedUsage {
  const sum: CostedUsage = { ...emptyUsage(), cost_usd: 0, cost_complete: true };
  let anyPriced = false;
  let anyPart = false;
  for (const part of parts) {
    anyPart = true;
    sum.input += part.input;
    sum.output += part.output;
    sum.cacheRead += part.cacheRead;
    sum.cacheWrite += part.cacheWrite;
    sum.totalTokens += part.totalTokens;
    if (part.cost_usd !== null) {
      anyPriced = true;
      sum.cost_usd = (sum.cost_usd ?? 0) + part.cost_usd;
    }
    if (!part.cost_complete) sum.cost_complete = false;
  }
  if (anyPart && !anyPriced) sum.cost_usd = null;
  return sum;
}

/** The token counts alone (a stored message's usage may carry its cost beside them). */
export function plainUsage(usage: Usage): Usage {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    totalTokens: usage.totalTokens,
  };
}

/**
 * A stored message's meta with its usage's cost filled in, for rows written before the cost sat
 * beside the tokens: the cost stored then (`meta.cost_usd`), else its model's price now, else null.
 */
export function withUsageCost<
  M extends {
    model?: string | undefined;
    usage?: (Usage & { cost_usd?: number | null; cost_complete?: boolean }) | undefined;
    cost_usd?: number | undefined;
  },
>(meta: M, priceOf: PriceOf): M {
  const usage = meta.usage;
  if (usage === undefined || usage.cost_usd !== undefined) return meta;
  const cost = meta.cost_usd ?? (meta.model === undefined ? undefined : priceOf(usage, meta.model));
  return { ...meta, usage: withCost(usage, cost ?? null) };
}
