import { z } from "zod";
import type { ContextMessage } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import type { MessagePayload } from "../../protocol/requests.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { sessionToolResultRow } from "./agent-rows.js";
import { approvalFor, DENIED_RESULT_TEXT } from "./approval-policy.js";
import type { Change, StoredSession } from "./stored-session.js";
import { OperationRejected } from "./stored-session.js";

// Workflows: a tool call the user makes directly (the `workflow` payload) instead of asking the
// model. It goes through the same gate as a model's call (docs/decisions/0008): the tool must be
// one the model is offered in the current mode (`offered`), its parameters must fit the tool's
// schema, and the approval policy decides whether it runs at once or waits for the user. The call
// is stored as a tool_request of role "user" with that decision; the agent loop then continues
// from it exactly as from a model's tool_request (run-driver.ts approvalGate: a pending call moves
// the session to AwaitingToolApproval, an approved one runs, and the model continues from its
// result). A workflow the user denies gets a denied result and the session returns to Idle
// without a model call (`denyWorkflow`).

export type WorkflowPayload = Extract<MessagePayload, { type: "workflow" }>;

/**
 * Stores the workflow's call (Idle → ProcessingUserMessage → ParsingToolCalls, one write) with
 * the policy's approval. Refuses, storing nothing, a tool not offered in this mode (plan mode's
 * bash, say), an unknown one, and parameters the tool's schema rejects.
 */
export async function storeWorkflowCall(
  core: StoredSession,
  payload: WorkflowPayload,
  offered: readonly AnyAgentTool[],
  extra: Pick<ContextMessage, "client_metadata"> = {},
): Promise<void> {
  const name = payload.workflow;
  const tool = offered.find((t) => t.name === name);
  if (!tool) {
    const known = core.tools.some((t) => t.name === name);
    throw new OperationRejected(
      "invalid_request",
      known
        ? `workflow "${name}" is not offered in ${core.config.agent_mode} mode`
        : `unknown workflow "${name}" (known: ${offered.map((t) => t.name).join(", ") || "none"})`,
    );
  }
  const params = payload.parameters ?? {};
  const parsed = tool.parameters.safeParse(params);
  if (!parsed.success) {
    throw new OperationRejected(
      "invalid_request",
      `invalid parameters for workflow "${name}": ${z.prettifyError(parsed.error)}`,
    );
  }
  const first = approvalFor(core.config, { name, arguments: params }, (n) =>
    offered.some((t) => t.name === n && t.category === "read"),
  );
  const approval = first.approval;
  const now = core.nowIso();
  const requestId = core.newId();
  const request: ContextMessage = {
    id: requestId,
    session_id: core.id,
    role: "user",
    status: "complete",
    created_at: now,
    completed_at: now,
    ...extra,
    body: {
      message_type: "tool_request",
      text: payload.display_text ?? "",
      thinking: [],
      calls: [
        {
          id: `workflow_${requestId}`,
          name,
          arguments: params,
          approval,
          ...(first.note !== undefined ? { approval_note: first.note } : {}),
        },
      ],
    },
  };
  const branchId = core.activeBranchId;
  const processing = { type: "ProcessingUserMessage" } as const;
  // plan mode never enters the tool execution states: its (read-only) workflow researches
  const parsing: ContextState =
    core.config.agent_mode === "plan"
      ? { type: "ResearchingPlan", tool_names: [name], tools_executed: 0 }
      : { type: "ParsingToolCalls" };
  await core.commit({
    states: [processing, parsing],
    write: {
      messages: [request],
      branch_appends: [{ branch_id: branchId, message_ids: [requestId] }],
    },
    events: [
      core.contextUpdateEvent(processing, core.state, undefined, { workflow: name }),
      core.contextUpdateEvent(parsing, processing),
      ...core.messageEvents(request, branchId, parsing),
    ],
  });
}

/** Whether `request` is a workflow's call (the user's own tool_request). */
export function isWorkflowRequest(request: ContextMessage | undefined): boolean {
  return request?.role === "user" && request.body.message_type === "tool_request";
}

/**
 * The user denied their own workflow: its calls get denied results and the session returns to
 * Idle (AwaitingToolApproval → Idle); the model is not asked, since nothing was asked of it.
 * `write` carries the decisions (and any policy change) into the same store write.
 */
export async function denyWorkflow(
  core: StoredSession,
  request: ContextMessage,
  write: Pick<NonNullable<Change["write"]>, "message_updates" | "session">,
  metadata: Record<string, unknown>,
): Promise<void> {
  if (request.body.message_type !== "tool_request") return;
  const now = core.nowIso();
  const results = request.body.calls.map((call) =>
    sessionToolResultRow({ id: core.newId(), sessionId: core.id, now }, request, call, {
      text: DENIED_RESULT_TEXT,
      status: "denied",
    }),
  );
  const branchId = core.activeBranchId;
  const idle = { type: "Idle" } as const;
  await core.commit({
    states: [idle],
    write: {
      ...write,
      messages: results,
      branch_appends: [{ branch_id: branchId, message_ids: results.map((r) => r.id) }],
    },
    events: [
      core.contextUpdateEvent(idle, core.state, undefined, metadata),
      ...results.flatMap((r) => core.messageEvents(r, branchId, idle)),
    ],
  });
}
