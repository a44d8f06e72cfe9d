import type { ContextMessage } from "./message-types.js";
import type { MessageLifecycleUpdate } from "./session-records.js";

// The one place that knows how a lifecycle update applies to a message. The message pool and
// every store use it, so "content never changes, only status / approvals / completed_at / meta
// move on" is enforced by the same code everywhere.

export type LifecycleUpdateError =
  | { kind: "approvals_on_non_tool_request"; message_id: string; message_type: string }
  | { kind: "unknown_tool_call"; message_id: string; tool_call_id: string };

export type LifecycleUpdateResult =
  | { ok: true; message: ContextMessage }
  | { ok: false; error: LifecycleUpdateError };

export function describeLifecycleUpdateError(error: LifecycleUpdateError): string {
  switch (error.kind) {
    case "approvals_on_non_tool_request":
      return `message ${error.message_id} is a ${error.message_type} message; only tool_request messages have approvals`;
    case "unknown_tool_call":
      return `message ${error.message_id} has no tool call ${error.tool_call_id}`;
    default:
      return error satisfies never;
  }
}

/**
 * Returns a NEW message with the update applied; `message` is not modified. Everything that is not
 * touched keeps its identity (the body object is reused unless approvals change), so applying an
 * update to a frozen message is cheap and leaves content shared.
 * `meta` replaces the stored meta field by field (shallow merge), so a status change can add
 * usage without restating the model.
 */
export function applyLifecycleUpdate(
  message: ContextMessage,
  update: MessageLifecycleUpdate,
): LifecycleUpdateResult {
  let body = message.body;
  if (update.approvals !== undefined && Object.keys(update.approvals).length > 0) {
    if (body.message_type !== "tool_request") {
      return {
        ok: false,
        error: {
          kind: "approvals_on_non_tool_request",
          message_id: message.id,
          message_type: body.message_type,
        },
      };
    }
    const known = new Set(body.calls.map((call) => call.id));
    for (const toolCallId of Object.keys(update.approvals)) {
      if (!known.has(toolCallId)) {
        return {
          ok: false,
          error: { kind: "unknown_tool_call", message_id: message.id, tool_call_id: toolCallId },
        };
      }
    }
    const approvals = update.approvals;
    body = {
      ...body,
      calls: body.calls.map((call) => {
        const decision = approvals[call.id];
        if (decision === undefined) return call;
        const next = { ...call, approval: decision.approval };
        if (decision.approval_note !== undefined) next.approval_note = decision.approval_note;
        if (decision.decided_by !== undefined) next.decided_by = decision.decided_by;
        return next;
      }),
    };
  }
  const next: ContextMessage = { ...message, body };
  if (update.status !== undefined) next.status = update.status;
  if (update.completed_at !== undefined) next.completed_at = update.completed_at;
  if (update.meta !== undefined) next.meta = { ...message.meta, ...update.meta };
  return { ok: true, message: next };
}
