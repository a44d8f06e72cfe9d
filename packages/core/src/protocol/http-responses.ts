import { z } from "zod";
import { BranchSchema, MergeStrategyNameSchema } from "../model/branch.js";
import type { PendingMerge } from "../model/merge-types.js";
import { MergeConflictSchema, MergeWarningSchema } from "../model/merge-types.js";
import { ContextMessageSchema, MessageRoleSchema } from "../model/message-types.js";
import { SessionConfigSchema } from "../model/session-config.js";
import type { OptimizationView } from "../model/session-records.js";
import { ContextStateSchema } from "../model/states.js";

// The JSON bodies of the web app's HTTP API beyond those in responses.ts: session detail,
// messages, branches, config. They live here, not in the app, so the browser can parse with the
// same schemas and apps/web's docs/api.md renders them like docs/protocol.md does.

export const PendingMergeSummarySchema = z
  .object({
    merge_id: z.string(),
    strategy: MergeStrategyNameSchema,
    source_branch_id: z.string(),
    target_branch_id: z.string(),
    conflicts: z.array(MergeConflictSchema).optional().describe("rebase: what to resolve"),
    warnings: z.array(MergeWarningSchema).optional().describe("cherry_pick: what to confirm"),
  })
  .describe("A merge waiting for resolve (conflicts) or proceed/cancel (warnings).");
export type PendingMergeSummary = z.infer<typeof PendingMergeSummarySchema>;

/** The wire view of a pending merge (the pending target branch stays server-side). */
export function pendingMergeSummary(pending: PendingMerge): PendingMergeSummary {
  const base = {
    merge_id: pending.merge_id,
    strategy: pending.strategy,
    source_branch_id: pending.source_branch_id,
    target_branch_id: pending.target.id,
  };
  return pending.strategy === "rebase"
    ? { ...base, conflicts: pending.conflicts }
    : { ...base, warnings: pending.warnings };
}

export const SessionDetailSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    state: ContextStateSchema.describe("the fine-grained state, e.g. {type: 'Idle'}"),
    config: SessionConfigSchema,
    active_branch_id: z.string(),
    branches: z.array(BranchSchema),
    pending_merges: z.array(PendingMergeSummarySchema),
    last_sequence: z
      .number()
      .int()
      .nonnegative()
      .describe("the sequence of the session's newest stored event (0: none)"),
    resume_from_sequence: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "replay events after this to follow the session: just before the running operation's first event, or last_sequence when nothing runs",
      ),
  })
  .describe("Answer to GET /api/sessions/{id}.");
export type SessionDetail = z.infer<typeof SessionDetailSchema>;

export const OptimizationViewSchema = z
  .object({
    id: z.string(),
    session_id: z.string(),
    branch_id: z.string(),
    created_at: z.string(),
    strategy: z.string(),
    tokens_before: z.number().int().nonnegative(),
    tokens_after: z.number().int().nonnegative(),
    messages_before: z.number().int().nonnegative(),
    messages_after: z.number().int().nonnegative(),
    summaries: z
      .array(z.object({ summary_message_id: z.string(), replaces: z.array(z.string()) }))
      .describe("each summary message with the ids of the messages it stands for"),
    dropped: z.array(z.string()).describe("ids the optimized view left out without a summary"),
  })
  .describe("One optimization of a branch: what the model sees instead of the full history.");
// Compile-time proof that the wire shape and the store's OptimizationView agree, both ways.
const optimizationViewMatches: [
  z.infer<typeof OptimizationViewSchema> extends OptimizationView ? true : false,
  OptimizationView extends z.infer<typeof OptimizationViewSchema> ? true : false,
] = [true, true];
void optimizationViewMatches;

export const ContextUsageSchema = z
  .object({
    system_prompt: z.number().int().nonnegative().describe("tokens of the system prompt"),
    tools: z
      .number()
      .int()
      .nonnegative()
      .describe("tokens of the tool definitions the request carries"),
    fixed: z
      .number()
      .int()
      .nonnegative()
      .describe("the fixed overhead every request pays: system_prompt + tools"),
    messages: z.number().int().nonnegative().describe("tokens of the optimized view's messages"),
    total: z.number().int().nonnegative().describe("fixed + messages"),
    counted_by: z
      .enum(["estimate", "provider_usage", "provider_count"])
      .describe(
        "where the figures come from: `estimate` Arbor's tokenizer alone (no provider figure yet, or the offline model); `provider_usage` the estimate scaled by the provider's reported input tokens of an earlier request; `provider_count` scaled by the provider's own count of a request (Anthropic's count_tokens, asked near the optimization trigger)",
      ),
    context_window: z.number().int().positive(),
    trigger: z
      .number()
      .int()
      .nonnegative()
      .describe("optimization starts when a request would use more tokens than this"),
    target: z.number().int().nonnegative().describe("and shrinks the request to at most this"),
  })
  .describe(
    "What the active branch's next request would use, counted as the optimizer counts (issue #15: the usage meter shows the fixed part).",
  );
export type ContextUsage = z.infer<typeof ContextUsageSchema>;

export const OptimizeResponseSchema = z
  .object({
    changed: z
      .boolean()
      .describe("false: the branch was within the optimization target already; nothing stored"),
    optimization: OptimizationViewSchema.nullable().describe(
      "the optimization stored now (its summaries, masks and drops); null when nothing changed",
    ),
    context_usage: ContextUsageSchema.describe("what the next request would use now"),
  })
  .describe("Answer to POST /api/sessions/{id}/optimize.");
export type OptimizeResponse = z.infer<typeof OptimizeResponseSchema>;

export const MessagesResponseSchema = z
  .object({
    branch_id: z.string(),
    view: z
      .enum(["full", "optimized"])
      .describe("full: every message of the branch; optimized: what the model sees"),
    messages: z.array(ContextMessageSchema),
    optimizations: z
      .array(OptimizationViewSchema)
      .describe("the branch's optimizations, to expand a summary into what it replaced"),
    queued: z
      .array(ContextMessageSchema)
      .default([])
      .describe(
        "the session's user messages sent while the agent worked and not delivered yet (status `queued`), oldest first; each leaves this list and joins the active branch when it is delivered",
      ),
    context_usage: ContextUsageSchema.optional().describe(
      "the active branch only: what its next request would use (fixed part, messages, window)",
    ),
  })
  .describe("Answer to GET /api/sessions/{id}/messages.");
export type MessagesResponse = z.infer<typeof MessagesResponseSchema>;

export const BranchListResponseSchema = z
  .object({
    active_branch_id: z.string(),
    branches: z.array(BranchSchema),
  })
  .describe("Answer to GET /api/sessions/{id}/branches and to a checkout.");
export type BranchListResponse = z.infer<typeof BranchListResponseSchema>;

export const ConfigResponseSchema = z
  .object({ config: SessionConfigSchema })
  .describe("Answer to PATCH /api/sessions/{id}/config: the whole config after the change.");
export type ConfigResponse = z.infer<typeof ConfigResponseSchema>;

export const InterruptResponseSchema = z
  .object({
    interrupted: z.boolean().describe("false when nothing was running"),
    state: ContextStateSchema.describe("the state once the running operation has stopped"),
  })
  .describe("Answer to POST /api/sessions/{id}/interrupt.");
export type InterruptResponse = z.infer<typeof InterruptResponseSchema>;

export const FileListResponseSchema = z
  .object({
    files: z
      .array(z.string())
      .describe("paths relative to the session's workspace, `/`-separated, in walk order"),
  })
  .describe("Answer to GET /api/sessions/{id}/files.");
export type FileListResponse = z.infer<typeof FileListResponseSchema>;

export const WorkspaceInstructionsResponseSchema = z
  .object({
    text: z
      .string()
      .describe(
        "what the next request's system prompt gets: each file under a `From <path>:` line; empty when none",
      ),
    files: z
      .array(
        z.object({
          path: z.string().describe("relative to the workspace, `/`-separated"),
          chars: z.number().int().nonnegative().describe("characters of it in the prompt"),
          truncated: z.boolean().describe("the cap cut it, or left no room for it"),
        }),
      )
      .describe(
        "the files in use, nearest first: AGENTS.md in the directories of the files the conversation works on, then AGENTS.md, CLAUDE.md and .arbor/instructions.md at the root",
      ),
    max_chars: z.number().int().positive().describe("the cap on the instructions' total length"),
  })
  .describe(
    "Answer to GET /api/sessions/{id}/instructions. The files are read afresh on each request (unchanged ones from an mtime cache), so an edit shows at once.",
  );
export type WorkspaceInstructionsResponse = z.infer<typeof WorkspaceInstructionsResponseSchema>;
export const MessageSearchHitSchema = z
  .object({
    session_id: z.string(),
    session_title: z.string(),
    message_id: z.string(),
    role: MessageRoleSchema,
    message_type: z.string().describe("the message's message_type"),
    created_at: z.string(),
    snippet: z.string().describe("the matching text around the first match, on one line"),
  })
  .describe("One message that holds every word searched for.");
export type MessageSearchHit = z.infer<typeof MessageSearchHitSchema>;

export const SearchResponseSchema = z
  .object({
    query: z.string(),
    results: z.array(MessageSearchHitSchema).describe("newest message first"),
  })
  .describe("Full-text search over the messages of every session.");
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
export const FileContentResponseSchema = z
  .object({
    path: z.string().describe("the file, relative to the workspace, `/`-separated"),
    content: z.string().describe("its text (UTF-8), at most the first 512 KiB"),
    total_lines: z.number().int().min(0).describe("lines in `content`"),
    truncated: z.boolean().describe("the file is longer than what `content` holds"),
  })
  .describe("Answer to GET /api/sessions/{id}/files/content: a workspace file for the file view.");
export type FileContentResponse = z.infer<typeof FileContentResponseSchema>;

/** A fold (context folding, issue #13) as GET /api/sessions/{id}/folds lists it. */
export const FoldViewSchema = z.object({
  fold_id: z.string(),
  parent_fold_id: z.string().nullable().describe("the fold it was opened in; null at depth 1"),
  depth: z.number().int().positive(),
  description: z.string(),
  budget: z.number().int().positive().describe("tokens"),
  timeout_seconds: z.number().positive(),
  loop_id: z.string().nullable().describe("its child loop in the loop tree"),
  tool_call_id: z.string().nullable().describe("the `branch` call that started it"),
  injected_memory_ids: z.array(z.string()),
  status: z.enum(["running", "returned", "forced"]),
  reason: z
    .enum(["budget", "timeout", "cancelled", "parent_returned", "crash"])
    .nullable()
    .describe("why it was forced to return; null otherwise"),
  tokens_used: z.number().int().nonnegative().describe("metered: model usage and tool output"),
  warned: z.boolean().describe("it crossed 80% of its budget"),
  message: z.string().nullable().describe("the scrubbed return message; null while it runs"),
  steps: z
    .array(ContextMessageSchema)
    .describe(
      "its messages (meta.fold_id names it), stored on no branch: never in the parent's context",
    ),
});
export type FoldView = z.infer<typeof FoldViewSchema>;

export const FoldListResponseSchema = z
  .object({ folds: z.array(FoldViewSchema).describe("in start order") })
  .describe("Answer to GET /api/sessions/{id}/folds.");
export type FoldListResponse = z.infer<typeof FoldListResponseSchema>;
