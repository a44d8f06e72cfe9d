import { z } from "zod";
import { type Branch, BranchSchema, type MergeStrategyName } from "./branch.js";
import type { ContextMessage } from "./message-types.js";

// Wire shapes of a merge (warnings, conflicts, resolutions) as zod schemas, and the plain data a
// merge passes between planMerge and resolveMerge. What a conflict IS is defined in rebase.ts and
// docs/decisions/0004-merge-conflicts.md.

export const MergeWarningSchema = z.discriminatedUnion("kind", [
  /** cherry-pick: a picked tool_result whose tool_request is neither on the target nor picked */
  z.object({
    kind: z.literal("missing_tool_request"),
    message_id: z.string(),
    missing_id: z.string(),
    description: z.string(),
  }),
  /** cherry-pick: a picked tool_request whose result (on the source) is neither on the target nor picked */
  z.object({
    kind: z.literal("missing_tool_result"),
    message_id: z.string(),
    missing_id: z.string(),
    description: z.string(),
  }),
  /** cherry-pick, proceeding without dependencies: a result brought over as a notice copy */
  z.object({
    kind: z.literal("detached_tool_result"),
    message_id: z.string(),
    new_message_id: z.string(),
    description: z.string(),
  }),
  /** a warning-level finding of the post-merge validation (e.g. an unanswered tool call) */
  z.object({
    kind: z.literal("validation"),
    message_id: z.string(),
    problem: z.string(),
    description: z.string(),
  }),
  /** every message the merge would bring is already on the target */
  z.object({ kind: z.literal("nothing_to_merge"), description: z.string() }),
]);
export type MergeWarning = z.infer<typeof MergeWarningSchema>;

export const ConflictKindSchema = z.enum([
  "divergent_continuation",
  "conflicting_file_edit",
  "broken_dependency",
]);
export type ConflictKind = z.infer<typeof ConflictKindSchema>;

export const ResolutionKindSchema = z.enum(["keep_source", "keep_target", "keep_both", "custom"]);
export type ResolutionKind = z.infer<typeof ResolutionKindSchema>;

export const MergeConflictSchema = z.object({
  conflict_id: z.string(),
  kind: ConflictKindSchema,
  /** the source's messages in conflict, in source order (dependency-closed: requests with results) */
  source_message_ids: z.array(z.string()),
  /** the target's messages in conflict, in target order; may be empty (broken_dependency) */
  target_message_ids: z.array(z.string()),
  description: z.string(),
  /** the file both sides changed (conflicting_file_edit only) */
  path: z.string().optional(),
  /** created_at of every message involved */
  timestamps: z.array(
    z.object({
      message_id: z.string(),
      side: z.enum(["source", "target"]),
      created_at: z.string(),
    }),
  ),
  /** the resolutions that give a valid branch, each with what it does */
  suggested_resolutions: z.array(
    z.object({ resolution: ResolutionKindSchema, description: z.string() }),
  ),
});
export type MergeConflict = z.infer<typeof MergeConflictSchema>;

export const ConflictResolutionSchema = z.discriminatedUnion("resolution", [
  /** drop the conflict's target messages from the result, keep the source's */
  z.object({ conflict_id: z.string(), resolution: z.literal("keep_source") }),
  /** drop the conflict's source messages, keep the target's */
  z.object({ conflict_id: z.string(), resolution: z.literal("keep_target") }),
  /** keep both: the target's messages, then the source's */
  z.object({ conflict_id: z.string(), resolution: z.literal("keep_both") }),
  /** keep the target's messages; in place of the source's, a new notice message with this text */
  z.object({ conflict_id: z.string(), resolution: z.literal("custom"), text: z.string().min(1) }),
]);
export type ConflictResolution = z.infer<typeof ConflictResolutionSchema>;

/** The caller's answer to a merge that did not complete. */
export type MergeDecision =
  | { action: "cancel" }
  /** cherry-pick: go ahead as chosen, or with every missing dependency added */
  | { action: "proceed"; include_dependencies?: boolean }
  /** rebase: resolutions for some or all conflicts; the merge completes once all are resolved */
  | { action: "resolve"; resolutions: ConflictResolution[] };

interface PendingBase {
  merge_id: string;
  source_branch_id: string;
  /** the target as planned; resolving against a changed target is refused (stale_merge) */
  target: Branch;
}

export interface PendingCherryPick extends PendingBase {
  strategy: "cherry_pick";
  /** the chosen messages not yet on the target, in source order */
  picked_ids: string[];
  /** what include_dependencies adds (transitively), in source order */
  dependency_ids: string[];
  /** picked_ids and dependency_ids together, in source order */
  with_dependencies_ids: string[];
  warnings: MergeWarning[];
}

export interface PendingRebase extends PendingBase {
  strategy: "rebase";
  /** the source's messages after the common ancestor that are not on the target, in order */
  replay_ids: string[];
  conflicts: MergeConflict[];
  /** resolutions received so far, one per conflict id */
  resolutions: ConflictResolution[];
}

/** Plain data: the Session stores it with the session row until it is resolved or cancelled. */
export type PendingMerge = PendingCherryPick | PendingRebase;

/** A stored pending merge, as read back (the session row's pending_merges column). */
export const PendingMergeSchema = z.discriminatedUnion("strategy", [
  z.object({
    strategy: z.literal("cherry_pick"),
    merge_id: z.string(),
    source_branch_id: z.string(),
    target: BranchSchema,
    picked_ids: z.array(z.string()),
    dependency_ids: z.array(z.string()),
    with_dependencies_ids: z.array(z.string()),
    warnings: z.array(MergeWarningSchema),
  }),
  z.object({
    strategy: z.literal("rebase"),
    merge_id: z.string(),
    source_branch_id: z.string(),
    target: BranchSchema,
    replay_ids: z.array(z.string()),
    conflicts: z.array(MergeConflictSchema),
    resolutions: z.array(ConflictResolutionSchema),
  }),
]);
// the schema reads back exactly what the Session stores
true satisfies z.infer<typeof PendingMergeSchema> extends PendingMerge
  ? PendingMerge extends z.infer<typeof PendingMergeSchema>
    ? true
    : false
  : false;

export interface MergeResult {
  merge_id: string;
  strategy: MergeStrategyName;
  /** the updated target (merged_from recorded); persist with newMessages in one write */
  target: Branch;
  /** messages the merge created (notes, detached copies); not yet in the pool */
  newMessages: ContextMessage[];
  added_message_ids: string[];
  /** target messages a resolution took off the branch (they stay in the pool) */
  removed_message_ids: string[];
}

export type MergeOutcome =
  | { status: "merged"; result: MergeResult; warnings: MergeWarning[] }
  | { status: "needs_confirmation"; warnings: MergeWarning[]; pending: PendingCherryPick }
  | { status: "conflicts"; conflicts: MergeConflict[]; pending: PendingRebase }
  | { status: "cancelled"; merge_id: string };
