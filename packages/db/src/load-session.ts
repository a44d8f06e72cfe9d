import type {
  Branch,
  ContextMessage,
  CorruptRow,
  LoadedSession,
  OptimizationView,
  PendingMerge,
  SessionRecord,
} from "@arbor/core";
import {
  BranchSchema,
  ContextStateSchema,
  fromStoredMessages,
  PendingMergeSchema,
  SessionConfigSchema,
  StoreError,
} from "@arbor/core/storage";
import { z } from "zod";
import type { Tx } from "./database.js";
import type { Prisma } from "./generated/sqlite/client.js";
import {
  type ApprovalRow,
  CLIENT_METADATA_KEY,
  describeZodError,
  LEGACY_TYPE,
  type MessageRow,
  OptimizationViewSchema,
  parseJson,
  withApprovals,
} from "./rows.js";

// Reading a session back. Every row goes through the core's zod schemas. A row that does not
// parse is reported as a CorruptRow (session, table, row id, the zod message naming the field)
// and left out; everything else still loads. A corrupt session row throws StoreError "invalid":
// without its config and state nothing else can be trusted.

export function parseSessionRow(row: Prisma.SessionModel): SessionRecord {
  const config = parseJson(row.config);
  const state = parseJson(row.state);
  const parsedConfig = config.ok ? SessionConfigSchema.safeParse(config.value) : undefined;
  const parsedState = state.ok ? ContextStateSchema.safeParse(state.value) : undefined;
  const problem = !config.ok
    ? `config: ${config.error}`
    : !state.ok
      ? `state: ${state.error}`
      : parsedConfig?.success === false
        ? `config: ${describeZodError(parsedConfig.error)}`
        : parsedState?.success === false
          ? `state: ${describeZodError(parsedState.error)}`
          : undefined;
  if (problem !== undefined || !parsedConfig?.success || !parsedState?.success) {
    throw new StoreError("invalid", `session ${row.id} is corrupt (${problem})`);
  }
  return {
    id: row.id,
    title: row.title,
    config: parsedConfig.data,
    state: parsedState.data,
    active_branch_id: row.activeBranchId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** The session row's pending merges; ones that do not parse are reported and left out. */
function parsePendingMerges(row: Prisma.SessionModel, corrupt: CorruptRow[]): PendingMerge[] {
  const json = parseJson(row.pendingMerges);
  const parsed = json.ok ? z.array(PendingMergeSchema).safeParse(json.value) : undefined;
  if (parsed?.success) return parsed.data;
  const error = parsed === undefined ? (json.ok ? "" : json.error) : describeZodError(parsed.error);
  corrupt.push({
    session_id: row.id,
    table: "session",
    row_id: row.id,
    error: `pending_merges: ${error}`,
  });
  return [];
}

/** The object a message row stands for, before validation; or why it cannot be read at all. */
function rawMessage(
  row: MessageRow,
  approvals: readonly ApprovalRow[],
): { ok: true; value: unknown } | { ok: false; error: string } {
  const payload = parseJson(row.payload);
  if (!payload.ok) return payload;
  // an old-format row holds the whole old message; core's legacy.ts converts it
  if (row.type === LEGACY_TYPE) return payload;
  const body = payload.value;
  const bodyType =
    typeof body === "object" && body !== null ? Reflect.get(body, "message_type") : undefined;
  if (bodyType !== row.type) {
    return {
      ok: false,
      error: `body.message_type: the row is a ${row.type} message but its payload says ${String(bodyType)}`,
    };
  }
  let meta: unknown;
  let clientMetadata: unknown;
  if (row.meta !== null) {
    const parsed = parseJson(row.meta);
    if (!parsed.ok) return { ok: false, error: `meta: ${parsed.error}` };
    meta = parsed.value;
    // the user message's client_metadata travels in the meta column (rows.ts metaColumn)
    if (typeof meta === "object" && meta !== null && CLIENT_METADATA_KEY in meta) {
      const { [CLIENT_METADATA_KEY]: stored, ...rest } = meta as Record<string, unknown>;
      clientMetadata = stored;
      meta = Object.keys(rest).length > 0 ? rest : undefined;
    }
  }
  return {
    ok: true,
    value: {
      id: row.id,
      session_id: row.sessionId,
      role: row.role,
      body: withApprovals(body, approvals),
      status: row.status,
      created_at: row.createdAt,
      ...(row.completedAt === null ? {} : { completed_at: row.completedAt }),
      ...(meta === undefined ? {} : { meta }),
      ...(clientMetadata === undefined ? {} : { client_metadata: clientMetadata }),
    },
  };
}

export function parseMessageRows(
  sessionId: string,
  rows: readonly MessageRow[],
  approvals: readonly ApprovalRow[],
  corrupt: CorruptRow[],
): ContextMessage[] {
  const approvalsByMessage = new Map<string, ApprovalRow[]>();
  for (const row of approvals) {
    const list = approvalsByMessage.get(row.messageId);
    if (list === undefined) approvalsByMessage.set(row.messageId, [row]);
    else list.push(row);
  }
  const raws: unknown[] = [];
  const rowOfRaw: MessageRow[] = [];
  for (const row of rows) {
    const raw = rawMessage(row, approvalsByMessage.get(row.id) ?? []);
    if (!raw.ok) {
      corrupt.push({ session_id: sessionId, table: "message", row_id: row.id, error: raw.error });
      continue;
    }
    raws.push(raw.value);
    rowOfRaw.push(row);
  }
  // in pool order, so old tool results find the old tool requests before them
  const { messages, errors } = fromStoredMessages(raws, sessionId);
  for (const { index, error } of errors) {
    corrupt.push({
      session_id: sessionId,
      table: "message",
      row_id: rowOfRaw[index]!.id,
      error,
    });
  }
  return messages;
}

export function parseBranchRow(
  row: Prisma.BranchModel,
  messageIds: string[],
): { ok: true; branch: Branch } | { ok: false; error: string } {
  const pipeline =
    row.pipeline === null ? { ok: true as const, value: undefined } : parseJson(row.pipeline);
  if (!pipeline.ok) return { ok: false, error: `pipeline: ${pipeline.error}` };
  const mergedFrom = parseJson(row.mergedFrom);
  if (!mergedFrom.ok) return { ok: false, error: `merged_from: ${mergedFrom.error}` };
  const parsed = BranchSchema.safeParse({
    id: row.id,
    session_id: row.sessionId,
    name: row.name,
    parent_branch_id: row.parentBranchId,
    fork_message_id: row.forkMessageId,
    message_ids: messageIds,
    ...(row.systemPrompt === null ? {} : { system_prompt: row.systemPrompt }),
    ...(pipeline.value === undefined ? {} : { pipeline: pipeline.value }),
    merged_from: mergedFrom.value,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  });
  return parsed.success
    ? { ok: true, branch: parsed.data }
    : { ok: false, error: describeZodError(parsed.error) };
}

export function parseViewRow(
  row: Prisma.OptimizationViewModel,
): { ok: true; view: OptimizationView } | { ok: false; error: string } {
  const summaries = parseJson(row.summaries);
  if (!summaries.ok) return { ok: false, error: `summaries: ${summaries.error}` };
  const dropped = parseJson(row.dropped);
  if (!dropped.ok) return { ok: false, error: `dropped: ${dropped.error}` };
  const parsed = OptimizationViewSchema.safeParse({
    id: row.id,
    session_id: row.sessionId,
    branch_id: row.branchId,
    created_at: row.createdAt,
    strategy: row.strategy,
    tokens_before: row.tokensBefore,
    tokens_after: row.tokensAfter,
    messages_before: row.messagesBefore,
    messages_after: row.messagesAfter,
    summaries: summaries.value,
    dropped: dropped.value,
  });
  return parsed.success
    ? { ok: true, view: parsed.data }
    : { ok: false, error: describeZodError(parsed.error) };
}

/** Reads the whole session inside `tx` (one snapshot). */
export async function loadSessionRows(tx: Tx, id: string): Promise<LoadedSession | undefined> {
  const sessionRow = await tx.session.findUnique({ where: { id } });
  if (sessionRow === null) return undefined;
  const [messageRows, approvalRows, branchRows, entries, viewRows] = await Promise.all([
    tx.message.findMany({ where: { sessionId: id }, orderBy: { position: "asc" } }),
    tx.toolApproval.findMany({ where: { sessionId: id } }),
    tx.branch.findMany({ where: { sessionId: id }, orderBy: { ordinal: "asc" } }),
    tx.branchMessage.findMany({
      where: { sessionId: id },
      orderBy: [{ branchId: "asc" }, { position: "asc" }],
      select: { branchId: true, messageId: true },
    }),
    tx.optimizationView.findMany({ where: { sessionId: id }, orderBy: { ordinal: "asc" } }),
  ]);
  const corrupt: CorruptRow[] = [];
  const pendingMerges = parsePendingMerges(sessionRow, corrupt);
  const session: SessionRecord = {
    ...parseSessionRow(sessionRow),
    ...(pendingMerges.length > 0 ? { pending_merges: pendingMerges } : {}),
  };
  const messages = parseMessageRows(id, messageRows, approvalRows, corrupt);
  // a corrupt message's id leaves the returned branch lists, never the stored ones
  const unreadable = new Set(corrupt.map((row) => row.row_id));
  const lists = new Map<string, string[]>();
  for (const entry of entries) {
    if (unreadable.has(entry.messageId)) continue;
    const list = lists.get(entry.branchId);
    if (list === undefined) lists.set(entry.branchId, [entry.messageId]);
    else list.push(entry.messageId);
  }
  const branches: Branch[] = [];
  for (const row of branchRows) {
    const parsed = parseBranchRow(row, lists.get(row.id) ?? []);
    if (parsed.ok) branches.push(parsed.branch);
    else corrupt.push({ session_id: id, table: "branch", row_id: row.id, error: parsed.error });
  }
  const views: OptimizationView[] = [];
  for (const row of viewRows) {
    const parsed = parseViewRow(row);
    if (parsed.ok) views.push(parsed.view);
    else {
      corrupt.push({
        session_id: id,
        table: "optimization_view",
        row_id: row.id,
        error: parsed.error,
      });
    }
  }
  return { session, branches, messages, optimization_views: views, corrupt };
}
