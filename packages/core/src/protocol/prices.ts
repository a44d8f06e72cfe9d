import { z } from "zod";

// The price table's shape: the file core ships (llm/prices.json), the file a deployment puts in
// its data directory (<data dir>/prices.json) and GET /api/settings/prices all use it
// (docs/cost.md). Prices are US dollars per million tokens.

const Price = z.number().finite().nonnegative().describe("US dollars per million tokens");

export const TokenPricesSchema = z
  .object({
    input: Price.describe("US dollars per million uncached input tokens"),
    output: Price.describe(
      "US dollars per million output tokens (reasoning/thinking tokens included)",
    ),
    cache_read: Price.optional().describe(
      "per million tokens read from the prompt cache; the input price when absent",
    ),
    cache_write: Price.optional().describe(
      "per million tokens written to the prompt cache (Anthropic's 5-minute write); the input price when absent",
    ),
  })
  .strict();

export const ModelPricesSchema = TokenPricesSchema.extend({
  long_context: TokenPricesSchema.extend({
    above_tokens: z
      .number()
      .int()
      .positive()
      .describe("the prompt size (input + cache reads + cache writes) above which this tier bills"),
  })
    .strict()
    .optional()
    .describe(
      "a request whose prompt is larger than `above_tokens` is billed at these prices, every token of it",
    ),
}).strict();

/** A model id as the table keys it: lower case, no provider prefix ("anthropic/", "models/"). */
const ModelIdSchema = z
  .string()
  .min(1)
  .refine((id) => id === id.trim().toLowerCase() && !id.includes("/"), {
    message: "a model id in lower case without a provider prefix",
  });

export const PriceSourceSchema = z
  .object({
    url: z.string().url().describe("the page the prices were read from"),
    taken: z
      .string()
      .regex(/^\d{4}-\d{2}(?:-\d{2})?$/, "YYYY-MM or YYYY-MM-DD")
      .describe("when the page was read (YYYY-MM or YYYY-MM-DD)"),
    note: z.string().optional(),
  })
  .strict();

const IsoDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD");

/** The shipped table: every field required. `null` = a model that has no price on purpose. */
export const PriceTableSchema = z
  .object({
    as_of: IsoDateSchema.describe("the date the table was last brought up to date (YYYY-MM-DD)"),
    sources: z
      .record(z.string().min(1), PriceSourceSchema)
      .describe("where the prices come from, by provider (or by the deployment's own name)"),
    models: z
      .record(ModelIdSchema, ModelPricesSchema.nullable())
      .describe(
        "model id (lower case, no provider prefix, no date suffix: ids are matched by their longest known prefix) → prices; null: no price for that model (a cost is never made up)",
      ),
  })
  .strict();

/** A deployment's override: the same shape; its date and sources may be left out. */
export const PriceOverrideSchema = PriceTableSchema.partial({ as_of: true, sources: true });

export const PricesResponseSchema = PriceTableSchema.extend({
  overridden: z
    .boolean()
    .describe("whether the data directory's prices.json changed or added entries"),
}).describe("Answer to GET /api/settings/prices: the price table in force.");

export type ModelPricesView = z.infer<typeof ModelPricesSchema>;
export type PriceTable = z.infer<typeof PriceTableSchema>;
export type PriceOverride = z.infer<typeof PriceOverrideSchema>;
export type PricesResponse = z.infer<typeof PricesResponseSchema>;
