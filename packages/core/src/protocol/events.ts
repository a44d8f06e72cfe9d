import { z } from "zod";
import { PersonRefSchema } from "../model/person.js";
import { ContextStateSchema } from "../model/states.js";
import { CostedUsageSchema } from "../model/usage-cost.js";
import {
  MessageDeliverySchema,
  MessageRoleSchema,
  MessageStatusSchema,
  MessageTypeNameSchema,
} from "./message-type-name.js";
import type { ParallelEventBody } from "./parallel.js";

// The events a session emits (context-manager spec "Streaming Context Updates"). Each is stored in
// the session's append-only event log and sent over SSE as `id: <sequence>`, `event: <name>`,
// `data: <JSON of payload>`. One increasing sequence per session covers all of them.
// context_update carries state and lightweight metadata only, never message text.

// A message's lifecycle (context-manager "Message lifecycle updates"): `created`, then
// `status_changed` on each status change, and `completed` once it is final and complete. A stored
// message gets `created` and either `completed` or its `status_changed`. A streamed answer is
// announced when its stream begins: `created` (message_type `text`, on the active branch) and
// `status_changed` to `streaming` come before its first `content_delta`; when it is stored,
// `status_changed` gives its final status (complete, incomplete) and `completed` follows a
// complete one. An answer that calls tools is stored as `tool_request` under the same id. An
// announced attempt that is never stored (retried, or failed before any content) ends with
// `status_changed` to `failed`.
export const MessageUpdateSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("created"),
      message_id: z.string(),
      message_type: MessageTypeNameSchema,
      role: MessageRoleSchema,
      branch_id: z.string(),
    })
    .describe(
      "a message exists: stored, or (an assistant answer) its stream has begun; place its card",
    ),
  z
    .object({
      kind: z.literal("status_changed"),
      message_id: z.string(),
      status: MessageStatusSchema,
    })
    .describe(
      "streaming when an answer's stream begins; then complete, incomplete or failed (an attempt that was not kept)",
    ),
  z
    .object({ kind: z.literal("completed"), message_id: z.string() })
    .describe("the message is final and complete (stored)"),
  // a user message sent while the agent works: stored on no branch yet. Its delivery is the usual
  // `created` (with the branch it joins) and `completed` of the same message_id.
  z.object({
    kind: z.literal("queued"),
    message_id: z.string(),
    message_type: MessageTypeNameSchema,
    role: MessageRoleSchema,
    delivery: MessageDeliverySchema,
  }),
]);
export type MessageUpdate = z.infer<typeof MessageUpdateSchema>;

export const ContextUpdateSchema = z.object({
  context_id: z.string(),
  current_state: ContextStateSchema,
  previous_state: ContextStateSchema.optional(),
  message_update: MessageUpdateSchema.optional(),
  timestamp: z.string(),
  metadata: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "an optimization's update carries optimization_id, tokens_before/after, messages_before/after and tiers; after a provider refused the request as too long it also has reason: context_overflow and retrying: true (the request is sent once more)",
    ),
});
export type ContextUpdate = z.infer<typeof ContextUpdateSchema>;

export const ContentDeltaSchema = z.object({
  context_id: z.string(),
  message_id: z.string(),
  sequence: z.number().int(),
  delta: z.string(),
  /** text or reasoning; reasoning is shown folded */
  channel: z.enum(["text", "thinking"]).default("text"),
  is_final: z.literal(false),
});
export type ContentDelta = z.infer<typeof ContentDeltaSchema>;

export const ContentFinalSchema = z.object({
  context_id: z.string(),
  message_id: z.string(),
  sequence: z.number().int(),
  is_final: z.literal(true),
});
export type ContentFinal = z.infer<typeof ContentFinalSchema>;

export const ErrorEventSchema = z.object({
  context_id: z.string(),
  code: z
    .enum([
      "llm_connection",
      "llm_stream_interrupted",
      "llm_error",
      "context_overflow",
      "tool_failed",
      "file_read",
      "storage",
      "invalid_request",
      "invalid_transition",
      "timeout",
      "internal",
    ])
    .describe(
      "context_overflow: the conversation does not fit the model's context window even after the session optimized it once",
    ),
  message: z.string(),
  recoverable: z.boolean(),
});
export type ErrorEvent = z.infer<typeof ErrorEventSchema>;

const FoldReasonSchema = z
  .enum(["budget", "timeout", "cancelled", "parent_returned", "crash"])
  .describe(
    "why a fold was forced to return: its budget ran out, its timeout passed, its parent was cancelled, its parent returned while it was open, or the server restarted while it ran",
  );

/** A fold (issue #13) started: a `branch` call's child loop, with its own context and budget. */
export const FoldStartedSchema = z.object({
  context_id: z.string(),
  fold_id: z.string(),
  parent_fold_id: z.string().nullable(),
  depth: z.number().int().positive(),
  description: z.string(),
  budget: z.number().int().positive(),
  timeout_seconds: z.number().positive(),
  injected_memory_ids: z.array(z.string()),
  loop_id: z.string().nullable().describe("the fold's child loop in the loop tree"),
  tool_call_id: z
    .string()
    .optional()
    .describe("the `branch` call (in the parent's loop) that started the fold"),
});
export type FoldStarted = z.infer<typeof FoldStartedSchema>;

/** A fold used 80% of its budget; its next request carries "N tokens left: finish and return". */
export const FoldBudgetWarningSchema = z.object({
  context_id: z.string(),
  fold_id: z.string(),
  tokens_used: z.number().int().nonnegative(),
  budget: z.number().int().positive(),
  tokens_left: z.number().int().nonnegative(),
});
export type FoldBudgetWarning = z.infer<typeof FoldBudgetWarningSchema>;

/** A fold returned: normally (its `return`) or forced, with the scrubbed message the parent got. */
export const FoldReturnedSchema = z.object({
  context_id: z.string(),
  fold_id: z.string(),
  forced: z.boolean(),
  reason: FoldReasonSchema.nullable(),
  tokens_used: z.number().int().nonnegative(),
  budget: z.number().int().positive(),
  message: z.string(),
});
export type FoldReturned = z.infer<typeof FoldReturnedSchema>;

/**
 * A tool call inside a fold that the session's approval policy holds for a person: it waits
 * (`pending_approval`) until POST /approvals decides it (`approved`, `denied`); an interrupt or
 * the fold being forced back denies it (`denied`, `cancelled: true`). The call's approval is also
 * stored on the fold's tool_request (GET /folds).
 */
export const FoldToolSchema = z.object({
  context_id: z.string(),
  fold_id: z.string(),
  tool_call_id: z.string().describe("the call on the fold's tool_request"),
  tool_name: z.string(),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("the call's arguments (with `pending_approval`)"),
  status: z.enum(["pending_approval", "approved", "denied"]),
  cancelled: z
    .boolean()
    .optional()
    .describe("true: denied because the fold ended (interrupt, timeout, budget) while it waited"),
  decided_by: PersonRefSchema.nullable()
    .optional()
    .describe("who approved or denied the call (with `approved` / `denied` decided by a person)"),
});
export type FoldTool = z.infer<typeof FoldToolSchema>;

/**
 * A running tool reported progress (an MCP server's `notifications/progress`, the bash tool's
 * output lines): the tool card shows the latest message until the call's result arrives.
 * Coalesced: while one is being stored, newer ones of the same call replace each other.
 */
export const ToolProgressSchema = z.object({
  context_id: z.string(),
  tool_call_id: z.string().describe("the call of the tool_request the progress is of"),
  tool_name: z.string().describe("the tool's model name"),
  message: z
    .string()
    .describe(
      "the progress as text: an MCP server's `message (progress/total)`, or `progress N/T` without a message",
    ),
});
export type ToolProgress = z.infer<typeof ToolProgressSchema>;
const SubAgentBase = {
  context_id: z.string(),
  tool_call_id: z.string().describe("the parent's sub-agent call (its tool_request's call id)"),
  tool_name: z.string().describe("the sub-agent's tool name (its agent file's `name`)"),
  loop_id: z.string().describe("the child loop in the admin loop tree"),
};

/**
 * A sub-agent call's child loop (issue #14): `started`, then its streamed `text` and `progress`
 * (its own tool calls), then `ended` with how it ended and its usage (which the session's usage
 * includes). A call cut by an interrupt ends with status `cancelled`.
 */
export const SubAgentUpdateSchema = z.discriminatedUnion("kind", [
  z.object({ ...SubAgentBase, kind: z.literal("started") }).describe("the child loop started"),
  z
    .object({ ...SubAgentBase, kind: z.literal("text"), delta: z.string() })
    .describe("a chunk of the child's answer text"),
  z
    .object({ ...SubAgentBase, kind: z.literal("progress"), text: z.string() })
    .describe("the child called a tool (its name and arguments, shortened) or reported progress"),
  z
    .object({
      ...SubAgentBase,
      kind: z.literal("approval"),
      call_id: z.string().describe("the child's tool call"),
      call_name: z.string().describe("the child's tool"),
      arguments: z.record(z.string(), z.unknown()).optional(),
      status: z.enum(["pending_approval", "approved", "denied"]),
      cancelled: z
        .boolean()
        .optional()
        .describe("true: denied because the sub-agent call was cancelled while it waited"),
      decided_by: PersonRefSchema.nullable()
        .optional()
        .describe(
          "who approved or denied the call (with `approved` / `denied` decided by a person)",
        ),
    })
    .describe(
      "a child's call the session's approval policy holds for a person: it waits (`pending_approval`) until POST /approvals decides it by `call_id`",
    ),
  z
    .object({
      ...SubAgentBase,
      kind: z.literal("ended"),
      status: z
        .enum(["completed", "turn_limit", "failed", "cancelled"])
        .describe(
          "completed: it answered; turn_limit: its turn limit stopped it; failed: its model failed (the result says why); cancelled: the parent was interrupted",
        ),
      turns: z.number().int().nonnegative(),
      usage: CostedUsageSchema.describe(
        "the child loop's tokens (zero when cancelled), priced by its model",
      ),
    })
    .describe("the child loop ended; its final text is the call's tool_result"),
]);
export type SubAgentUpdate = z.infer<typeof SubAgentUpdateSchema>;

/** A session event before it has a sequence. The payload's `sequence` (deltas) is filled on write. */
export type SessionEventBody =
  | { name: "context_update"; payload: ContextUpdate }
  | { name: "content_delta"; payload: ContentDelta }
  | { name: "content_final"; payload: ContentFinal }
  | { name: "error"; payload: ErrorEvent }
  | { name: "fold_started"; payload: FoldStarted }
  | { name: "fold_budget_warning"; payload: FoldBudgetWarning }
  | { name: "fold_returned"; payload: FoldReturned }
  | { name: "fold_tool"; payload: FoldTool }
  | { name: "tool_progress"; payload: ToolProgress }
  | { name: "subagent_update"; payload: SubAgentUpdate }
  | ParallelEventBody;

export type SessionEventName = SessionEventBody["name"];

/** A session event as stored and streamed. */
export type SessionEvent = SessionEventBody & { sequence: number };
