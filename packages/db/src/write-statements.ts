import type { SessionWrite } from "@arbor/core";
import type { Tx } from "./database.js";
import { Prisma } from "./generated/sqlite/client.js";
import type { MessageRow } from "./rows.js";

// The statements every write runs, as SQL: reserving the session's counters, inserting events,
// messages and branch entries, appending to a branch. They are the hot path of a streaming answer
// (a write per batch of chunks), and Prisma's query builder costs about twice what the SQL itself
// does here (~0.4 ms a statement), so these few are written out. The SQL is the same on SQLite
// and PostgreSQL: quoted identifiers, `RETURNING`, multi-row VALUES, placeholders rendered by
// Prisma per provider. Column names are the schema's @map names (prisma/schema.prisma).

/** Rows per INSERT: far below both databases' parameter limits (SQLite 32766, PostgreSQL 65535). */
const ROWS_PER_INSERT = 500;

export interface ReservedSession {
  activeBranchId: string;
  lastMessagePosition: number;
  lastEventSequence: number;
}

/**
 * Updates the session row (its patch, updated_at, touched) and reserves `messages` positions and
 * `events` sequences by incrementing the counters in the same statement, which takes the row's
 * lock (SQLite: the write lock). Returns the new counters; undefined when the session is missing.
 */
export async function reserveSession(
  tx: Tx,
  sessionId: string,
  patch: NonNullable<SessionWrite["session"]>,
  counts: { messages: number; events: number },
  changed: { at: string; touched: bigint },
): Promise<ReservedSession | undefined> {
  const sets = [
    Prisma.sql`"updated_at" = ${changed.at}`,
    Prisma.sql`"touched" = ${changed.touched}`,
    Prisma.sql`"last_message_position" = "last_message_position" + ${counts.messages}`,
    Prisma.sql`"last_event_sequence" = "last_event_sequence" + ${counts.events}`,
  ];
  if (patch.title !== undefined) sets.push(Prisma.sql`"title" = ${patch.title}`);
  if (patch.config !== undefined) sets.push(Prisma.sql`"config" = ${JSON.stringify(patch.config)}`);
  if (patch.state !== undefined) {
    sets.push(Prisma.sql`"state" = ${JSON.stringify(patch.state)}`);
    sets.push(Prisma.sql`"state_type" = ${patch.state.type}`);
  }
  if (patch.active_branch_id !== undefined) {
    sets.push(Prisma.sql`"active_branch_id" = ${patch.active_branch_id}`);
  }
  if (patch.pending_merges !== undefined) {
    sets.push(Prisma.sql`"pending_merges" = ${JSON.stringify(patch.pending_merges)}`);
  }
  const rows = await tx.$queryRaw<
    Array<{
      active_branch_id: string;
      last_message_position: unknown;
      last_event_sequence: unknown;
    }>
  >`UPDATE "sessions" SET ${Prisma.join(sets, ", ")} WHERE "id" = ${sessionId}
    RETURNING "active_branch_id", "last_message_position", "last_event_sequence"`;
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    activeBranchId: row.active_branch_id,
    lastMessagePosition: Number(row.last_message_position),
    lastEventSequence: Number(row.last_event_sequence),
  };
}

/** Reserves `count` positions at the end of a branch; the new last position, undefined if missing. */
export async function reserveBranchPositions(
  tx: Tx,
  sessionId: string,
  branchId: string,
  count: number,
  at: string,
): Promise<number | undefined> {
  const rows = await tx.$queryRaw<Array<{ last_position: unknown }>>`UPDATE "branches"
    SET "updated_at" = ${at}, "last_position" = "last_position" + ${count}
    WHERE "session_id" = ${sessionId} AND "id" = ${branchId}
    RETURNING "last_position"`;
  const row = rows[0];
  return row === undefined ? undefined : Number(row.last_position);
}

async function insertRows(
  tx: Tx,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<unknown>>,
): Promise<void> {
  const head = Prisma.raw(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")})`);
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const values = rows
      .slice(start, start + ROWS_PER_INSERT)
      .map((row) => Prisma.sql`(${Prisma.join(row as unknown[])})`);
    await tx.$executeRaw`${head} VALUES ${Prisma.join(values)}`;
  }
}

export interface EventRow {
  sequence: number;
  name: string;
  /** the payload's JSON */
  payload: string;
}

/** The columns a message row is inserted with (here and by the direct SQLite path). */
export const MESSAGE_COLUMNS = [
  "session_id",
  "id",
  "position",
  "role",
  "type",
  "payload",
  "status",
  "created_at",
  "completed_at",
  "meta",
  "usage_input",
  "usage_output",
  "usage_cache_read",
  "usage_cache_write",
  "usage_total_tokens",
  "usage_cost_usd",
] as const;

/** The columns an event row is inserted with. */
export const EVENT_COLUMNS = ["session_id", "sequence", "name", "payload", "created_at"] as const;

export function insertEvents(
  tx: Tx,
  sessionId: string,
  events: readonly EventRow[],
  at: string,
): Promise<void> {
  return insertRows(
    tx,
    "events",
    EVENT_COLUMNS,
    events.map((e) => [sessionId, e.sequence, e.name, e.payload, at]),
  );
}

export function insertMessages(tx: Tx, rows: readonly MessageRow[]): Promise<void> {
  return insertRows(
    tx,
    "messages",
    MESSAGE_COLUMNS,
    rows.map((r) => [
      r.sessionId,
      r.id,
      r.position,
      r.role,
      r.type,
      r.payload,
      r.status,
      r.createdAt,
      r.completedAt,
      r.meta,
      r.usageInput,
      r.usageOutput,
      r.usageCacheRead,
      r.usageCacheWrite,
      r.usageTotalTokens,
      r.usageCostUsd,
    ]),
  );
}

export function insertBranchEntries(
  tx: Tx,
  sessionId: string,
  branchId: string,
  entries: ReadonlyArray<{ position: number; messageId: string }>,
): Promise<void> {
  return insertRows(
    tx,
    "branch_messages",
    ["session_id", "branch_id", "position", "message_id"],
    entries.map((e) => [sessionId, branchId, e.position, e.messageId]),
  );
}
