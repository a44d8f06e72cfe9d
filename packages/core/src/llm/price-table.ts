import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ModelPricesView,
  type PriceOverride,
  PriceOverrideSchema,
  type PricesResponse,
  type PriceTable,
  PriceTableSchema,
} from "../protocol/prices.js";
import shipped from "./prices.json" with { type: "json" };

// The price table as data: prices.json beside this file (shipped in core's dist), with the date
// it was taken and the page each provider's prices come from, and an override a private
// deployment puts in its data directory (<data dir>/prices.json, the same shape). Both are
// parsed here with zod; pricing.ts prices usage with whatever table is in force.
//
// A bad override is never read as "no price" or as zero: loadPriceOverride throws a
// PriceFileError naming the file and the field, and the app refuses to start with it.

export type ModelPriceEntry = ModelPricesView;

/** The table in force, as GET /api/settings/prices shows it. */
export type EffectivePrices = PricesResponse;

/** A price file that cannot be used: the file and the first bad field, in the message. */
export class PriceFileError extends Error {
  override readonly name = "PriceFileError";
  constructor(
    readonly file: string,
    /** dotted path of the bad field ("models.gpt-5.input"); "" for the whole file */
    readonly field: string,
    reason: string,
  ) {
    super(`${file}: ${field === "" ? "" : `${field}: `}${reason}`);
  }
}

/** The price table shipped with this version (prices.json beside this module). */
export const SHIPPED_PRICES: PriceTable = PriceTableSchema.parse(shipped);

/** The override's path in a data directory. */
export function priceFilePath(dataDir: string): string {
  return join(dataDir, "prices.json");
}

/** Parses a price file's text; throws PriceFileError naming `file` and the bad field. */
export function parsePriceOverride(text: string, file: string): PriceOverride {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PriceFileError(file, "", `not valid JSON (${reason})`);
  }
  const parsed = PriceOverrideSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = (issue?.path ?? []).map(String).join(".");
  // a bad model id: zod's "Invalid key in record" carries the key's own issue inside
  const inner = issue?.code === "invalid_key" ? issue.issues[0]?.message : undefined;
  throw new PriceFileError(file, field, inner ?? issue?.message ?? "invalid");
}

/**
 * The data directory's prices.json, or undefined when there is none. A file that is there but
 * cannot be read or parsed throws PriceFileError: the caller refuses to start.
 */
export function loadPriceOverride(dataDir: string): PriceOverride | undefined {
  const file = priceFilePath(dataDir);
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PriceFileError(file, "", `cannot be read (${reason})`);
  }
  return parsePriceOverride(text, file);
}

/**
 * The shipped table with an override's entries over it: an entry replaces the model's whole
 * entry (or adds it; `null` takes its price away), its sources are added by name over the
 * shipped ones, and its date, when it has one, is the table's.
 */
export function mergePrices(
  base: PriceTable,
  override: PriceOverride | undefined,
): EffectivePrices {
  if (override === undefined) return { ...base, overridden: false };
  return {
    as_of: override.as_of ?? base.as_of,
    sources: { ...base.sources, ...override.sources },
    models: { ...base.models, ...override.models },
    overridden: true,
  };
}

// The table in force is kept on globalThis: Next bundles this module into more than one chunk
// (instrumentation, route handlers), and every copy must price with the same table.
const KEY = Symbol.for("arbor.core.prices");
type Holder = { [KEY]?: EffectivePrices };
const holder = globalThis as Holder;

/** The table every cost is computed with now. */
export function effectivePrices(): EffectivePrices {
  holder[KEY] ??= mergePrices(SHIPPED_PRICES, undefined);
  return holder[KEY];
}

/** Puts the shipped table with `override` over it in force (undefined: the shipped table). */
export function usePriceOverride(override: PriceOverride | undefined): EffectivePrices {
  holder[KEY] = mergePrices(SHIPPED_PRICES, override);
  return holder[KEY];
}
