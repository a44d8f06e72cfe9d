import type { ContextMessage, SessionWrite, StoredEvent } from "@arbor/core";
import {
  applyLifecycleUpdate,
  checkExpectedSequence,
  describeLifecycleUpdateError,
  StoreError,
  withSequence,
} from "@arbor/core/storage";
import type { Tx } from "./database.js";
import { isUniqueViolation } from "./failures.js";
import { parseMessageRows } from "./load-session.js";
import { approvalRows, branchRow, lifecycleColumns, messageRow, viewRow } from "./rows.js";
import {
  insertBranchEntries,
  insertEvents,
  insertMessages,
  reserveBranchPositions,
  reserveSession,
} from "./write-statements.js";

// The body of one `write`, run inside one transaction: every check and every change, so a
// failing check throws, the transaction rolls back and nothing of the write remains.
//
// Order matters for concurrency. The first statement updates the session row: on PostgreSQL that
// takes the row's lock, on SQLite the database's write lock, so writers of one session queue
// there. The same statement reserves the write's message positions and event sequences by
// incrementing the session's counters (returning the new values), so sequences are allocated
// inside the transaction; UNIQUE(session_id, sequence) still guards them, and a collision aborts
// the transaction, which the store retries whole (prisma-session-store.ts). Checks that would need
// an extra query on the common path (a duplicate message id, an append to a missing branch) are
// left to the primary keys and to update-or-fail, and still roll everything back.

export interface WriteContext {
  at: string;
  touched: bigint;
}

function notFound(what: string): StoreError {
  return new StoreError("not_found", what);
}

/** Checks that need no database: the write is well-formed on its own. */
export function checkWriteShape(sessionId: string, write: SessionWrite): void {
  const ids = new Set<string>();
  for (const message of write.messages ?? []) {
    if (message.session_id !== sessionId) {
      throw new StoreError(
        "invalid",
        `message ${message.id} belongs to session ${message.session_id}`,
      );
    }
    if (ids.has(message.id)) {
      throw new StoreError(
        "conflict",
        `message ${message.id} already exists; content is immutable`,
      );
    }
    ids.add(message.id);
  }
  for (const branch of write.branches ?? []) {
    if (branch.session_id !== sessionId) {
      throw new StoreError(
        "invalid",
        `branch ${branch.id} belongs to session ${branch.session_id}`,
      );
    }
  }
  const viewIds = new Set<string>();
  for (const view of write.optimization_views ?? []) {
    if (view.session_id !== sessionId) {
      throw new StoreError("invalid", `optimization view ${view.id} belongs to another session`);
    }
    if (viewIds.has(view.id)) {
      throw new StoreError("conflict", `optimization view ${view.id} already exists`);
    }
    viewIds.add(view.id);
  }
  for (const event of write.events ?? []) {
    if (typeof event.name !== "string" || event.name.length === 0) {
      throw new StoreError("invalid", "an event needs a name");
    }
  }
}

export async function applyWrite(
  tx: Tx,
  sessionId: string,
  write: SessionWrite,
  { at, touched }: WriteContext,
): Promise<StoredEvent[]> {
  const patch = write.session ?? {};
  const messages = write.messages ?? [];
  const events = write.events ?? [];
  // Locks the session and reserves this write's message positions and event sequences in one
  // statement; `returning` gives the new high-water marks.
  const session = await reserveSession(
    tx,
    sessionId,
    patch,
    { messages: messages.length, events: events.length },
    { at, touched },
  );
  if (session === undefined) throw notFound(`session ${sessionId} not found`);
  // the row is locked now: the sequence before this write is the stored one
  checkExpectedSequence(
    sessionId,
    write.expected_last_sequence,
    session.lastEventSequence - events.length,
  );

  // --- messages: updates apply in order, also to this write's own messages
  const incoming = new Map<string, ContextMessage>();
  for (const message of messages) incoming.set(message.id, message);
  const updated = await planUpdates(tx, sessionId, write, incoming);

  // inserted first: a duplicate id is a conflict before anything else is looked at
  if (messages.length > 0) {
    let position = session.lastMessagePosition - messages.length;
    const rows = [...incoming.values()].map((message) => messageRow(message, ++position));
    try {
      await insertMessages(tx, rows);
    } catch (error) {
      // the primary key (session, id): content is immutable, an id is never written twice
      if (isUniqueViolation(error)) {
        throw new StoreError(
          "conflict",
          "a message of this write already exists; content is immutable",
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    const approvals = [...incoming.values()].flatMap((message) => approvalRows(message, at));
    if (approvals.length > 0) await tx.toolApproval.createMany({ data: approvals });
  }
  // --- branches: what they name must be in the pool; the active branch must survive
  const named = new Set<string>();
  for (const branch of write.branches ?? []) {
    for (const id of branch.message_ids) if (!incoming.has(id)) named.add(id);
  }
  for (const append of write.branch_appends ?? []) {
    for (const id of append.message_ids) if (!incoming.has(id)) named.add(id);
  }
  if (named.size > 0) {
    const found = await tx.message.findMany({
      where: { sessionId, id: { in: [...named] } },
      select: { id: true },
    });
    if (found.length !== named.size) {
      const present = new Set(found.map((m) => m.id));
      const missing = [...named].find((id) => !present.has(id));
      throw notFound(`a branch names unknown message ${missing}`);
    }
  }
  const reshapes =
    (write.branches?.length ?? 0) > 0 ||
    (write.deleted_branch_ids?.length ?? 0) > 0 ||
    patch.active_branch_id !== undefined;
  // only a write that creates, deletes or switches branches needs the branch list
  const existingBranches = reshapes
    ? new Set(
        (await tx.branch.findMany({ where: { sessionId }, select: { id: true } })).map((b) => b.id),
      )
    : new Set<string>();
  if (reshapes) {
    const branchIds = new Set(existingBranches);
    for (const branch of write.branches ?? []) branchIds.add(branch.id);
    for (const append of write.branch_appends ?? []) {
      if (!branchIds.has(append.branch_id)) throw notFound(`branch ${append.branch_id} not found`);
    }
    for (const id of write.deleted_branch_ids ?? []) {
      if (!branchIds.has(id)) throw notFound(`branch ${id} not found`);
      branchIds.delete(id);
    }
    if (!branchIds.has(session.activeBranchId)) {
      throw notFound(`active branch ${session.activeBranchId} does not exist after the write`);
    }
  }

  // --- apply
  for (const { message, decided } of updated) {
    await tx.message.update({
      where: { sessionId_id: { sessionId, id: message.id } },
      data: lifecycleColumns(message),
    });
    for (const row of approvalRows(message, at)) {
      if (!decided.has(row.toolCallId)) continue;
      await tx.toolApproval.update({
        where: {
          sessionId_messageId_toolCallId: {
            sessionId,
            messageId: message.id,
            toolCallId: row.toolCallId,
          },
        },
        data: {
          approval: row.approval,
          approvalNote: row.approvalNote,
          decidedAt: at,
          decidedBy: row.decidedBy,
        },
      });
    }
  }
  for (const branch of write.branches ?? []) {
    const entries = branch.message_ids.length;
    if (existingBranches.has(branch.id)) {
      const { ordinal: _keep, ...data } = branchRow(branch, 0);
      await tx.branch.update({
        where: { sessionId_id: { sessionId, id: branch.id } },
        data: { ...data, lastPosition: entries },
      });
      await tx.branchMessage.deleteMany({ where: { sessionId, branchId: branch.id } });
    } else {
      const last = await tx.branch.aggregate({ where: { sessionId }, _max: { ordinal: true } });
      const ordinal = (last._max.ordinal ?? 0) + 1;
      await tx.branch.create({ data: { ...branchRow(branch, ordinal), lastPosition: entries } });
      existingBranches.add(branch.id);
    }
    if (entries > 0) {
      await tx.branchMessage.createMany({
        data: branch.message_ids.map((messageId, i) => ({
          sessionId,
          branchId: branch.id,
          position: i + 1,
          messageId,
        })),
      });
    }
  }
  for (const append of write.branch_appends ?? []) {
    const count = append.message_ids.length;
    const last = await reserveBranchPositions(tx, sessionId, append.branch_id, count, at);
    if (last === undefined) throw notFound(`branch ${append.branch_id} not found`);
    let position = last - count;
    if (count > 0) {
      await insertBranchEntries(
        tx,
        sessionId,
        append.branch_id,
        append.message_ids.map((messageId) => ({ position: ++position, messageId })),
      );
    }
  }
  const deleted = write.deleted_branch_ids ?? [];
  if (deleted.length > 0) {
    await tx.branchMessage.deleteMany({ where: { sessionId, branchId: { in: deleted } } });
    await tx.branch.deleteMany({ where: { sessionId, id: { in: deleted } } });
  }
  const views = write.optimization_views ?? [];
  if (views.length > 0) {
    const last = await tx.optimizationView.aggregate({
      where: { sessionId },
      _max: { ordinal: true },
    });
    let ordinal = last._max.ordinal ?? 0;
    try {
      await tx.optimizationView.createMany({ data: views.map((view) => viewRow(view, ++ordinal)) });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new StoreError("conflict", "an optimization view of this write already exists", {
          cause: error,
        });
      }
      throw error;
    }
  }

  // --- events: the sequences reserved above. A collision on UNIQUE(session_id, sequence) (a
  // writer that did not reserve through the counter) propagates and the store retries.
  if (events.length === 0) return [];
  const stored = storedEvents(sessionId, events, session.lastEventSequence, at);
  await insertEvents(
    tx,
    sessionId,
    stored.map((event) => ({
      sequence: event.sequence,
      name: event.name,
      payload: JSON.stringify(event.payload ?? null),
    })),
    at,
  );
  return stored;
}

/** The write's events as stored: the `events.length` sequences up to `lastSequence`. */
export function storedEvents(
  sessionId: string,
  events: NonNullable<SessionWrite["events"]>,
  lastSequence: number,
  at: string,
): StoredEvent[] {
  let sequence = lastSequence - events.length;
  return events.map((event) => {
    sequence += 1;
    return {
      session_id: sessionId,
      sequence,
      name: event.name,
      payload: withSequence(event.payload, sequence),
      created_at: at,
    };
  });
}

/**
 * The messages a write's lifecycle updates change, as they will be stored. Updates of messages
 * inserted by the same write are folded into `incoming` (they are inserted already updated).
 */
async function planUpdates(
  tx: Tx,
  sessionId: string,
  write: SessionWrite,
  incoming: Map<string, ContextMessage>,
): Promise<Array<{ message: ContextMessage; decided: Set<string> }>> {
  const updates = write.message_updates ?? [];
  if (updates.length === 0) return [];
  const ids = [...new Set(updates.map((u) => u.id).filter((id) => !incoming.has(id)))];
  const [rows, approvals] = await Promise.all([
    tx.message.findMany({ where: { sessionId, id: { in: ids } }, orderBy: { position: "asc" } }),
    tx.toolApproval.findMany({ where: { sessionId, messageId: { in: ids } } }),
  ]);
  const unreadable: Array<{ session_id: string; table: "message"; row_id: string; error: string }> =
    [];
  const stored = new Map(
    parseMessageRows(sessionId, rows, approvals, unreadable).map((m) => [m.id, m]),
  );
  const updated = new Map<string, ContextMessage>();
  /** tool call ids whose approval this write decides, per stored message */
  const decided = new Map<string, Set<string>>();
  for (const update of updates) {
    const current = updated.get(update.id) ?? incoming.get(update.id) ?? stored.get(update.id);
    if (current === undefined) {
      const bad = unreadable.find((row) => row.row_id === update.id);
      if (bad !== undefined) {
        throw new StoreError("invalid", `message ${update.id} is corrupt (${bad.error})`);
      }
      throw notFound(`message ${update.id} not found`);
    }
    const result = applyLifecycleUpdate(current, update);
    if (!result.ok) throw new StoreError("invalid", describeLifecycleUpdateError(result.error));
    if (incoming.has(update.id)) {
      incoming.set(update.id, result.message);
      continue;
    }
    updated.set(update.id, result.message);
    const calls = decided.get(update.id) ?? new Set<string>();
    for (const callId of Object.keys(update.approvals ?? {})) calls.add(callId);
    decided.set(update.id, calls);
  }
  return [...updated.values()].map((message) => ({
    message,
    decided: decided.get(message.id) ?? new Set<string>(),
  }));
}
