import { costOfUsage } from "../../llm/pricing.js";
import type { AssistantMessage, ToolResultMessage } from "../../model/llm-messages.js";
import type {
  ApprovalStatus,
  ContextMessage,
  ToolResultStatus,
} from "../../model/message-types.js";
import { withCost } from "../../model/usage-cost.js";
import {
  ASK_QUESTION,
  type PlanToolDetails,
  PRESENT_PLAN,
  planBodyFromCall,
  questionBodyFromCall,
} from "../plan-act.js";

// The runtime's messages → stored ContextMessage rows (the other direction is
// to-agent-messages.ts). Rows are built complete: content never changes once stored.
// - an assistant answer without tool calls → text (role assistant);
// - with tool calls → tool_request (prose, thinking, calls with their initial approvals);
// - a tool result → tool_result (request_id = the tool_request row's id), except the results of
//   present_plan / ask_question, which become Plan / Question messages.

export interface RowContext {
  id: string;
  sessionId: string;
  now: string;
  loopId: string;
}

function assistantMeta(message: AssistantMessage, loopId: string): ContextMessage["meta"] {
  const meta: NonNullable<ContextMessage["meta"]> = {
    model: message.model,
    provider: message.provider,
    stop_reason: message.stopReason,
    loop_id: loopId,
  };
  const cost = costOfUsage(message.usage, message.model);
  meta.usage = withCost(message.usage, cost ?? null);
  if (cost !== undefined) meta.cost_usd = cost;
  if (message.errorMessage !== undefined) meta.error_message = message.errorMessage;
  return meta;
}

export function textOf(message: AssistantMessage): string {
  return message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

export function hasToolCalls(message: AssistantMessage): boolean {
  return message.content.some((b) => b.type === "toolCall");
}

/** An assistant answer as a row; `status` is complete for a finished answer, incomplete when cut off. */
export function assistantRow(
  message: AssistantMessage,
  ctx: RowContext,
  status: "complete" | "incomplete" | "failed",
  approvalOf: (toolName: string, args: Record<string, unknown>) => ApprovalStatus,
): ContextMessage {
  const base = {
    id: ctx.id,
    session_id: ctx.sessionId,
    role: "assistant" as const,
    status,
    created_at: ctx.now,
    meta: assistantMeta(message, ctx.loopId),
    ...(status === "complete" ? { completed_at: ctx.now } : {}),
  };
  const calls = message.content.flatMap((b) => (b.type === "toolCall" ? [b] : []));
  if (calls.length === 0) {
    return { ...base, body: { message_type: "text", text: textOf(message) } };
  }
  return {
    ...base,
    body: {
      message_type: "tool_request",
      text: textOf(message),
      thinking: message.content.flatMap((b) =>
        b.type === "thinking"
          ? [
              b.signature !== undefined
                ? { thinking: b.thinking, signature: b.signature }
                : { thinking: b.thinking },
            ]
          : [],
      ),
      calls: calls.map((call) => ({
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        approval: approvalOf(call.name, call.arguments),
      })),
    },
  };
}

function isPlanDetails(details: unknown): details is PlanToolDetails {
  if (typeof details !== "object" || details === null) return false;
  const kind = (details as { kind?: unknown }).kind;
  return kind === "plan" || kind === "question";
}

/**
 * A tool result as a row. `args` are the call's arguments (for plan/question bodies when the
 * tool's details are missing); `approval` the call's stored approval (a denied call's error
 * result is stored with status "denied").
 */
export function toolResultRow(
  result: ToolResultMessage,
  ctx: RowContext & { requestId: string },
  call: { arguments: Record<string, unknown>; approval: ApprovalStatus } | undefined,
): ContextMessage {
  const base = {
    id: ctx.id,
    session_id: ctx.sessionId,
    status: "complete" as const,
    created_at: ctx.now,
    completed_at: ctx.now,
  };
  if (!result.isError && (result.toolName === PRESENT_PLAN || result.toolName === ASK_QUESTION)) {
    const details = isPlanDetails(result.details) ? result.details : undefined;
    if (details?.kind === "plan") return { ...base, role: "assistant", body: details.plan };
    if (details?.kind === "question") return { ...base, role: "assistant", body: details.question };
    const fromCall = {
      id: result.toolCallId,
      name: result.toolName,
      arguments: call?.arguments ?? {},
    };
    const parsed =
      result.toolName === PRESENT_PLAN
        ? planBodyFromCall(fromCall)
        : questionBodyFromCall(fromCall);
    if (parsed.ok) return { ...base, role: "assistant", body: parsed.body };
  }
  const status: ToolResultStatus = !result.isError
    ? "success"
    : call?.approval === "denied"
      ? "denied"
      : result.cancelled
        ? "cancelled"
        : "error";
  return {
    ...base,
    role: "tool",
    body: {
      message_type: "tool_result",
      request_id: ctx.requestId,
      tool_call_id: result.toolCallId,
      tool_name: result.toolName,
      content: result.content,
      status,
      ...(result.details !== undefined ? { details: result.details } : {}),
    },
    ...(result.usage !== undefined ? { meta: toolMeta(result, ctx.loopId) } : {}),
  };
}

/**
 * A tool that spent model usage itself (a sub-agent's child loop): the row carries it, so the
 * session's usage (the stores' sums) includes it, with its child loop's id and model.
 */
function toolMeta(result: ToolResultMessage, loopId: string): ContextMessage["meta"] {
  const meta: NonNullable<ContextMessage["meta"]> = { loop_id: loopId };
  if (result.usage === undefined) return meta;
  if (result.childLoopId !== undefined) meta.child_loop_id = result.childLoopId;
  const model = result.model ?? (result.details as { model?: unknown } | undefined)?.model;
  const cost = typeof model === "string" ? costOfUsage(result.usage, model) : undefined;
  meta.usage = withCost(result.usage, cost ?? null);
  if (typeof model === "string") meta.model = model;
  if (cost !== undefined) meta.cost_usd = cost;
  return meta;
}

/**
 * A result the session stores itself for a call of `request` that did not run to its own end: a
 * call the user denied, one a crash cut off. An error to the model, like any failed call.
 */
export function sessionToolResultRow(
  ctx: Omit<RowContext, "loopId">,
  request: ContextMessage,
  call: { id: string; name: string },
  result: { text: string; status: ToolResultStatus },
): ContextMessage {
  return {
    id: ctx.id,
    session_id: ctx.sessionId,
    role: "tool",
    status: "complete",
    created_at: ctx.now,
    completed_at: ctx.now,
    body: {
      message_type: "tool_result",
      request_id: request.id,
      tool_call_id: call.id,
      tool_name: call.name,
      content: [{ type: "text", text: result.text }],
      status: result.status,
    },
    ...(request.meta?.loop_id ? { meta: { loop_id: request.meta.loop_id } } : {}),
  };
}
