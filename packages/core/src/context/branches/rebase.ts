import type { Branch } from "../../model/branch.js";
import type {
  ConflictResolution,
  MergeConflict,
  MergeOutcome,
  PendingRebase,
} from "../../model/merge-types.js";
import type { ContextMessage } from "../../model/message-types.js";
import { commonPrefixLength } from "./branch-ops.js";
import { finishMerge } from "./merge-result.js";
import { detectRebaseConflicts, type FileEditPredicate } from "./rebase-conflicts.js";
import type { IdsAndClock, MessageLookup } from "./types.js";

// Rebase: replay the source's messages after the common ancestor behind the target's own.
//
// Common ancestor = the last id of the longest common PREFIX of the two id lists. A fork copies a
// prefix of its parent's list, so for any two branches of a session (siblings, a fork of a fork,
// an edit fork, a parent and its grandchild) that prefix ends exactly at their lowest common fork
// point. Walking parent_branch_id / fork_message_id is not needed and would be less reliable (a
// deleted parent reparents its children; merges add ids the fork chain does not describe). Ids
// after the prefix that are already on the target (an earlier merge) are skipped, not replayed.
// Two branches with no common prefix have no ancestor: all of the source is replayed.
//
// Outcomes: nothing to replay → unchanged target; target has nothing of its own after the
// ancestor → fast-forward (the target becomes the source's list); otherwise conflicts are
// detected (rebase-conflicts.ts) and, if there are none, the replay is appended.

export interface RebaseInput extends IdsAndClock {
  merge_id: string;
  source: Branch;
  target: Branch;
  pool: MessageLookup;
  isFileEdit: FileEditPredicate;
}

export function planRebase(input: RebaseInput): MergeOutcome {
  const { source, target, pool } = input;
  const forkIndex = commonPrefixLength(source.message_ids, target.message_ids);
  const onTarget = new Set(target.message_ids);
  const replay = source.message_ids.slice(forkIndex).filter((id) => !onTarget.has(id));
  const finish = (conflicts: MergeConflict[]): MergeOutcome => {
    const pending: PendingRebase = {
      strategy: "rebase",
      merge_id: input.merge_id,
      source_branch_id: source.id,
      target,
      replay_ids: replay,
      conflicts,
      resolutions: [],
    };
    return conflicts.length > 0
      ? { status: "conflicts", conflicts, pending }
      : completeRebase(pending, input);
  };
  // no divergence (nothing to replay, or a fast-forward): nothing can conflict
  if (replay.length === 0 || target.message_ids.length === forkIndex) return finish([]);
  return finish(
    detectRebaseConflicts({
      merge_id: input.merge_id,
      pool,
      target_ids: target.message_ids,
      fork_index: forkIndex,
      source_first_id: source.message_ids[forkIndex],
      replay_ids: replay,
      isFileEdit: input.isFileEdit,
    }),
  );
}

/**
 * Builds the result once every conflict has a resolution. Resolutions remove messages (the union
 * of what each removes); "custom" also inserts a note where the first of the conflict's source
 * messages would have been. The result is validated by finishMerge.
 */
export function completeRebase(
  pending: PendingRebase,
  context: IdsAndClock & { pool: MessageLookup },
): Extract<MergeOutcome, { status: "merged" }> {
  const byId = new Map(pending.conflicts.map((c) => [c.conflict_id, c]));
  const removed = new Set<string>();
  const notesBefore = new Map<string, ContextMessage[]>();
  const newMessages: ContextMessage[] = [];
  for (const resolution of pending.resolutions) {
    const conflict = byId.get(resolution.conflict_id);
    if (!conflict) continue;
    switch (resolution.resolution) {
      case "keep_source":
        for (const id of conflict.target_message_ids) removed.add(id);
        break;
      case "keep_target":
        for (const id of conflict.source_message_ids) removed.add(id);
        break;
      case "keep_both":
        break;
      case "custom": {
        for (const id of conflict.source_message_ids) removed.add(id);
        const note = resolutionNote(conflict, resolution, pending, context);
        newMessages.push(note);
        const anchor = conflict.source_message_ids[0] ?? "";
        notesBefore.set(anchor, [...(notesBefore.get(anchor) ?? []), note]);
        break;
      }
      default:
        resolution satisfies never;
    }
  }
  const ids: string[] = [];
  for (const id of [...pending.target.message_ids, ...pending.replay_ids]) {
    for (const note of notesBefore.get(id) ?? []) ids.push(note.id);
    if (!removed.has(id)) ids.push(id);
  }
  return finishMerge({
    merge_id: pending.merge_id,
    strategy: "rebase",
    source_branch_id: pending.source_branch_id,
    target: pending.target,
    message_ids: ids,
    newMessages,
    pool: context.pool,
    now: context.now,
    warnings: [],
  });
}

function resolutionNote(
  conflict: MergeConflict,
  resolution: Extract<ConflictResolution, { resolution: "custom" }>,
  pending: PendingRebase,
  clock: IdsAndClock,
): ContextMessage {
  const at = clock.now();
  return {
    id: clock.newId(),
    session_id: pending.target.session_id,
    role: "system",
    body: {
      message_type: "system_control",
      kind: "notice",
      text: resolution.text,
      data: {
        merge_id: pending.merge_id,
        conflict_id: conflict.conflict_id,
        conflict_kind: conflict.kind,
        source_branch_id: pending.source_branch_id,
        replaced_source_message_ids: conflict.source_message_ids,
      },
    },
    status: "complete",
    created_at: at,
    completed_at: at,
  };
}
