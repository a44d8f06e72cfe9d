import type { ToolCallContent } from "../../model/llm-messages.js";
import type { ApprovalStatus } from "../../model/message-types.js";
import type { ApprovalPolicy } from "../../model/session-config.js";
import { isPlanTool } from "../plan-act.js";

// Approval policies (context-manager "Tool Auto-Loop Execution"). A policy decides, when the model
// asks for tool calls, which run at once (approval "auto_approved") and which wait for a person
// (approval "pending"). The decision is written into the stored tool_request, so a pending
// approval survives a restart; the loop's approval gate then answers from the stored approvals
// (see `verdictFromApproval`).
//
// - auto_approve_all: every call runs.
// - manual: every call waits.
// - white_list(tools): listed tools run, the others wait.
// - limited_auto{max_depth}: every call runs, but the auto-loop stops after `max_depth` tool
//   rounds (Paused{auto_loop_limit}; the Session enforces the depth before the next model call).
// present_plan / ask_question are never held: they only turn into Plan / Question messages.

export function initialApproval(policy: ApprovalPolicy, toolName: string): ApprovalStatus {
  if (isPlanTool(toolName)) return "auto_approved";
  switch (policy.type) {
    case "auto_approve_all":
    case "limited_auto":
      return "auto_approved";
    case "manual":
      return "pending";
    case "white_list":
      return policy.tools.includes(toolName) ? "auto_approved" : "pending";
    default:
      return policy satisfies never;
  }
}

/** The approval note recorded with an automatic decision. */
export function approvalNote(policy: ApprovalPolicy): string {
  return `policy ${policy.type}`;
}

/** The auto-loop depth limit of a policy; undefined when it has none. */
export function maxAutoLoopDepth(policy: ApprovalPolicy): number | undefined {
  return policy.type === "limited_auto" ? policy.max_depth : undefined;
}

/**
 * "Remember" on an approval adds the tool to a white list: a white_list policy gains the tool;
 * manual becomes white_list([tool]); auto_approve_all and limited_auto already run every call and
 * stay as they are.
 */
export function rememberTool(policy: ApprovalPolicy, toolName: string): ApprovalPolicy {
  switch (policy.type) {
    case "white_list":
      return policy.tools.includes(toolName)
        ? policy
        : { type: "white_list", tools: [...policy.tools, toolName] };
    case "manual":
      return { type: "white_list", tools: [toolName] };
    case "auto_approve_all":
    case "limited_auto":
      return policy;
    default:
      return policy satisfies never;
  }
}

export const DENIED_RESULT_TEXT = "The user denied this tool call.";

export type GateVerdict = "run" | "deny" | "defer";

export function verdictFromApproval(approval: ApprovalStatus): GateVerdict {
  switch (approval) {
    case "approved":
    case "auto_approved":
      return "run";
    case "denied":
      return "deny";
    case "pending":
      return "defer";
    default:
      return approval satisfies never;
  }
}

/** Convenience for tests and callers that want a policy's view of a whole round. */
export function approvalsFor(
  policy: ApprovalPolicy,
  calls: readonly Pick<ToolCallContent, "id" | "name">[],
): Record<string, ApprovalStatus> {
  return Object.fromEntries(calls.map((call) => [call.id, initialApproval(policy, call.name)]));
}
