import type { ToolCallContent } from "../../model/llm-messages.js";
import type { ApprovalStatus } from "../../model/message-types.js";
import {
  BASH_TOOL,
  bashCommandOf,
  formatPermissionRule,
  matchingRule,
  parsePermissionRule,
  ruleAllows,
} from "../../model/permission-rules.js";
import type { ApprovalPolicy, SessionConfig } from "../../model/session-config.js";
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
//
// Two session settings narrow "waits" further (issue #27 case 2, `approvalFor`): with
// `approve_read_only` (default on) a read-only tool's call runs at once, and a bash call that one
// of `allow_rules` allows (`Bash(npm test:*)`, permission-rules.ts) runs at once. Such a call is
// stored as auto_approved with a note naming the rule, so "who decided" stays answerable.

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

/** The note of a call the `approve_read_only` setting let through. */
export const READ_ONLY_RULE_NOTE = "rule approve_read_only";

/** What the gate decides for a call before any person sees it, and the rule that decided. */
export interface FirstDecision {
  approval: ApprovalStatus;
  /** set when the call runs at once: the policy or rule that let it through */
  note?: string;
}

/**
 * The decision for a call as it is stored: the policy first (a call it lets through is noted with
 * the policy), then `approve_read_only` for tools `isReadOnly` says are read-only (the
 * classification `tool_execution` uses: category "read"), then the session's `allow_rules`.
 * Anything else waits for a person.
 */
export function approvalFor(
  config: Pick<SessionConfig, "approval_policy" | "approve_read_only" | "allow_rules">,
  call: { name: string; arguments: Record<string, unknown> },
  isReadOnly: (toolName: string) => boolean,
): FirstDecision {
  const policy = config.approval_policy;
  if (initialApproval(policy, call.name) === "auto_approved") {
    return isPlanTool(call.name)
      ? { approval: "auto_approved" }
      : { approval: "auto_approved", note: approvalNote(policy) };
  }
  if (config.approve_read_only && isReadOnly(call.name)) {
    return { approval: "auto_approved", note: READ_ONLY_RULE_NOTE };
  }
  const rule = matchingRule(config.allow_rules, call.name, call.arguments);
  if (rule !== undefined) return { approval: "auto_approved", note: `rule ${rule}` };
  return { approval: "pending" };
}

/**
 * The names of the tools `approve_read_only` lets run without asking: the read-only tools among
 * `tools` (category "read", as tool-execution.ts), except OpenAPI operations. A `GET` of an
 * OpenAPI spec reads, but it carries the spec's credential to another host, and the card that
 * says where the key goes is there for a person to read: those calls always ask.
 */
export function readOnlyNames(
  tools: readonly { name: string; category?: string; origin?: { kind: string } | undefined }[],
): Set<string> {
  return new Set(
    tools.filter((t) => t.category === "read" && t.origin?.kind !== "openapi").map((t) => t.name),
  );
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

/** The settings an approval's "remember" may change. */
export type RememberedSettings = Pick<SessionConfig, "approval_policy" | "allow_rules">;

/**
 * What an approval remembers: with `rule`, that scoped rule (it must allow the call approved, so
 * approving one call never allows an unrelated command); with `remember` on a bash call, the
 * rule for its exact command (bash is never put on the white list whole); with `remember` on any
 * other tool, the white list gains it (rememberTool). `args` undefined: the call's arguments are
 * not at hand (a call held in a fold or sub-agent), so a bash call remembers nothing and a rule
 * is refused. Returns the settings unchanged when nothing is remembered, an error for a rule that
 * does not fit.
 */
export function rememberApproval(
  settings: RememberedSettings,
  call: { name: string; arguments: Record<string, unknown> | undefined },
  decision: { remember?: boolean | undefined; rule?: string | undefined },
): { ok: true; settings: RememberedSettings } | { ok: false; error: string } {
  const addRule = (rule: string): RememberedSettings =>
    settings.allow_rules.includes(rule)
      ? settings
      : { ...settings, allow_rules: [...settings.allow_rules, rule] };
  if (decision.rule !== undefined) {
    const parsed = parsePermissionRule(decision.rule);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    if (call.arguments === undefined || !ruleAllows(parsed.rule, call.name, call.arguments)) {
      return { ok: false, error: `the rule ${decision.rule} does not allow this call` };
    }
    return { ok: true, settings: addRule(formatPermissionRule(parsed.rule)) };
  }
  if (decision.remember !== true) return { ok: true, settings };
  if (call.name === BASH_TOOL) {
    const command = call.arguments && bashCommandOf(call.name, call.arguments)?.trim();
    if (!command) return { ok: true, settings };
    return {
      ok: true,
      settings: addRule(formatPermissionRule({ kind: "exact", tool: BASH_TOOL, command })),
    };
  }
  const policy = rememberTool(settings.approval_policy, call.name);
  return {
    ok: true,
    settings:
      policy === settings.approval_policy ? settings : { ...settings, approval_policy: policy },
  };
}

export const DENIED_RESULT_TEXT = "The user denied this tool call.";

/** The note of a person's decision; a denial may carry the reason they typed. */
export function userNote(reason?: string): string {
  const trimmed = reason?.trim();
  return trimmed ? `user: ${trimmed}` : "user";
}

/**
 * What the model receives for a denied call: DENIED_RESULT_TEXT, and the person's reason when
 * they gave one (stored in the call's approval note by `userNote`).
 */
export function deniedResultText(note: string | undefined): string {
  if (note?.startsWith("user: ")) {
    return `${DENIED_RESULT_TEXT} The user's reason: ${note.slice("user: ".length)}`;
  }
  return DENIED_RESULT_TEXT;
}

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
