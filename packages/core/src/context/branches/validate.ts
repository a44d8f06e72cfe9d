import type { Branch } from "../../model/branch.js";
import type { MessageLookup } from "./types.js";

// Branch integrity (spec "Post-merge validation"): every id is valid, every referenced message is
// in the pool, and the order is logical.
//
// "Logical order" means DEPENDENCY order, not time order: a tool_result comes after the
// tool_request it answers, answers a call that request made, and no call is answered twice.
// Timestamps are deliberately not checked: a rebase or append places messages created earlier on
// another branch after newer ones, and that is a correct result.
//
// A tool_request with unanswered calls followed by other messages is only a warning: the provider
// adapters send a synthetic "no result" for such calls, and a branch forked or picked mid-turn
// legitimately looks like this. Everything else is an error; errors make a branch unusable.

export type BranchProblemKind =
  | "unknown_message"
  | "duplicate_message"
  | "foreign_session"
  | "missing_tool_request"
  | "result_before_request"
  | "unknown_tool_call"
  | "duplicate_tool_result"
  | "unanswered_tool_call";

export type ProblemSeverity = "error" | "warning";

export const PROBLEM_SEVERITY: Readonly<Record<BranchProblemKind, ProblemSeverity>> = {
  unknown_message: "error",
  duplicate_message: "error",
  foreign_session: "error",
  missing_tool_request: "error",
  result_before_request: "error",
  unknown_tool_call: "error",
  duplicate_tool_result: "error",
  unanswered_tool_call: "warning",
};

export interface BranchProblem {
  kind: BranchProblemKind;
  severity: ProblemSeverity;
  /** the message at fault */
  message_id: string;
  /** the message (or tool call id) it depends on, where there is one */
  related_id?: string;
  /** position of message_id in the branch's list */
  index: number;
  description: string;
}

/** All problems of a branch, in list order. Linear in the branch length; reads each message once. */
export function validateBranch(branch: Branch, pool: MessageLookup): BranchProblem[] {
  const ids = branch.message_ids;
  const problems: BranchProblem[] = [];
  const add = (
    kind: BranchProblemKind,
    index: number,
    description: string,
    related_id?: string,
  ): void => {
    const message_id = ids[index] as string;
    problems.push({
      kind,
      severity: PROBLEM_SEVERITY[kind],
      message_id,
      index,
      description,
      ...(related_id === undefined ? {} : { related_id }),
    });
  };

  const firstIndex = new Map<string, number>();
  ids.forEach((id, i) => {
    if (!firstIndex.has(id)) firstIndex.set(id, i);
  });

  const answered = new Set<string>();
  /** request id → results of it placed after it */
  const resultsAfter = new Map<string, number>();
  ids.forEach((id, i) => {
    if (firstIndex.get(id) !== i) {
      add("duplicate_message", i, `message ${id} appears more than once`);
      return;
    }
    const message = pool(id);
    if (!message) {
      add("unknown_message", i, `message ${id} is not in the pool`);
      return;
    }
    if (message.session_id !== branch.session_id) {
      add("foreign_session", i, `message ${id} belongs to session ${message.session_id}`);
    }
    const body = message.body;
    if (body.message_type !== "tool_result") return;
    const requestIndex = firstIndex.get(body.request_id);
    const request = requestIndex === undefined ? undefined : pool(body.request_id);
    if (requestIndex === undefined || !request || request.body.message_type !== "tool_request") {
      add(
        "missing_tool_request",
        i,
        `tool result ${id} answers ${body.request_id}, which is not a tool request on this branch`,
        body.request_id,
      );
      return;
    }
    if (requestIndex > i) {
      add(
        "result_before_request",
        i,
        `tool result ${id} comes before its tool request ${body.request_id}`,
        body.request_id,
      );
      return;
    }
    if (!request.body.calls.some((c) => c.id === body.tool_call_id)) {
      add(
        "unknown_tool_call",
        i,
        `tool result ${id} answers call ${body.tool_call_id}, which request ${body.request_id} did not make`,
        body.tool_call_id,
      );
      return;
    }
    if (answered.has(body.tool_call_id)) {
      add(
        "duplicate_tool_result",
        i,
        `tool call ${body.tool_call_id} is answered more than once`,
        body.tool_call_id,
      );
      return;
    }
    answered.add(body.tool_call_id);
    resultsAfter.set(body.request_id, (resultsAfter.get(body.request_id) ?? 0) + 1);
  });

  ids.forEach((id, i) => {
    if (firstIndex.get(id) !== i) return;
    const body = pool(id)?.body;
    if (body?.message_type !== "tool_request") return;
    const laterMessages = ids.length - 1 - i;
    if (laterMessages <= (resultsAfter.get(id) ?? 0)) return; // still waiting for its results
    for (const call of body.calls) {
      if (!answered.has(call.id)) {
        add(
          "unanswered_tool_call",
          i,
          `tool call ${call.id} (${call.name}) has no result although the conversation went on`,
          call.id,
        );
      }
    }
  });
  problems.sort((a, b) => a.index - b.index);
  return problems;
}

export function hasErrors(problems: readonly BranchProblem[]): boolean {
  return problems.some((p) => p.severity === "error");
}
