import type { ContextMessage } from "../../model/message-types.js";
import {
  type AgentMode,
  type SessionConfig,
  SessionConfigSchema,
} from "../../model/session-config.js";
import type { ApprovalUpdate } from "../../model/session-records.js";
import type { ContextState } from "../../model/states.js";
import type { ApprovalDecision } from "../../protocol/requests.js";
import { type RememberedSettings, rememberApproval, userNote } from "./approval-policy.js";
import { decideHeldChildCalls, heldChildCalls } from "./held-child-calls.js";
import type { RunResult } from "./run-driver.js";
import { messageFromPayload, processMessage, respond, turnSetup } from "./send-message.js";
import type { StoredSession } from "./stored-session.js";
import { OperationRejected } from "./stored-session.js";
import { denyWorkflow, isWorkflowRequest } from "./workflows.js";

// The operations that change how the session works rather than what it says: the config (and
// with it the agent mode), "approve plan and switch to Act", and the user's decisions on pending
// tool calls (which may change the approval policy through `remember`). Session queues
// them; each runs inside one operation.

export type SessionConfigPatch = Partial<Omit<SessionConfig, "agent_mode">> & {
  agent_mode?: AgentMode;
};

export const PLAN_APPROVED_TEXT = "Plan approved. Carry it out.";

/** Changes the config at once and stores it; a mode change adds a mode_change notice. */
export async function applyConfig(
  core: StoredSession,
  patch: SessionConfigPatch,
): Promise<SessionConfig> {
  const parsed = SessionConfigSchema.safeParse({ ...core.config, ...patch });
  if (!parsed.success) throw new OperationRejected("invalid_request", parsed.error.message);
  const config = parsed.data;
  const modeChanged = config.agent_mode !== core.config.agent_mode;
  // counting by the estimate alone from now on: the provider's ratio no longer applies
  if (config.optimization.token_counting === "estimate") core.tokens.reset();
  const branchId = core.activeBranchId;
  const now = core.nowIso();
  const notice: ContextMessage[] = modeChanged
    ? [
        {
          id: core.newId(),
          session_id: core.id,
          role: "system",
          status: "complete",
          created_at: now,
          completed_at: now,
          body: {
            message_type: "system_control",
            kind: "mode_change",
            text: `Switched to ${config.agent_mode === "plan" ? "Plan" : "Act"} mode.`,
            data: { from: core.config.agent_mode, to: config.agent_mode },
          },
        },
      ]
    : [];
  await core.commit({
    write: {
      session: { config },
      messages: notice,
      branch_appends:
        notice.length > 0 ? [{ branch_id: branchId, message_ids: notice.map((m) => m.id) }] : [],
    },
    events: [
      core.contextUpdateEvent(core.state, undefined, undefined, {
        config_changed: Object.keys(patch),
      }),
      ...notice.flatMap((m) => core.messageEvents(m, branchId, core.state)),
    ],
  });
  return structuredClone(config);
}

/** Stores a new title; the session rests as it was. */
export async function renameSession(core: StoredSession, title: string): Promise<void> {
  const trimmed = title.trim();
  if (trimmed === "") throw new OperationRejected("invalid_request", "a title cannot be empty");
  await core.commit({
    write: { session: { title: trimmed } },
    events: [core.contextUpdateEvent(core.state, undefined, undefined, { title_changed: trimmed })],
  });
}

/** "Approve plan and switch to Act": Act mode, then the user's approval, then the loop. */
export async function approvePlanOp(
  core: StoredSession,
  planMessageId: string,
  signal: AbortSignal,
): Promise<RunResult> {
  const plan = core.pool.get(planMessageId);
  if (
    plan?.body.message_type !== "plan" ||
    !core.activeBranch().message_ids.includes(planMessageId)
  ) {
    throw new OperationRejected(
      "invalid_request",
      `${planMessageId} is not a plan on the active branch`,
    );
  }
  if (core.state.type !== "Idle") {
    throw new OperationRejected(
      "invalid_transition",
      `cannot approve a plan in ${core.state.type}`,
    );
  }
  await applyConfig(core, { agent_mode: "act" });
  const message = messageFromPayload(core, { type: "text", text: PLAN_APPROVED_TEXT });
  const setup = await processMessage(core, message, { signal });
  if (!setup) return { type: "not_run", reason: "rolled_back" };
  return respond(core, setup, { prompt: message, signal });
}

/**
 * Records the user's decisions on pending tool calls (durable: they are stored on the
 * tool_request) and, once none is pending, continues the loop. `remember` or `rule` on an
 * approval adds the tool to the white list or a scoped bash rule to `allow_rules`
 * (approval-policy.ts `rememberApproval`), stored with the decisions; a denial's `reason` is
 * stored in its note and reaches the model with the denial.
 */
export async function decideToolCallsOp(
  core: StoredSession,
  decisions: readonly ApprovalDecision[],
  signal: AbortSignal,
): Promise<RunResult> {
  const state = core.state;
  if (state.type !== "AwaitingToolApproval") {
    throw new OperationRejected(
      "invalid_transition",
      `no tool calls are waiting (state ${state.type})`,
    );
  }
  const request = core.findToolRequest(state.pending_requests[0] ?? "");
  if (!request) {
    // calls held inside a fold or a sub-agent that a restart cut off (held-child-calls.ts)
    const held = await heldChildCalls(core);
    if (held.length === 0) {
      throw new OperationRejected("internal", "the pending tool request is missing");
    }
    const outcome = await decideHeldChildCalls(core, held, decisions, signal);
    if (outcome === "awaiting") return { type: "not_run", reason: "awaiting_decisions" };
    return respond(core, turnSetup(core), { signal });
  }
  const pending = new Set(state.pending_requests);
  let remembered: RememberedSettings = {
    approval_policy: core.config.approval_policy,
    allow_rules: core.config.allow_rules,
  };
  const approvals: Record<string, ApprovalUpdate> = {};
  for (const decision of decisions) {
    if (!pending.has(decision.tool_call_id)) {
      throw new OperationRejected(
        "invalid_request",
        `tool call ${decision.tool_call_id} is not waiting for approval`,
      );
    }
    approvals[decision.tool_call_id] = {
      approval: decision.decision === "approve" ? "approved" : "denied",
      // a denial's reason is kept in its note; the model receives it (deniedResultText)
      approval_note: userNote(decision.decision === "deny" ? decision.reason : undefined),
      decided_by: core.operator,
    };
    const call = request.calls.find((c) => c.id === decision.tool_call_id);
    if (decision.decision === "approve" && call) {
      const outcome = rememberApproval(remembered, call, decision);
      if (!outcome.ok) {
        throw new OperationRejected(
          "invalid_request",
          `tool call ${decision.tool_call_id}: ${outcome.error}`,
        );
      }
      remembered = outcome.settings;
    }
  }
  const remaining = request.calls.filter((c) => pending.has(c.id) && approvals[c.id] === undefined);
  const configChanged =
    remembered.approval_policy !== core.config.approval_policy ||
    remembered.allow_rules !== core.config.allow_rules;
  const write = {
    message_updates: [{ id: request.id, approvals }],
    ...(configChanged ? { session: { config: { ...core.config, ...remembered } } } : {}),
  };
  if (remaining.length > 0) {
    const next: ContextState = {
      type: "AwaitingToolApproval",
      pending_requests: remaining.map((c) => c.id),
      tool_names: remaining.map((c) => c.name),
    };
    await core.commit({
      states: [next],
      write,
      events: [core.contextUpdateEvent(next, core.state, undefined, { decisions: approvals })],
    });
    return { type: "not_run", reason: "awaiting_decisions" };
  }
  const requestMessage = core.pool.get(request.id);
  const allDenied = request.calls.every(
    (c) => (approvals[c.id]?.approval ?? c.approval) === "denied",
  );
  if (isWorkflowRequest(requestMessage) && allDenied && requestMessage) {
    await denyWorkflow(core, requestMessage, write, { decisions: approvals });
    return { type: "not_run", reason: "workflow_denied" };
  }
  await core.commit({
    write,
    events: [core.contextUpdateEvent(core.state, undefined, undefined, { decisions: approvals })],
  });
  return respond(core, turnSetup(core), { signal });
}
