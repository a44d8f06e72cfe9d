import {
  type BranchListResponse,
  type BranchProblem,
  MergeConflictSchema,
  type MergeReport,
  type MergeResponse,
  type MergeWarning,
  MergeWarningSchema,
  pendingMergeSummary,
  type SearchResponse,
  type Session,
  type SessionDetail,
  type SessionSearchHit,
} from "@arbor/core";

// The JSON answers built from a session and from the typed results of its operations, here
// rather than in each route handler.

export function sessionDetail(session: Session): SessionDetail {
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

export function branchList(session: Session): BranchListResponse {
  return { active_branch_id: session.activeBranchId, branches: session.branches };
}

/** A finding of the post-merge validation as a wire warning. */
function problemWarning(problem: BranchProblem): MergeWarning {
  return {
    kind: "validation",
    message_id: problem.message_id,
    problem: problem.kind,
    description: problem.description,
  };
}

/**
 * The MergeResponse body of a merge or resolve operation's report. Warnings and conflicts go
 * through their wire schemas: the body has the schema's fields, in the schema's order.
 */
export function mergeResponse(report: MergeReport): MergeResponse {
  const { merge_id, status } = report;
  const wire = (warnings: readonly MergeWarning[]) =>
    warnings.map((w) => MergeWarningSchema.parse(w));
  switch (report.status) {
    case "merged":
      return {
        merge_id,
        status,
        warnings: wire([...report.warnings, ...report.problems.map(problemWarning)]),
      };
    case "needs_confirmation":
      return { merge_id, status, warnings: wire(report.warnings) };
    case "conflicts": {
      const conflicts = report.conflicts.map((c) => MergeConflictSchema.parse(c));
      return { merge_id, status, warnings: [], conflicts };
    }
    case "cancelled":
      return { merge_id, status };
    default:
      return report satisfies never;
  }
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
