import {
  type BranchListResponse,
  type ContextSession,
  type MergeConflict,
  MergeConflictSchema,
  type MergeResponse,
  type MergeWarning,
  MergeWarningSchema,
  pendingMergeSummary,
  type SearchResponse,
  type SessionDetail,
  type SessionEvent,
  type SessionSearchHit,
} from "@arbor/core";

// The JSON answers built from a session after an operation. Operations report through their
// events (a merge's outcome is the metadata of its last context_update, a new branch's id is in
// `branch_created`), so reading those back lives here rather than in each route handler.

export function sessionDetail(session: ContextSession): SessionDetail {
  return {
    id: session.id,
    title: session.title,
    state: session.state,
    config: session.config,
    active_branch_id: session.activeBranchId,
    branches: session.branches,
    pending_merges: session.pendingMerges.map(pendingMergeSummary),
    last_sequence: session.lastSequence,
    resume_from_sequence: session.resumeFromSequence,
  };
}

export function branchList(session: ContextSession): BranchListResponse {
  return { active_branch_id: session.activeBranchId, branches: session.branches };
}

function metadataOf(event: SessionEvent): Record<string, unknown> | undefined {
  return event.name === "context_update" ? event.payload.metadata : undefined;
}

/** The id of the branch a createBranch operation made (its `branch_created` metadata). */
export function createdBranchId(events: readonly SessionEvent[]): string | undefined {
  for (const event of events) {
    const created = metadataOf(event)?.branch_created;
    if (typeof created === "string") return created;
  }
  return undefined;
}

/** A post-merge validation finding (the core's BranchProblem) as a wire warning. */
function asWarning(value: unknown): MergeWarning | undefined {
  const parsed = MergeWarningSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  if (typeof value !== "object" || value === null) return undefined;
  const problem = value as Record<string, unknown>;
  const { message_id, kind, description } = problem;
  if (
    typeof message_id !== "string" ||
    typeof kind !== "string" ||
    typeof description !== "string"
  ) {
    return undefined;
  }
  return { kind: "validation", message_id, problem: kind, description };
}

function asConflict(value: unknown): MergeConflict | undefined {
  const parsed = MergeConflictSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const MERGE_STATUSES: readonly MergeResponse["status"][] = [
  "merged",
  "conflicts",
  "needs_confirmation",
  "cancelled",
];

/** The outcome a merge or resolve operation reported, as the MergeResponse body. */
export function mergeResponse(events: readonly SessionEvent[]): MergeResponse | undefined {
  for (const event of [...events].reverse()) {
    const metadata = metadataOf(event);
    const mergeId = metadata?.merge_id;
    const status = MERGE_STATUSES.find((s) => s === metadata?.status);
    if (metadata === undefined || typeof mergeId !== "string" || status === undefined) continue;
    const response: MergeResponse = { merge_id: mergeId, status };
    if (Array.isArray(metadata.warnings)) {
      response.warnings = metadata.warnings.flatMap((w) => asWarning(w) ?? []);
    }
    if (status === "conflicts" && Array.isArray(metadata.conflicts)) {
      response.conflicts = metadata.conflicts.flatMap((c) => asConflict(c) ?? []);
    }
    return response;
  }
  return undefined;
}

/** GET /api/search's answer from the manager's hits. */
export function searchResponse(query: string, hits: readonly SessionSearchHit[]): SearchResponse {
  return {
    query,
    results: hits.map((hit) => ({
      session_id: hit.session_id,
      session_title: hit.session_title,
      message_id: hit.message.id,
      role: hit.message.role,
      message_type: hit.message.body.message_type,
      created_at: hit.message.created_at,
      snippet: hit.snippet,
    })),
  };
}
