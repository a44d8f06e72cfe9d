import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Usage } from "../model/llm-messages.js";
import { PriceTableSchema } from "../protocol/prices.js";
import {
  effectivePrices,
  loadPriceOverride,
  mergePrices,
  PriceFileError,
  priceFilePath,
  SHIPPED_PRICES,
  usePriceOverride,
} from "./price-table.js";
import { costOfUsage, MODEL_PRICES, modelPrice } from "./pricing.js";

const usage = (input: number, output: number): Usage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
});

function dataDirWith(text: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "arbor-prices-"));
  if (text !== undefined) writeFileSync(priceFilePath(dir), text);
  return dir;
}

/** The PriceFileError `load` throws (fails the test when it throws none or another error). */
function failure(load: () => unknown): PriceFileError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(PriceFileError);
    return error as PriceFileError;
  }
  throw new Error("no PriceFileError was thrown");
}

afterEach(() => {
  usePriceOverride(undefined);
});

describe("the shipped table (llm/prices.json)", () => {
  it("is dated and names a source page, with the date it was taken, for every provider", () => {
    const raw: unknown = JSON.parse(
      readFileSync(join(dirname(fileURLToPath(import.meta.url)), "prices.json"), "utf8"),
    );
    expect(PriceTableSchema.safeParse(raw).success).toBe(true);
    expect(SHIPPED_PRICES.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(SHIPPED_PRICES.sources).sort()).toEqual([
      "anthropic",
      "google",
      "openai",
      "openai-models",
    ]);
    for (const source of Object.values(SHIPPED_PRICES.sources)) {
      expect(source.url).toMatch(/^https:\/\//);
      expect(source.taken).toMatch(/^\d{4}-\d{2}/);
    }
  });

  it("is what the functions price with when no override is in force", () => {
    expect(effectivePrices()).toMatchObject({ overridden: false, as_of: SHIPPED_PRICES.as_of });
    expect(modelPrice("claude-opus-5-5")).toBe(MODEL_PRICES["claude-opus-5-5"]);
    expect(modelPrice("claude-opus-5-5")).toEqual({
      input: 4,
      output: 20,
      cacheRead: 0.2,
      cacheWrite: 5,
    });
  });
});

describe("a deployment's prices.json", () => {
  it("is absent: the shipped table", () => {
    expect(loadPriceOverride(dataDirWith(undefined))).toBeUndefined();
  });

  it("changes a model's price, adds a model, and takes a price away with null", () => {
    const override = loadPriceOverride(
      dataDirWith(
        JSON.stringify({
          as_of: "2026-11-01",
          sources: { contract: { url: "https://example.com/our-contract", taken: "2026-11" } },
          models: {
            "claude-sonnet-4-5": { input: 2, output: 10 },
            "our-llama": { input: 0.2, output: 0.4, cache_read: 0.02 },
            "gpt-4.1": null,
          },
        }),
      ),
    );
    const prices = usePriceOverride(override);
    expect(prices.overridden).toBe(true);
    expect(prices.as_of).toBe("2026-11-01");
    expect(Object.keys(prices.sources).sort()).toEqual([
      "anthropic",
      "contract",
      "google",
      "openai",
      "openai-models",
    ]);
    // the entry replaces the shipped one whole: no cache prices left over, no long-context tier
    expect(costOfUsage(usage(250_000, 1000), "claude-sonnet-4-5-20250929")).toBeCloseTo(
      (250_000 * 2 + 1000 * 10) / 1e6,
      12,
    );
    expect(costOfUsage(usage(1e6, 0), "our-llama")).toBeCloseTo(0.2, 12);
    expect(costOfUsage(usage(1000, 1000), "gpt-4.1")).toBeUndefined();
    // a model the file does not name keeps its shipped price
    expect(modelPrice("claude-haiku-4-5")).toEqual(MODEL_PRICES["claude-haiku-4-5"]);
    // and back to the shipped table
    usePriceOverride(undefined);
    expect(costOfUsage(usage(1000, 0), "gpt-4.1")).toBeCloseTo(0.002, 12);
    expect(modelPrice("our-llama")).toBeUndefined();
  });

  it("may leave out the date and the sources: the shipped ones stand", () => {
    const merged = mergePrices(SHIPPED_PRICES, {
      models: { "our-model": { input: 1, output: 2 } },
    });
    expect(merged.as_of).toBe(SHIPPED_PRICES.as_of);
    expect(merged.sources).toEqual(SHIPPED_PRICES.sources);
    expect(merged.models["our-model"]).toEqual({ input: 1, output: 2 });
  });

  it.each([
    ["not JSON", "{ models: ", "", /not valid JSON/],
    [
      "a negative price",
      '{"models":{"gpt-5":{"input":-1,"output":10}}}',
      "models.gpt-5.input",
      />=0|≥|0/,
    ],
    [
      "a price that is text",
      '{"models":{"gpt-5":{"input":"1.25","output":10}}}',
      "models.gpt-5.input",
      /number/,
    ],
    ["a missing output price", '{"models":{"gpt-5":{"input":1}}}', "models.gpt-5.output", /number/],
    [
      "a misspelt field",
      '{"models":{"gpt-5":{"input":1,"output":2,"cached":0.1}}}',
      "models.gpt-5",
      /cached/,
    ],
    [
      "a provider prefix in a model id",
      '{"models":{"openai/gpt-5":{"input":1,"output":2}}}',
      "models.openai/gpt-5",
      /provider prefix/,
    ],
    ["no models", '{"as_of":"2026-11-01"}', "models", /expected record|object/],
    ["a date that is not a date", '{"as_of":"last week","models":{}}', "as_of", /YYYY-MM-DD/],
    [
      "a long-context tier without its threshold",
      '{"models":{"m":{"input":1,"output":2,"long_context":{"input":2,"output":4}}}}',
      "models.m.long_context.above_tokens",
      /number/,
    ],
  ])("%s is an error naming the file and the field", (_, text, field, reason) => {
    const dir = dataDirWith(text);
    const error = failure(() => loadPriceOverride(dir));
    expect(error.file).toBe(join(dir, "prices.json"));
    expect(error.field).toBe(field);
    expect(error.message).toContain(join(dir, "prices.json"));
    if (field !== "") expect(error.message).toContain(`${field}: `);
    expect(error.message).toMatch(reason);
  });

  it("that cannot be read (a directory) is an error too, never the shipped table", () => {
    const dir = dataDirWith(undefined);
    mkdirSync(priceFilePath(dir));
    expect(failure(() => loadPriceOverride(dir)).message).toMatch(/cannot be read/);
  });
});
