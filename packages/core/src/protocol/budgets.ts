import { z } from "zod";
import { strictRequest } from "./strict.js";

// Per-person monthly token budgets on the wire (issue #25): GET/PUT /api/people/{id}/budget and
// GET /api/me/usage. A budget bounds the model requests of the runs a person starts; a request
// that would pass it is refused before it is sent (docs/agent-authorization.md).

/** The largest budget accepted: well inside a safe integer and PostgreSQL's BIGINT. */
export const MAX_MONTHLY_TOKENS = 1_000_000_000_000;

export const BudgetResponseSchema = z
  .object({
    person_id: z.string(),
    monthly_tokens: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .describe("tokens per calendar month (UTC); null: no limit"),
    used_tokens: z
      .number()
      .int()
      .nonnegative()
      .describe("tokens the person's runs used this month (every model response they caused)"),
    month: z.string().describe("the calendar month counted, UTC, `YYYY-MM`"),
  })
  .describe("A person's monthly token budget and what they used of it this month.");
export type BudgetResponse = z.infer<typeof BudgetResponseSchema>;

export const PutBudgetRequestSchema = strictRequest(
  z
    .object({
      monthly_tokens: z
        .number()
        .int()
        .nonnegative()
        .max(MAX_MONTHLY_TOKENS)
        .nullable()
        .describe(
          `tokens per calendar month (UTC), at most ${MAX_MONTHLY_TOKENS}; null lifts the limit; 0 stops every request`,
        ),
    })
    .strict()
    .describe("Body of PUT /api/people/{id}/budget."),
);
export type PutBudgetRequest = z.infer<typeof PutBudgetRequestSchema>;
