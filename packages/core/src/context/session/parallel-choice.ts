import { z } from "zod";
import type { Branch } from "../../model/branch.js";
import type { ContextMessage } from "../../model/message-types.js";
import { OperationRejected, type StoredSession } from "./stored-session.js";

// Ask N ways, after the verdict: the person takes another candidate's answer (issue #27, case 9).
// The verdict notice on the active branch records each candidate's branch (parallel-answers.ts);
// choosing candidate c swaps what follows the user's message between the active branch and c's
// branch, in ONE write: the active branch goes on with a new notice and c's answer, and c's branch
// keeps the answer chosen before (with whatever followed it). Both stay ordinary branches, so the
// ‹ 1/N › switcher and the graph still show every answer. Messages are never changed: the old
// notice stays in the pool, off both branches.

const StoredVerdictSchema = z.object({
  group_id: z.string(),
  selected: z.number().int().nonnegative(),
  reason: z.string().optional(),
  candidates: z.array(
    z.object({ index: z.number().int().nonnegative(), label: z.string(), branch_id: z.string() }),
  ),
});

/** What choosing did: the candidate now chosen and, per candidate, the branch keeping its answer. */
export interface ParallelChoice {
  group_id: string;
  selected: number;
  branch_ids: string[];
  /** the new verdict notice on the active branch */
  notice_id: string;
}

/** The suffix an ask-N-ways branch is named with (parallel-answers.ts names them so). */
function candidateBranchName(label: string, count: number): string {
  return `${label} (asked ${count} ways)`;
}

export async function chooseParallelAnswerOp(
  core: StoredSession,
  groupId: string,
  candidate: number,
): Promise<ParallelChoice> {
  if (core.state.type !== "Idle") {
    throw new OperationRejected(
      "invalid_transition",
      `choosing an answer needs the session to be Idle (it is ${core.state.type})`,
    );
  }
  const active = core.activeBranch();
  const at = active.message_ids.findIndex((id) => {
    const body = core.pool.get(id)?.body;
    return (
      body?.message_type === "system_control" &&
      StoredVerdictSchema.safeParse(body.data?.parallel).data?.group_id === groupId
    );
  });
  const notice = core.pool.get(active.message_ids[at] ?? "");
  const parsed =
    notice?.body.message_type === "system_control"
      ? StoredVerdictSchema.safeParse(notice.body.data?.parallel)
      : undefined;
  if (notice === undefined || parsed?.success !== true) {
    throw new OperationRejected(
      "invalid_request",
      `group_id: no answers asked ${groupId} ways are on the current branch`,
    );
  }
  const verdict = parsed.data;
  const count = verdict.candidates.length;
  const wanted = verdict.candidates.find((c) => c.index === candidate);
  if (wanted === undefined) {
    throw new OperationRejected(
      "invalid_request",
      `candidate: there are candidates 0 to ${count - 1}, not ${candidate}`,
    );
  }
  const branchIds = verdict.candidates.map((c) => c.branch_id);
  if (candidate === verdict.selected) {
    return { group_id: groupId, selected: candidate, branch_ids: branchIds, notice_id: notice.id };
  }
  const other = core.branches.get(wanted.branch_id);
  const prefix = active.message_ids.slice(0, at);
  if (
    other === undefined ||
    other.id === active.id ||
    other.message_ids.length < prefix.length ||
    prefix.some((id, i) => other.message_ids[i] !== id)
  ) {
    throw new OperationRejected(
      "invalid_request",
      `candidate: the branch that kept ${wanted.label}'s answer was deleted or changed`,
    );
  }
  const before = verdict.candidates.find((c) => c.index === verdict.selected);
  const beforeLabel = before?.label ?? `Candidate ${verdict.selected + 1}`;
  const now = core.nowIso();
  const swapped = verdict.candidates.map((c) =>
    c.index === candidate
      ? { ...c, branch_id: active.id }
      : c.index === verdict.selected
        ? { ...c, branch_id: other.id }
        : c,
  );
  const judged = verdict.reason ? ` (${beforeLabel} was chosen first: ${verdict.reason})` : "";
  const chosen: ContextMessage = {
    id: core.newId(),
    session_id: core.id,
    role: "system",
    body: {
      message_type: "system_control",
      kind: "notice",
      text: `Asked ${count} ways; you chose ${wanted.label}${judged}`,
      data: {
        parallel: {
          ...(notice.body.message_type === "system_control"
            ? (notice.body.data?.parallel as Record<string, unknown>)
            : {}),
          ...verdict,
          selected: candidate,
          chosen_by: "person",
          candidates: swapped,
        },
      },
    },
    status: "complete",
    created_at: now,
    completed_at: now,
  };
  const nextActive: Branch = {
    ...structuredClone(active),
    message_ids: [...prefix, chosen.id, ...other.message_ids.slice(prefix.length)],
    updated_at: now,
  };
  const nextOther: Branch = {
    ...structuredClone(other),
    message_ids: [...prefix, ...active.message_ids.slice(at + 1)],
    updated_at: now,
  };
  // the branch is named for the answer it keeps, unless the person renamed it
  const taken = new Set([...core.branches.values()].map((b) => b.name));
  const renamed = candidateBranchName(beforeLabel, count);
  if (other.name === candidateBranchName(wanted.label, count) && !taken.has(renamed)) {
    nextOther.name = renamed;
  }
  await core.commit({
    write: { messages: [chosen], branches: [nextActive, nextOther] },
    events: [
      core.contextUpdateEvent(core.state, undefined, undefined, {
        parallel_group: groupId,
        parallel_chosen: candidate,
        branch_updated: other.id,
      }),
      ...core.messageEvents(chosen, active.id, core.state),
    ],
  });
  return {
    group_id: groupId,
    selected: candidate,
    branch_ids: swapped.map((c) => c.branch_id),
    notice_id: chosen.id,
  };
}
