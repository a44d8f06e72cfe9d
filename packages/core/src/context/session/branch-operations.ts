import type { Branch, MergeStrategyName, PipelineConfig } from "../../model/branch.js";
import type {
  MergeConflict,
  MergeDecision,
  MergeOutcome,
  MergeWarning,
  PendingMerge,
} from "../../model/merge-types.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import { MAX_TEXT_CHARS } from "../../protocol/requests.js";
import { TELEMETRY_NAMES } from "../../telemetry/names.js";
import { inSpan } from "../../telemetry/spans.js";
import { createBranch, deleteBranch, forkForEdit, switchBranch } from "../branches/branch-ops.js";
import { BranchOpError } from "../branches/errors.js";
import { planMerge, resolveMerge } from "../branches/merge.js";
import { type BranchProblem, validateBranch } from "../branches/validate.js";
import { OperationRejected, RESTING_STATES, type StoredSession } from "./stored-session.js";

// Branch operations over the pure functions of context/branches: each is ONE store write with
// its states (Idle → SwitchingBranch → Idle, Idle → Merging → Idle). Merges that stop for the
// caller (cherry-pick warnings, rebase conflicts) are stored with the session row
// (pending_merges) until resolved, proceeded or cancelled, so another instance or a restarted one
// can finish them; their warnings and conflicts go out in a stored event's metadata and in the
// operation's MergeReport.

function ids(core: StoredSession) {
  return { newId: () => core.newId(), now: () => core.nowIso() };
}

function lookup(core: StoredSession) {
  return (id: string) => core.pool.get(id);
}

function requireIdle(core: StoredSession, what: string): void {
  if (core.state.type !== "Idle") {
    throw new OperationRejected(
      "invalid_transition",
      `${what} needs the session to be Idle (it is ${core.state.type})`,
    );
  }
}

async function switchTo(
  core: StoredSession,
  target: Branch,
  extra: { branches?: Branch[]; messages?: ContextMessage[] },
  metadata: Record<string, unknown>,
): Promise<void> {
  const switching: ContextState = {
    type: "SwitchingBranch",
    from: core.activeBranchId,
    to: target.id,
  };
  const idle: ContextState = { type: "Idle" };
  await core.commit({
    states: [switching, idle],
    write: {
      ...(extra.branches ? { branches: extra.branches } : {}),
      ...(extra.messages ? { messages: extra.messages } : {}),
      session: { active_branch_id: target.id },
    },
    events: [
      core.contextUpdateEvent(switching, core.state, undefined, metadata),
      ...(extra.messages ?? []).flatMap((m) => core.messageEvents(m, target.id, switching)),
      core.contextUpdateEvent(idle, switching, undefined, metadata),
    ],
  });
}

/** Forks the active branch after `fromMessageId` and makes the new branch active. */
export async function createBranchOp(
  core: StoredSession,
  fromMessageId: string,
  name?: string,
): Promise<Branch> {
  requireIdle(core, "creating a branch");
  const branch = createBranch({
    ...ids(core),
    pool: lookup(core),
    from: core.activeBranch(),
    fromMessageId,
    existing: [...core.branches.values()],
    ...(name !== undefined ? { name } : {}),
  });
  await switchTo(core, branch, { branches: [branch] }, { branch_created: branch.id });
  return branch;
}

export async function switchBranchOp(core: StoredSession, branchId: string): Promise<void> {
  requireIdle(core, "switching branches");
  if (branchId === core.activeBranchId) return;
  const { branch, warnings } = switchBranch({
    branches: [...core.branches.values()],
    branchId,
    pool: lookup(core),
  });
  await switchTo(core, branch, {}, { warnings: warnings.map((w) => w.description) });
}

export async function deleteBranchOp(core: StoredSession, branchId: string): Promise<void> {
  requireIdle(core, "deleting a branch");
  const result = deleteBranch({
    branches: [...core.branches.values()],
    branchId,
    activeBranchId: core.activeBranchId,
    now: () => core.nowIso(),
  });
  await core.commit({
    write: { branches: result.updated, deleted_branch_ids: [branchId] },
    events: [
      core.contextUpdateEvent(core.state, undefined, undefined, { branch_deleted: branchId }),
    ],
  });
}

/** What updateBranchOp changes; null clears an override (back to the session's / the default). */
export interface BranchPatch {
  name?: string;
  system_prompt?: string | null;
  pipeline?: PipelineConfig | null;
}

/**
 * Renames a branch or sets its own system prompt / pipeline: one store write of that branch
 * only, so every other branch stays as it was. The pipeline is checked against the processor
 * registry first (an unknown name would fail the branch's next message). Allowed in any resting
 * state; the change applies from the branch's next request.
 */
export async function updateBranchOp(
  core: StoredSession,
  branchId: string,
  patch: BranchPatch,
): Promise<Branch> {
  if (!RESTING_STATES.has(core.state.type)) {
    throw new OperationRejected(
      "invalid_transition",
      `changing a branch needs the session to be at rest (it is ${core.state.type})`,
    );
  }
  const branch = core.branches.get(branchId);
  if (!branch) throw new BranchOpError({ code: "unknown_branch", branch_id: branchId });
  const next: Branch = structuredClone(branch);
  if (patch.name !== undefined) {
    const name = patch.name.trim();
    if (name === "") throw new OperationRejected("invalid_request", "name: the name is empty");
    const taken = [...core.branches.values()].some((b) => b.id !== branchId && b.name === name);
    if (taken) {
      throw new OperationRejected("invalid_request", `name: a branch is already called ${name}`);
    }
    next.name = name;
  }
  if (patch.system_prompt !== undefined) {
    if (patch.system_prompt === null || patch.system_prompt.trim() === "")
      delete next.system_prompt;
    else next.system_prompt = patch.system_prompt;
  }
  if (patch.pipeline !== undefined) {
    if (patch.pipeline === null) delete next.pipeline;
    else {
      const composed = core.deps.processors.compose(patch.pipeline);
      if (!composed.ok) {
        throw new OperationRejected("invalid_request", `pipeline.processors: ${composed.error}`);
      }
      next.pipeline = { processors: [...patch.pipeline.processors] };
    }
  }
  next.updated_at = core.nowIso();
  await core.commit({
    write: { branches: [next] },
    events: [
      core.contextUpdateEvent(core.state, undefined, undefined, { branch_updated: branchId }),
    ],
  });
  return next;
}

/** The fork of an edit: a new branch ending in the edited message (stored), made active. */
export async function forkForEditOp(
  core: StoredSession,
  messageId: string,
  newText: string,
): Promise<ContextMessage> {
  requireIdle(core, "editing a message");
  if (newText.trim() === "") throw new OperationRejected("invalid_request", "the message is empty");
  if (newText.length > MAX_TEXT_CHARS) {
    throw new OperationRejected(
      "invalid_request",
      `the message is longer than ${MAX_TEXT_CHARS} characters`,
    );
  }
  const { branch, message } = forkForEdit({
    ...ids(core),
    pool: lookup(core),
    branch: core.activeBranch(),
    messageId,
    newText,
    existing: [...core.branches.values()],
  });
  await switchTo(
    core,
    branch,
    { branches: [branch], messages: [message] },
    { edited_message_id: messageId },
  );
  return message;
}

/**
 * The fork of a regenerate: a new branch ending at the user's message that `messageId` answers
 * (the nearest user message at or before it), made active, so the model answers it again. The
 * earlier answer stays on the branch it was on.
 */
export async function forkForRegenerateOp(
  core: StoredSession,
  messageId: string,
): Promise<ContextMessage> {
  requireIdle(core, "regenerating an answer");
  const ids = core.activeBranch().message_ids;
  const index = ids.indexOf(messageId);
  if (index < 0) {
    throw new OperationRejected(
      "invalid_request",
      `message ${messageId} is not on the active branch`,
    );
  }
  const prompt = ids.slice(0, index + 1).findLast((id) => core.pool.get(id)?.role === "user");
  if (prompt === undefined) {
    throw new OperationRejected("invalid_request", "there is no message of yours to answer again");
  }
  if (prompt === ids.at(-1)) {
    throw new OperationRejected("invalid_request", "that message has no answer to regenerate yet");
  }
  await createBranchOp(core, prompt);
  return core.pool.get(prompt) as ContextMessage;
}

export interface MergeInput {
  source_branch_id: string;
  target_branch_id: string;
  strategy: MergeStrategyName;
  message_ids?: string[];
}

/**
 * What a merge operation reports. Its last event's metadata says the same (`reportMetadata`, the
 * shape SSE clients read); callers of the operation read these fields.
 */
export type MergeReport =
  | {
      status: "merged";
      merge_id: string;
      added: string[];
      removed: string[];
      warnings: MergeWarning[];
      /** findings of the post-merge validation */
      problems: BranchProblem[];
    }
  | { status: "needs_confirmation"; merge_id: string; warnings: MergeWarning[] }
  | { status: "conflicts"; merge_id: string; conflicts: MergeConflict[] }
  | { status: "cancelled"; merge_id: string };

/** A report as its event's metadata (unchanged on the wire: warnings and problems together). */
function reportMetadata(report: MergeReport): Record<string, unknown> {
  switch (report.status) {
    case "merged": {
      const { problems, warnings, ...rest } = report;
      return { ...rest, warnings: [...warnings, ...problems] };
    }
    case "needs_confirmation":
      return { ...report, conflicts: [] };
    case "conflicts":
      return {
        status: report.status,
        merge_id: report.merge_id,
        warnings: [],
        conflicts: report.conflicts,
      };
    case "cancelled":
      return { merge_id: report.merge_id, status: report.status };
    default:
      return report satisfies never;
  }
}

function branchOf(core: StoredSession, id: string): Branch {
  const branch = core.branches.get(id);
  if (!branch) throw new OperationRejected("invalid_request", `branch ${id} does not exist`);
  return branch;
}

/** The session's pending merges with `merge` set (or `mergeId` removed), for the session write. */
function pendingAfter(
  core: StoredSession,
  change: { set: PendingMerge } | { remove: string },
): PendingMerge[] {
  const next = new Map(core.pendingMerges);
  if ("set" in change) next.set(change.set.merge_id, change.set);
  else next.delete(change.remove);
  return [...next.values()];
}

async function applyOutcome(
  core: StoredSession,
  outcome: MergeOutcome,
  strategy: string,
): Promise<MergeReport> {
  switch (outcome.status) {
    case "merged": {
      const { result } = outcome;
      const created = new Map(result.newMessages.map((m) => [m.id, m]));
      // post-merge validation of what is about to be stored
      const problems = validateBranch(result.target, (id) => created.get(id) ?? core.pool.get(id));
      const report: MergeReport = {
        status: "merged",
        merge_id: result.merge_id,
        added: result.added_message_ids,
        removed: result.removed_message_ids,
        warnings: outcome.warnings,
        problems,
      };
      const merging: ContextState = { type: "Merging", strategy };
      const idle: ContextState = { type: "Idle" };
      await core.commit({
        states: [merging, idle],
        write: {
          messages: result.newMessages,
          branches: [result.target],
          session: { pending_merges: pendingAfter(core, { remove: result.merge_id }) },
        },
        events: [
          core.contextUpdateEvent(merging, core.state, undefined, { merge_id: result.merge_id }),
          core.contextUpdateEvent(idle, merging, undefined, reportMetadata(report)),
        ],
      });
      return report;
    }
    case "needs_confirmation":
    case "conflicts": {
      const merge_id = outcome.pending.merge_id;
      const report: MergeReport =
        outcome.status === "needs_confirmation"
          ? { status: outcome.status, merge_id, warnings: outcome.warnings }
          : { status: outcome.status, merge_id, conflicts: outcome.conflicts };
      // stored, so any instance (or this one after a restart) can resolve it
      await core.commit({
        write: { session: { pending_merges: pendingAfter(core, { set: outcome.pending }) } },
        events: [core.contextUpdateEvent(core.state, undefined, undefined, reportMetadata(report))],
      });
      return report;
    }
    case "cancelled": {
      const report: MergeReport = { status: "cancelled", merge_id: outcome.merge_id };
      await core.commit({
        write: { session: { pending_merges: pendingAfter(core, { remove: outcome.merge_id }) } },
        events: [core.contextUpdateEvent(core.state, undefined, undefined, reportMetadata(report))],
      });
      return report;
    }
    default:
      return outcome satisfies never;
  }
}

export async function mergeOp(core: StoredSession, input: MergeInput): Promise<MergeReport> {
  requireIdle(core, "merging");
  const outcome = planMerge({
    ...ids(core),
    strategy: input.strategy,
    source: branchOf(core, input.source_branch_id),
    target: branchOf(core, input.target_branch_id),
    pool: lookup(core),
    ...(input.message_ids ? { messageIds: input.message_ids } : {}),
  });
  return mergeSpan(core, input.source_branch_id, input.target_branch_id, input.strategy, () =>
    applyOutcome(core, outcome, input.strategy),
  );
}

/** A merge as a span of its own (telemetry/): which branches, how, and what came of it. */
function mergeSpan(
  core: StoredSession,
  source: string,
  target: string,
  strategy: string,
  apply: () => Promise<MergeReport>,
): Promise<MergeReport> {
  const names = TELEMETRY_NAMES.attributes;
  return inSpan(
    TELEMETRY_NAMES.spans.branchMerge,
    {
      [names.conversationId]: core.id,
      [names.branchSource]: source,
      [names.branchTarget]: target,
      [names.branchStrategy]: strategy,
    },
    async (span) => {
      const report = await apply();
      if (span.isRecording()) span.setAttribute(names.branchMergeStatus, report.status);
      return report;
    },
  );
}

export async function resolveMergeOp(
  core: StoredSession,
  mergeId: string,
  decision: MergeDecision,
): Promise<MergeReport> {
  requireIdle(core, "resolving a merge");
  const open = core.pendingMerges.get(mergeId);
  if (!open) throw new OperationRejected("invalid_request", `merge ${mergeId} is not pending`);
  const outcome = resolveMerge({
    ...ids(core),
    pending: open,
    decision,
    target: branchOf(core, open.target.id),
    pool: lookup(core),
  });
  return mergeSpan(core, open.source_branch_id, open.target.id, open.strategy, () =>
    applyOutcome(core, outcome, open.strategy),
  );
}
