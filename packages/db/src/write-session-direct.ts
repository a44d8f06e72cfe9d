import type { SessionWrite, StoredEvent } from "@arbor/core";
import { checkExpectedSequence, StoreError } from "@arbor/core/storage";
import { isUniqueViolation } from "./failures.js";
import { approvalRows, branchRow, type loopRow, messageRow } from "./rows.js";
import type { DirectConnection } from "./sqlite-direct.js";
import { storedEvents, type WriteContext } from "./write-session.js";
import { EVENT_COLUMNS, MESSAGE_COLUMNS } from "./write-statements.js";

// The body of the hot writes on SQLite, synchronous, on statements prepared once
// (sqlite-direct.ts, docs/decisions/0020): a batch of streamed chunks (a state move and its
// events), a new message appended to a branch with its events, and (decision 0084) a write that
// also creates or rewrites branches, as ask N ways' verdict does (every other candidate's answer
// on a branch of its own). The same steps in the same order as applyWrite (write-session.ts) for
// the writes `isDirectWrite` accepts; the others (lifecycle updates, deleting branches,
// optimization views, switching the active branch, pending merges) stay on Prisma.
// Both paths pass the one store contract.

/** Whether the direct path stores this write (the shapes of the streaming hot path). */
export function isDirectWrite(write: SessionWrite): boolean {
  return (
    (write.message_updates?.length ?? 0) === 0 &&
    (write.deleted_branch_ids?.length ?? 0) === 0 &&
    (write.optimization_views?.length ?? 0) === 0 &&
    write.session?.active_branch_id === undefined &&
    write.session?.pending_merges === undefined
  );
}

const APPROVAL_COLUMNS = [
  "session_id",
  "message_id",
  "tool_call_id",
  "call_index",
  "tool_name",
  "approval",
  "approval_note",
  "decided_at",
  "decided_by",
];

const insertSql = (table: string, columns: readonly string[]) =>
  `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;

const INSERT_MESSAGE = insertSql("messages", MESSAGE_COLUMNS);
const INSERT_APPROVAL = insertSql("tool_approvals", APPROVAL_COLUMNS);
const INSERT_EVENT = insertSql("events", EVENT_COLUMNS);
const INSERT_BRANCH_ENTRY = insertSql("branch_messages", [
  "session_id",
  "branch_id",
  "position",
  "message_id",
]);
const LOOP_COLUMNS = [
  "session_id",
  "loop_id",
  "agent_id",
  "parent_loop_id",
  "continuation_kind",
  "status",
  "started_at",
  "ended_at",
  "duration_ms",
  "turns",
  "usage",
  "child_loop_ids",
  "record",
  "ordinal",
] as const;
/** A loop's record, kept in first-upsert order: a later upsert changes every column but that. */
const UPSERT_LOOP = `${insertSql("loop_records", LOOP_COLUMNS)}
  ON CONFLICT ("session_id", "loop_id") DO UPDATE SET ${LOOP_COLUMNS.filter(
    (c) => c !== "session_id" && c !== "loop_id" && c !== "ordinal",
  )
    .map((c) => `"${c}" = excluded."${c}"`)
    .join(", ")}`;
const MESSAGE_EXISTS = `SELECT 1 FROM "messages" WHERE "session_id" = ? AND "id" = ?`;
const BRANCH_COLUMNS = [
  "session_id",
  "id",
  "ordinal",
  "name",
  "parent_branch_id",
  "fork_message_id",
  "system_prompt",
  "pipeline",
  "merged_from",
  "created_at",
  "updated_at",
  "last_position",
] as const;
const INSERT_BRANCH = insertSql("branches", BRANCH_COLUMNS);
const BRANCH_EXISTS = `SELECT 1 FROM "branches" WHERE "session_id" = ? AND "id" = ?`;
const LAST_BRANCH_ORDINAL = `SELECT MAX("ordinal") FROM "branches" WHERE "session_id" = ?`;
/** a branch written again: every column but its creation order, its entries written anew */
const REWRITE_BRANCH = `UPDATE "branches" SET ${BRANCH_COLUMNS.filter(
  (c) => c !== "session_id" && c !== "id" && c !== "ordinal",
)
  .map((c) => `"${c}" = ?`)
  .join(", ")} WHERE "session_id" = ? AND "id" = ?`;
const DELETE_BRANCH_ENTRIES = `DELETE FROM "branch_messages" WHERE "session_id" = ? AND "branch_id" = ?`;
const RESERVE_BRANCH = `UPDATE "branches" SET "updated_at" = ?, "last_position" = "last_position" + ?
  WHERE "session_id" = ? AND "id" = ? RETURNING "last_position"`;

/** The session UPDATE for the patch's fields: one SQL text per combination, each prepared once. */
function reserveSql(patch: NonNullable<SessionWrite["session"]>): string {
  let sets = `"updated_at" = ?, "touched" = ?, "last_message_position" = "last_message_position" + ?, "last_event_sequence" = "last_event_sequence" + ?`;
  if (patch.title !== undefined) sets += `, "title" = ?`;
  if (patch.config !== undefined) sets += `, "config" = ?`;
  if (patch.state !== undefined) sets += `, "state" = ?, "state_type" = ?`;
  return `UPDATE "sessions" SET ${sets} WHERE "id" = ? RETURNING "last_message_position", "last_event_sequence"`;
}

function notFound(what: string): StoreError {
  return new StoreError("not_found", what);
}

/** Stores `write` (one `isDirectWrite` accepts) inside the caller's transaction; throws to undo. */
export function applyWriteDirect(
  conn: DirectConnection,
  sessionId: string,
  write: SessionWrite,
  { at, touched }: WriteContext,
): StoredEvent[] {
  const patch = write.session ?? {};
  const messages = write.messages ?? [];
  const events = write.events ?? [];

  // lock the session (the IMMEDIATE transaction holds the database's write lock already) and
  // reserve the write's message positions and event sequences
  const params: unknown[] = [at, touched, messages.length, events.length];
  if (patch.title !== undefined) params.push(patch.title);
  if (patch.config !== undefined) params.push(JSON.stringify(patch.config));
  if (patch.state !== undefined) params.push(JSON.stringify(patch.state), patch.state.type);
  params.push(sessionId);
  const reserved = conn.statement(reserveSql(patch)).raw(true).get(params) as
    | [unknown, unknown]
    | undefined;
  if (reserved === undefined) throw notFound(`session ${sessionId} not found`);
  const lastMessagePosition = Number(reserved[0]);
  const lastEventSequence = Number(reserved[1]);
  checkExpectedSequence(sessionId, write.expected_last_sequence, lastEventSequence - events.length);

  // messages first: a duplicate id is a conflict before anything else is looked at
  const incoming = new Set<string>();
  if (messages.length > 0) {
    const insert = conn.statement(INSERT_MESSAGE);
    let position = lastMessagePosition - messages.length;
    try {
      for (const message of messages) {
        incoming.add(message.id);
        const r = messageRow(message, ++position);
        insert.run(
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
        );
      }
    } catch (error) {
      // the primary key (session, id): content is immutable, an id is never written twice
      if (isUniqueViolation(error)) {
        throw new StoreError(
          "conflict",
          "a message of this write already exists; content is immutable",
          { cause: error },
        );
      }
      throw error;
    }
    const approvals = messages.flatMap((message) => approvalRows(message, at));
    if (approvals.length > 0) {
      const insertApproval = conn.statement(INSERT_APPROVAL);
      for (const a of approvals) {
        insertApproval.run(
          a.sessionId,
          a.messageId,
          a.toolCallId,
          a.callIndex,
          a.toolName,
          a.approval,
          a.approvalNote,
          a.decidedAt,
          a.decidedBy,
        );
      }
    }
  }

  // what the new branches and the appends name must be in the pool
  const branches = write.branches ?? [];
  const appends = write.branch_appends ?? [];
  const exists =
    branches.length > 0 || appends.length > 0 ? conn.statement(MESSAGE_EXISTS) : undefined;
  const checked = new Set<string>();
  for (const ids of [...branches.map((b) => b.message_ids), ...appends.map((a) => a.message_ids)]) {
    for (const id of ids) {
      if (incoming.has(id) || checked.has(id)) continue;
      if (exists?.get(sessionId, id) === undefined) {
        throw notFound(`a branch names unknown message ${id}`);
      }
      checked.add(id);
    }
  }
  // branches: a new one after the session's others (its ordinal), an existing one rewritten
  // whole; then their entries, positions 1…n
  for (const branch of branches) {
    const entries = branch.message_ids.length;
    const r = branchRow(branch, 0);
    const columns = [
      r.name,
      r.parentBranchId,
      r.forkMessageId,
      r.systemPrompt,
      r.pipeline,
      r.mergedFrom,
      r.createdAt,
      r.updatedAt,
      entries,
    ];
    if (conn.statement(BRANCH_EXISTS).get(sessionId, branch.id) !== undefined) {
      conn.statement(REWRITE_BRANCH).run(...columns, sessionId, branch.id);
      conn.statement(DELETE_BRANCH_ENTRIES).run(sessionId, branch.id);
    } else {
      const last = conn.statement(LAST_BRANCH_ORDINAL).raw(true).get(sessionId) as
        | [unknown]
        | undefined;
      const ordinal = Number(last?.[0] ?? 0) + 1;
      conn.statement(INSERT_BRANCH).run(sessionId, branch.id, ordinal, ...columns);
    }
    const insert = conn.statement(INSERT_BRANCH_ENTRY);
    let position = 0;
    for (const messageId of branch.message_ids) {
      insert.run(sessionId, branch.id, ++position, messageId);
    }
  }
  for (const append of appends) {
    const count = append.message_ids.length;
    const row = conn
      .statement(RESERVE_BRANCH)
      .raw(true)
      .get(at, count, sessionId, append.branch_id) as [unknown] | undefined;
    if (row === undefined) throw notFound(`branch ${append.branch_id} not found`);
    let position = Number(row[0]) - count;
    const insert = conn.statement(INSERT_BRANCH_ENTRY);
    for (const messageId of append.message_ids) {
      insert.run(sessionId, append.branch_id, ++position, messageId);
    }
  }

  // events: the sequences reserved above
  if (events.length === 0) return [];
  const stored = storedEvents(sessionId, events, lastEventSequence, at);
  const insert = conn.statement(INSERT_EVENT);
  for (const event of stored) {
    insert.run(sessionId, event.sequence, event.name, JSON.stringify(event.payload ?? null), at);
  }
  return stored;
}

/**
 * A loop's record (its start, each end): one prepared upsert in the turn's group commit, as
 * `upsertLoop` does through Prisma on PostgreSQL.
 */
export function upsertLoopDirect(conn: DirectConnection, row: ReturnType<typeof loopRow>): void {
  conn
    .statement(UPSERT_LOOP)
    .run(
      row.sessionId,
      row.loopId,
      row.agentId,
      row.parentLoopId,
      row.continuationKind,
      row.status,
      row.startedAt,
      row.endedAt,
      row.durationMs,
      row.turns,
      row.usage,
      row.childLoopIds,
      row.record,
      row.ordinal,
    );
}
