import { z } from "zod";
import { MergeConflictSchema, MergeWarningSchema } from "../model/merge-types.js";
import type { SessionSummary } from "../model/session-records.js";
import { ContextStateSchema } from "../model/states.js";
import { CostedUsageSchema } from "../model/usage-cost.js";

// JSON bodies the server answers with (streams are described by events.ts). The merge shapes are
// the Context Manager's own (model/merge-types.ts), re-used so they cannot drift.

export const CreateSessionResponseSchema = z
  .object({
    session_id: z.string(),
    branch_id: z.string().describe("the session's first branch, which is active"),
  })
  .describe("201 answer to POST /api/sessions.");
export type CreateSessionResponse = z.infer<typeof CreateSessionResponseSchema>;

export const ImportSessionResponseSchema = z
  .object({
    session_id: z.string(),
    branch_id: z.string().describe("the new session's main branch, which holds the messages"),
    message_count: z
      .number()
      .int()
      .describe(
        "messages stored: the file's, less queued ones, plus a cancelled result for each tool call that had none",
      ),
  })
  .describe("201 answer to POST /api/sessions/import.");
export type ImportSessionResponse = z.infer<typeof ImportSessionResponseSchema>;

export const SessionSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    state: ContextStateSchema.describe("the fine-grained state, e.g. {type: 'Idle'}"),
    updated_at: z.string().describe("ISO-8601; the list is sorted on it, newest first"),
    message_count: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "messages stored in the session, on all its branches; a fold's steps are not counted",
      ),
    usage: CostedUsageSchema.describe(
      "tokens, summed over the session's assistant messages and the child loops of its sub-agent calls (their tool_result rows' meta.usage), with their cost: `cost_usd` sums the parts whose model has a price (null when none has), `cost_complete` is false when some part has none",
    ),
  })
  .describe("One entry of GET /api/sessions (an array, newest first).");
// Compile-time proof that the wire shape and the store's SessionSummary agree, both ways.
const summaryMatches: [
  z.infer<typeof SessionSummarySchema> extends SessionSummary ? true : false,
  SessionSummary extends z.infer<typeof SessionSummarySchema> ? true : false,
] = [true, true];
void summaryMatches;

export const MergeResponseSchema = z
  .object({
    merge_id: z.string().describe("names the merge in .../merges/{merge_id}/resolve"),
    status: z
      .enum(["merged", "conflicts", "needs_confirmation", "cancelled"])
      .describe(
        "merged: done; conflicts: resolve them (rebase); needs_confirmation: proceed or cancel (cherry_pick warnings); cancelled: answer to {cancel: true}",
      ),
    conflicts: z.array(MergeConflictSchema).optional().describe("present when status is conflicts"),
    warnings: z.array(MergeWarningSchema).optional(),
  })
  .describe("Answer to POST .../merges and .../merges/{merge_id}/resolve.");
export type MergeResponse = z.infer<typeof MergeResponseSchema>;

export const FieldErrorSchema = z.object({
  field: z.string().describe("dotted path into the body, e.g. payload.path; (root) for the body"),
  message: z.string(),
});

export const ErrorResponseSchema = z
  .object({
    error: z
      .enum([
        "invalid_request",
        "unauthorized",
        "forbidden",
        "not_found",
        "conflict",
        "payload_too_large",
        "unsupported_media_type",
        "too_many_requests",
        "internal",
        "shutting_down",
      ])
      .describe(
        "invalid_request → 400, unauthorized → 401, forbidden → 403, not_found → 404, conflict → 409, " +
          "payload_too_large → 413, unsupported_media_type → 415, too_many_requests → 429, internal → 500, " +
          "shutting_down → 503",
      ),
    message: z.string(),
    fields: z.array(FieldErrorSchema).optional().describe("invalid_request: one entry per problem"),
  })
  .describe("The body of every 4xx/5xx JSON answer.");
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
