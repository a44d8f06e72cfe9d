import type { Branch, PipelineConfig } from "../../model/branch.js";
import type { ContextMessage } from "../../model/message-types.js";
import { BranchOpError } from "./errors.js";
import type { IdsAndClock, MessageLookup } from "./types.js";
import { type BranchProblem, hasErrors, validateBranch } from "./validate.js";

// Create, edit-fork, delete and switch branches. Pure: inputs are never mutated; the Session
// persists the returned branches (and, for an edit, the one new message) in one store write.
// A branch holds message ids only, so a fork copies a prefix of ids and shares every message.

interface NewBranchOptions extends IdsAndClock {
  pool: MessageLookup;
  name?: string;
  /** the session's branches, to pick an unused default name "branch-N" */
  existing?: readonly Branch[];
  /** undefined: inherit the source's prompt; null: use the session's base prompt */
  systemPrompt?: string | null;
  /** undefined: inherit the source's pipeline; null: use the default pipeline */
  pipeline?: PipelineConfig | null;
}

export interface CreateBranchOptions extends NewBranchOptions {
  from: Branch;
  /** the fork point: the new branch holds the source's ids up to and including it */
  fromMessageId: string;
}

/** A fork of `from` after `fromMessageId`. Constant work apart from copying the id prefix. */
export function createBranch(options: CreateBranchOptions): Branch {
  const { from, fromMessageId } = options;
  const index = indexOnBranch(from, fromMessageId, options.pool);
  return newBranch(options, from, fromMessageId, from.message_ids.slice(0, index + 1));
}

export interface ForkForEditOptions extends NewBranchOptions {
  branch: Branch;
  /** the text message being edited and resent */
  messageId: string;
  newText: string;
}

/**
 * "Editing and resending a message forks too": the original message is never changed. The new
 * branch holds the ids before the edited message plus a NEW text message with the edited text
 * (same role), which the caller adds to the pool. Its fork point is the message before the edit.
 */
export function forkForEdit(options: ForkForEditOptions): {
  branch: Branch;
  message: ContextMessage;
} {
  const { branch, messageId } = options;
  const index = indexOnBranch(branch, messageId, options.pool);
  const original = options.pool(messageId) as ContextMessage;
  if (original.body.message_type !== "text") {
    throw new BranchOpError({
      code: "not_editable",
      message_id: messageId,
      message_type: original.body.message_type,
    });
  }
  const at = options.now();
  const message: ContextMessage = {
    id: options.newId(),
    session_id: original.session_id,
    role: original.role,
    body: { message_type: "text", text: options.newText },
    status: "complete",
    created_at: at,
    completed_at: at,
    // so a client can say "edited" rather than "forked" (the branch's first message)
    meta: { edited_from: messageId },
  };
  const kept = branch.message_ids.slice(0, index);
  const forkPoint = kept.at(-1) ?? null;
  return { branch: newBranch(options, branch, forkPoint, [...kept, message.id]), message };
}

export interface DeleteBranchOptions {
  branches: readonly Branch[];
  branchId: string;
  activeBranchId: string;
  now: () => string;
}

export interface DeleteBranchResult {
  /** the session's branches without the deleted one (children reparented) */
  branches: Branch[];
  deleted: Branch;
  /** children whose parent changed; persist these with the deletion */
  updated: Branch[];
}

/**
 * Deletes a branch's id list; its messages stay in the pool (other branches may hold them).
 * Children keep their own id lists, so they keep working; they are reparented to the deleted
 * branch's parent with their fork point recomputed as the last id they share with it.
 */
export function deleteBranch(options: DeleteBranchOptions): DeleteBranchResult {
  const { branches, branchId } = options;
  const deleted = branches.find((b) => b.id === branchId);
  if (!deleted) throw new BranchOpError({ code: "unknown_branch", branch_id: branchId });
  if (branchId === options.activeBranchId) {
    throw new BranchOpError({ code: "active_branch", branch_id: branchId });
  }
  if (branches.length <= 1) throw new BranchOpError({ code: "last_branch", branch_id: branchId });
  const newParent =
    deleted.parent_branch_id === null
      ? undefined
      : branches.find((b) => b.id === deleted.parent_branch_id);
  const updated: Branch[] = [];
  const remaining = branches
    .filter((b) => b.id !== branchId)
    .map((b) => {
      if (b.parent_branch_id !== branchId) return b;
      const shared = newParent ? commonPrefixLength(b.message_ids, newParent.message_ids) : 0;
      const child: Branch = {
        ...b,
        parent_branch_id: newParent?.id ?? null,
        fork_message_id: shared > 0 ? (b.message_ids[shared - 1] as string) : null,
        updated_at: options.now(),
      };
      updated.push(child);
      return child;
    });
  return { branches: remaining, deleted, updated };
}

export interface SwitchBranchOptions {
  branches: readonly Branch[];
  branchId: string;
  pool: MessageLookup;
}

/**
 * Checks that the branch exists and is usable before the Session makes it active: a branch with
 * validation errors would fail on its next request, so switching to it is refused. Warnings are
 * returned for the caller to show.
 */
export function switchBranch(options: SwitchBranchOptions): {
  branch: Branch;
  warnings: BranchProblem[];
} {
  const branch = options.branches.find((b) => b.id === options.branchId);
  if (!branch) throw new BranchOpError({ code: "unknown_branch", branch_id: options.branchId });
  const problems = validateBranch(branch, options.pool);
  if (hasErrors(problems)) {
    throw new BranchOpError({ code: "invalid_branch", branch_id: branch.id, problems });
  }
  return { branch, warnings: problems };
}

/** Number of leading ids two lists share. */
export function commonPrefixLength(a: readonly string[], b: readonly string[]): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a[i] === b[i]) i++;
  return i;
}

function indexOnBranch(branch: Branch, messageId: string, pool: MessageLookup): number {
  if (!pool(messageId)) throw new BranchOpError({ code: "unknown_message", message_id: messageId });
  const index = branch.message_ids.indexOf(messageId);
  if (index < 0) {
    throw new BranchOpError({
      code: "message_not_on_branch",
      message_id: messageId,
      branch_id: branch.id,
    });
  }
  return index;
}

function newBranch(
  options: NewBranchOptions,
  parent: Branch,
  forkMessageId: string | null,
  messageIds: string[],
): Branch {
  const at = options.now();
  const branch: Branch = {
    id: options.newId(),
    session_id: parent.session_id,
    name: options.name ?? defaultName(options.existing ?? [parent]),
    parent_branch_id: parent.id,
    fork_message_id: forkMessageId,
    message_ids: messageIds,
    merged_from: [],
    created_at: at,
    updated_at: at,
  };
  const systemPrompt =
    options.systemPrompt === undefined ? parent.system_prompt : (options.systemPrompt ?? undefined);
  const pipeline =
    options.pipeline === undefined ? parent.pipeline : (options.pipeline ?? undefined);
  // copied so a later change to the parent's pipeline object cannot reach the child
  if (systemPrompt !== undefined) branch.system_prompt = systemPrompt;
  if (pipeline !== undefined) branch.pipeline = { processors: [...pipeline.processors] };
  return branch;
}

function defaultName(existing: readonly Branch[]): string {
  const names = new Set(existing.map((b) => b.name));
  let n = existing.length + 1;
  while (names.has(`branch-${n}`)) n++;
  return `branch-${n}`;
}
