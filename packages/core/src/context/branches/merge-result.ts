import type { Branch, MergeStrategyName } from "../../model/branch.js";
import type { MergeOutcome, MergeWarning } from "../../model/merge-types.js";
import type { ContextMessage } from "../../model/message-types.js";
import { BranchOpError } from "./errors.js";
import type { MessageLookup } from "./types.js";
import { hasErrors, validateBranch } from "./validate.js";

// The one exit of every strategy: build the updated target, validate it against the pool plus
// the merge's new messages, and refuse (throw) rather than return an invalid branch.

export interface FinishMergeInput {
  merge_id: string;
  strategy: MergeStrategyName;
  source_branch_id: string;
  target: Branch;
  /** the target's complete new id list */
  message_ids: string[];
  newMessages: ContextMessage[];
  pool: MessageLookup;
  now: () => string;
  warnings: MergeWarning[];
}

export function finishMerge(input: FinishMergeInput): Extract<MergeOutcome, { status: "merged" }> {
  const { target, message_ids } = input;
  const before = new Set(target.message_ids);
  const after = new Set(message_ids);
  const added = message_ids.filter((id) => !before.has(id));
  const removed = target.message_ids.filter((id) => !after.has(id));
  const warnings = [...input.warnings];

  if (added.length === 0 && removed.length === 0) {
    // nothing changes: the target is returned as it was (no merged_from entry), which makes
    // repeating a merge idempotent
    warnings.push({
      kind: "nothing_to_merge",
      description: `every message of branch ${input.source_branch_id} is already on the target`,
    });
    return {
      status: "merged",
      result: {
        merge_id: input.merge_id,
        strategy: input.strategy,
        target: { ...target, message_ids: [...target.message_ids] },
        newMessages: [],
        added_message_ids: [],
        removed_message_ids: [],
      },
      warnings,
    };
  }

  const at = input.now();
  const merged: Branch = {
    ...target,
    message_ids,
    merged_from: [
      ...target.merged_from,
      {
        branch_id: input.source_branch_id,
        merge_id: input.merge_id,
        strategy: input.strategy,
        at,
      },
    ],
    updated_at: at,
  };
  const created = new Map(input.newMessages.map((m) => [m.id, m]));
  const problems = validateBranch(merged, (id) => created.get(id) ?? input.pool(id));
  if (hasErrors(problems)) {
    throw new BranchOpError({ code: "invalid_merge_result", merge_id: input.merge_id, problems });
  }
  for (const p of problems) {
    warnings.push({
      kind: "validation",
      message_id: p.message_id,
      problem: p.kind,
      description: p.description,
    });
  }
  return {
    status: "merged",
    result: {
      merge_id: input.merge_id,
      strategy: input.strategy,
      target: merged,
      newMessages: input.newMessages,
      added_message_ids: added,
      removed_message_ids: removed,
    },
    warnings,
  };
}
