import type { Branch, MergeStrategyName } from "../../model/branch.js";
import type {
  ConflictResolution,
  MergeDecision,
  MergeOutcome,
  PendingMerge,
} from "../../model/merge-types.js";
import { completeCherryPick, planCherryPick } from "./cherry-pick.js";
import { BranchOpError } from "./errors.js";
import { finishMerge } from "./merge-result.js";
import { completeRebase, planRebase } from "./rebase.js";
import { defaultIsFileEdit, type FileEditPredicate } from "./rebase-conflicts.js";
import type { IdsAndClock, MessageLookup } from "./types.js";

// Merging one branch into another (spec "Branch Merging"). planMerge either completes (status
// "merged"), or stops for the caller: cherry-pick with missing dependencies ("needs_confirmation")
// or rebase with conflicts ("conflicts"). resolveMerge takes the caller's decision; a rebase never
// completes until every conflict has a resolution. Every completed merge is validated
// (merge-result.ts) and records merged_from on the target; an invalid result throws
// BranchOpError "invalid_merge_result" instead of being returned. Inputs are never mutated.
//
// Append: every source message not already on the target (by id), in source order, after the
// target's messages. Duplicates are skipped, so appending the same branch twice changes nothing
// the second time. Append detects no conflicts; a result that would be invalid (e.g. a call
// answered on both branches) is refused by validation; use rebase for diverged branches.

export interface PlanMergeOptions extends IdsAndClock {
  strategy: MergeStrategyName;
  source: Branch;
  target: Branch;
  pool: MessageLookup;
  /** cherry_pick only: the chosen message ids (order does not matter; source order is kept) */
  messageIds?: readonly string[];
  /** rebase only: which tool calls change files; see rebase-conflicts.ts */
  isFileEdit?: FileEditPredicate;
}

export function planMerge(options: PlanMergeOptions): MergeOutcome {
  const { source, target, pool } = options;
  if (source.id === target.id)
    throw new BranchOpError({ code: "same_branch", branch_id: source.id });
  if (source.session_id !== target.session_id) {
    throw new BranchOpError({
      code: "different_sessions",
      source_session_id: source.session_id,
      target_session_id: target.session_id,
    });
  }
  const merge_id = options.newId();
  switch (options.strategy) {
    case "append": {
      const onTarget = new Set(target.message_ids);
      return finishMerge({
        merge_id,
        strategy: "append",
        source_branch_id: source.id,
        target,
        message_ids: [
          ...target.message_ids,
          ...source.message_ids.filter((id) => !onTarget.has(id)),
        ],
        newMessages: [],
        pool,
        now: options.now,
        warnings: [],
      });
    }
    case "cherry_pick":
      return planCherryPick({ ...options, merge_id, messageIds: options.messageIds ?? [] });
    case "rebase":
      return planRebase({
        ...options,
        merge_id,
        isFileEdit: options.isFileEdit ?? defaultIsFileEdit,
      });
    default:
      return options.strategy satisfies never;
  }
}

export interface ResolveMergeOptions extends IdsAndClock {
  pending: PendingMerge;
  decision: MergeDecision;
  /** the target as it is now; if its messages changed since planning, the merge is stale */
  target: Branch;
  pool: MessageLookup;
}

export function resolveMerge(options: ResolveMergeOptions): MergeOutcome {
  const { pending, decision, target } = options;
  if (decision.action === "cancel") return { status: "cancelled", merge_id: pending.merge_id };
  if (target.id !== pending.target.id || !sameIds(target.message_ids, pending.target.message_ids)) {
    throw new BranchOpError({
      code: "stale_merge",
      merge_id: pending.merge_id,
      target_branch_id: pending.target.id,
    });
  }
  const context = { pool: options.pool, newId: options.newId, now: options.now };
  switch (pending.strategy) {
    case "cherry_pick":
      if (decision.action !== "proceed") throw notApplicable(pending, decision);
      return completeCherryPick(
        { ...pending, target },
        decision.include_dependencies ?? false,
        context,
      );
    case "rebase": {
      // "proceed" resolves nothing: the merge stays blocked until every conflict is resolved
      const given = decision.action === "resolve" ? decision.resolutions : [];
      const resolutions = mergeResolutions(pending.resolutions, given, pending);
      const resolved = new Set(resolutions.map((r) => r.conflict_id));
      const open = pending.conflicts.filter((c) => !resolved.has(c.conflict_id));
      const next = { ...pending, target, resolutions };
      if (open.length > 0) return { status: "conflicts", conflicts: open, pending: next };
      return completeRebase(next, context);
    }
    default:
      return pending satisfies never;
  }
}

/** Later resolutions for the same conflict replace earlier ones. */
function mergeResolutions(
  previous: readonly ConflictResolution[],
  given: readonly ConflictResolution[],
  pending: PendingMerge & { strategy: "rebase" },
): ConflictResolution[] {
  const known = new Set(pending.conflicts.map((c) => c.conflict_id));
  const byConflict = new Map(previous.map((r) => [r.conflict_id, r]));
  for (const r of given) {
    if (!known.has(r.conflict_id)) {
      throw new BranchOpError({ code: "unknown_conflict", conflict_id: r.conflict_id });
    }
    byConflict.set(r.conflict_id, r);
  }
  return [...byConflict.values()];
}

function notApplicable(pending: PendingMerge, decision: MergeDecision): BranchOpError {
  return new BranchOpError({
    code: "decision_not_applicable",
    merge_id: pending.merge_id,
    decision: decision.action,
  });
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
