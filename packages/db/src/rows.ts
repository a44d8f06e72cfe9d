import type { Branch, ContextMessage, LoopRecord, OptimizationView } from "@arbor/core";
import { personRef, UsageSchema } from "@arbor/core/storage";
import { z } from "zod";
import type { Prisma } from "./generated/sqlite/client.js";

// Conversions between the core's objects and table rows. Writing is total (the core's types are
// trusted on the way in); reading goes through zod in load-session.ts, because rows on disk may
// be old or damaged.

export type MessageRow = Prisma.MessageModel;
export type ApprovalRow = Prisma.ToolApprovalModel;
export type BranchRow = Prisma.BranchModel;
export type ViewRow = Prisma.OptimizationViewModel;

/** Message type column of a row in the format before message types (see core context/legacy.ts). */
export const LEGACY_TYPE = "legacy";

function usageColumns(message: Pick<ContextMessage, "meta">) {
  const usage = message.meta?.usage;
  return {
    usageInput: usage?.input ?? null,
    usageOutput: usage?.output ?? null,
    usageCacheRead: usage?.cacheRead ?? null,
    usageCacheWrite: usage?.cacheWrite ?? null,
    usageTotalTokens: usage?.totalTokens ?? null,
    usageCostUsd: message.meta?.cost_usd ?? null,
  };
}

/**
 * The meta column: ContextMessage.meta JSON, plus the user message's client_metadata under
 * CLIENT_METADATA_KEY (kept there rather than in a column of its own: it is written once, read
 * back whole, and never queried). load-session.ts takes it back out.
 */
export const CLIENT_METADATA_KEY = "client_metadata";

function metaColumn(message: Pick<ContextMessage, "meta" | "client_metadata">): string | null {
  if (message.client_metadata === undefined) {
    return message.meta === undefined ? null : JSON.stringify(message.meta);
  }
  return JSON.stringify({ ...message.meta, [CLIENT_METADATA_KEY]: message.client_metadata });
}

/** The lifecycle columns: the only message columns that ever change. */
export function lifecycleColumns(message: ContextMessage) {
  return {
    status: message.status,
    completedAt: message.completed_at ?? null,
    meta: metaColumn(message),
    ...usageColumns(message),
  };
}

export function messageRow(message: ContextMessage, position: number): MessageRow {
  return {
    sessionId: message.session_id,
    id: message.id,
    position,
    role: message.role,
    type: message.body.message_type,
    payload: JSON.stringify(message.body),
    createdAt: message.created_at,
    ...lifecycleColumns(message),
  };
}

/** One row per tool call of a tool_request: its approval, pending until decided. */
export function approvalRows(message: ContextMessage, at: string): ApprovalRow[] {
  if (message.body.message_type !== "tool_request") return [];
  return message.body.calls.map((call, callIndex) => ({
    sessionId: message.session_id,
    messageId: message.id,
    toolCallId: call.id,
    callIndex,
    toolName: call.name,
    approval: call.approval,
    approvalNote: call.approval_note ?? null,
    decidedAt: call.approval === "pending" ? null : at,
    decidedBy: call.decided_by ? JSON.stringify(personRef(call.decided_by)) : null,
  }));
}

/** Puts the stored approvals back on a tool_request body (the payload keeps the first ones). */
export function withApprovals(body: unknown, approvals: readonly ApprovalRow[]): unknown {
  if (approvals.length === 0 || typeof body !== "object" || body === null) return body;
  const calls = (body as { calls?: unknown }).calls;
  if (!Array.isArray(calls)) return body;
  const byId = new Map(approvals.map((row) => [row.toolCallId, row]));
  return {
    ...body,
    calls: calls.map((call: unknown) => {
      if (typeof call !== "object" || call === null) return call;
      const row = byId.get(String((call as { id?: unknown }).id));
      if (row === undefined) return call;
      const {
        approval_note: _dropped,
        decided_by: _decider,
        ...rest
      } = call as Record<string, unknown>;
      // a row decided before decided_by existed (null) keeps what the payload says, if anything
      const decider = row.decidedBy === null ? _decider : parseJsonOrText(row.decidedBy);
      return {
        ...rest,
        approval: row.approval,
        ...(row.approvalNote === null ? {} : { approval_note: row.approvalNote }),
        ...(decider === undefined ? {} : { decided_by: decider }),
      };
    }),
  };
}

/** A JSON column's value; text that is not JSON as it is (the message's zod parse rejects it). */
function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function branchRow(branch: Branch, ordinal: number) {
  return {
    sessionId: branch.session_id,
    id: branch.id,
    ordinal,
    name: branch.name,
    parentBranchId: branch.parent_branch_id,
    forkMessageId: branch.fork_message_id,
    systemPrompt: branch.system_prompt ?? null,
    pipeline: branch.pipeline === undefined ? null : JSON.stringify(branch.pipeline),
    mergedFrom: JSON.stringify(branch.merged_from),
    createdAt: branch.created_at,
    updatedAt: branch.updated_at,
  };
}

export function viewRow(view: OptimizationView, ordinal: number): ViewRow {
  return {
    sessionId: view.session_id,
    id: view.id,
    ordinal,
    branchId: view.branch_id,
    createdAt: view.created_at,
    strategy: view.strategy,
    tokensBefore: view.tokens_before,
    tokensAfter: view.tokens_after,
    messagesBefore: view.messages_before,
    messagesAfter: view.messages_after,
    summaries: JSON.stringify(view.summaries),
    dropped: JSON.stringify(view.dropped),
  };
}

export const OptimizationViewSchema = z.object({
  id: z.string().min(1),
  session_id: z.string().min(1),
  branch_id: z.string().min(1),
  created_at: z.string(),
  strategy: z.string(),
  tokens_before: z.number().int(),
  tokens_after: z.number().int(),
  messages_before: z.number().int(),
  messages_after: z.number().int(),
  summaries: z.array(z.object({ summary_message_id: z.string(), replaces: z.array(z.string()) })),
  dropped: z.array(z.string()),
});

export function loopRow(record: LoopRecord, ordinal: bigint) {
  return {
    sessionId: record.sessionId,
    loopId: record.loopId,
    agentId: record.agentId,
    parentLoopId: record.parentLoopId ?? null,
    continuationKind: record.continuationKind?.type ?? null,
    status: record.status,
    startedAt: record.startedAt,
    endedAt: record.endedAt ?? null,
    durationMs: record.durationMs ?? null,
    turns: record.turns,
    usage: JSON.stringify(UsageSchema.parse(record.usage)),
    childLoopIds: JSON.stringify(record.childLoopIds),
    record: JSON.stringify(record),
    ordinal,
  };
}

/** JSON.parse that reports instead of throwing. */
export function parseJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: `payload is not JSON: ${(error as Error).message}` };
  }
}

/** "field.path: message; …" like core's legacy.ts, so corrupt-row errors name the field. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length === 0 ? "(root)" : i.path.join(".")}: ${i.message}`)
    .join("; ");
}
