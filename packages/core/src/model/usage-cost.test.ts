import { describe, expect, it } from "vitest";
import type { Usage } from "./llm-messages.js";
import type { ContextMessage } from "./message-types.js";
import { CostedUsageSchema, pricedUsage, sumCostedUsage, withUsageCost } from "./usage-cost.js";

function usage(fields: Partial<Omit<Usage, "totalTokens">>): Usage {
  const u = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...fields };
  return { ...u, totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite };
}

// a price list of its own, so the arithmetic is checked against figures written here
const priceOf = (u: Usage, model: string): number | undefined =>
  model === "priced"
    ? (u.input * 2 + u.output * 10 + u.cacheRead * 0.2 + u.cacheWrite * 2.5) / 1_000_000
    : undefined;

describe("pricedUsage", () => {
  it("adds the price of a priced model, counting cache reads and writes at their own rates", () => {
    const u = usage({ input: 1000, output: 500, cacheRead: 10_000, cacheWrite: 2000 });
    const priced = pricedUsage(u, "priced", priceOf);
    expect(priced).toEqual({
      ...u,
      cost_usd: (2000 + 5000 + 2000 + 5000) / 1_000_000,
      cost_complete: true,
    });
    expect(CostedUsageSchema.parse(priced)).toEqual(priced);
  });

  it("says null, never 0, for a model without a price", () => {
    const priced = pricedUsage(usage({ input: 1000, output: 10 }), "someone-elses-model", priceOf);
    expect(priced.cost_usd).toBeNull();
    expect(priced.cost_complete).toBe(false);
  });

  it("says null when the model is not known at all", () => {
    expect(pricedUsage(usage({ input: 5 }), undefined, priceOf).cost_usd).toBeNull();
  });
});

describe("sumCostedUsage", () => {
  const a = pricedUsage(usage({ input: 1000, cacheRead: 4000 }), "priced", priceOf);
  const b = pricedUsage(usage({ output: 300, cacheWrite: 100 }), "priced", priceOf);
  const unpriced = pricedUsage(usage({ input: 7000, output: 70 }), "local-llama", priceOf);

  it("sums tokens and dollars of priced parts; the sum is complete", () => {
    const sum = sumCostedUsage([a, b]);
    expect(sum).toEqual({
      input: 1000,
      output: 300,
      cacheRead: 4000,
      cacheWrite: 100,
      totalTokens: 5400,
      cost_usd: (2000 + 800 + 3000 + 250) / 1_000_000,
      cost_complete: true,
    });
  });

  it("is null when no part has a price", () => {
    const sum = sumCostedUsage([unpriced, unpriced]);
    expect(sum.totalTokens).toBe(2 * 7070);
    expect(sum.cost_usd).toBeNull();
    expect(sum.cost_complete).toBe(false);
  });

  it("mixed: the priced part's dollars, marked incomplete; the unpriced tokens are not priced", () => {
    const sum = sumCostedUsage([a, unpriced, b]);
    expect(sum.totalTokens).toBe(5400 + 7070);
    expect(sum.cost_usd).toBeCloseTo((2000 + 800 + 3000 + 250) / 1_000_000, 15);
    expect(sum.cost_complete).toBe(false);
  });

  it("nothing spent costs nothing: an empty sum is $0 and complete", () => {
    expect(sumCostedUsage([])).toEqual({
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost_usd: 0,
      cost_complete: true,
    });
  });

  it("a sum of sums keeps what its parts knew", () => {
    const inner = sumCostedUsage([a, unpriced]);
    const outer = sumCostedUsage([inner, b]);
    expect(outer.cost_complete).toBe(false);
    expect(outer.cost_usd).toBeCloseTo((a.cost_usd ?? 0) + (b.cost_usd ?? 0), 15);
  });
});

describe("withUsageCost (rows stored before the cost sat beside the tokens)", () => {
  const u = usage({ input: 1000 });
  type Meta = NonNullable<ContextMessage["meta"]>;
  const fill = (meta: Meta) => withUsageCost(meta, priceOf);
  it("takes the cost stored then", () => {
    expect(fill({ model: "x", usage: u, cost_usd: 0.5 }).usage?.cost_usd).toBe(0.5);
  });
  it("else prices the model now", () => {
    expect(fill({ model: "priced", usage: u }).usage?.cost_usd).toBeCloseTo(0.002, 15);
  });
  it("else says null", () => {
    const filled = fill({ model: "nobody", usage: u });
    expect(filled.usage?.cost_usd).toBeNull();
    expect(filled.usage?.cost_complete).toBe(false);
  });
  it("leaves a row that has its cost, or no usage, as it is", () => {
    const costed = { usage: { ...u, cost_usd: null, cost_complete: false } };
    expect(withUsageCost(costed, priceOf)).toBe(costed);
    const none = { model: "priced" };
    expect(withUsageCost(none, priceOf)).toBe(none);
  });
});
