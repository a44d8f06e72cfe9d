import type { Branch } from "../model/branch.js";
import { copyData } from "../model/copy-data.js";
import { emptyUsage } from "../model/llm-messages.js";
import type { LoopRecord } from "../model/loop-records.js";
import { applyLifecycleUpdate, describeLifecycleUpdateError } from "../model/message-lifecycle.js";
import type { ContextMessage } from "../model/message-types.js";
import { type CostedUsage, sumCostedUsage, withCost } from "../model/usage-cost.js";
import { checkExpectedSequence } from "./coordination.js";
import { nextLoopNumberOf } from "./loop-numbers.js";
import {
  type LoadedSession,
  type OptimizationView,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  type SessionWrite,
  type StoredEvent,
  StoreError,
  type WorkspaceTrustRecord,
} from "./types.js";

// The in-memory SessionStore: unit tests, the bench, and single-process use without a database.
// It honours the contract in types.ts exactly (test/support/store-contract.ts checks it) and adds fault
// injection so the Context Manager's storage-failure tests can make a chosen operation fail.
//
// Atomicity: `write` validates the whole SessionWrite against the current state first and only
// then applies it, with no `await` in between, so a failing check leaves nothing behind and two
// concurrent writes can never interleave. Isolation: everything is deep-copied on the way in and
// on the way out (copyData: structuredClone's copy of stored data, several times cheaper for the
// plain objects rows and events are), so callers can neither mutate stored state nor see later
// changes.

/** An operation the store is about to perform, as seen by the fault hook. */
export type StoreOperation =
  | { kind: "createSession"; session_id: string }
  | { kind: "loadSession"; session_id: string }
  | { kind: "listSessions" }
  | { kind: "deleteSession"; session_id: string }
  | { kind: "write"; session_id: string; write: SessionWrite }
  | { kind: "readEvents"; session_id: string }
  | { kind: "upsertLoop"; session_id: string; loop_id: string }
  | { kind: "listLoops"; session_id: string };

/** Returns an error to make the operation fail (nothing is changed), or undefined to let it run. */
export type StoreFaultHook = (operation: StoreOperation) => Error | undefined;

export interface InMemorySessionStoreOptions {
  faults?: StoreFaultHook;
  /** the clock for updated_at and event created_at (tests pin it) */
  now?: () => Date;
}

interface SessionData {
  record: SessionRecord;
  /** bumped on every change: breaks updated_at ties in listSessions (newest first) */
  touched: number;
  branches: Map<string, Branch>;
  messages: Map<string, ContextMessage>;
  events: StoredEvent[];
  views: Map<string, OptimizationView>;
}

export class InMemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionData>();
  /** loops by session id, then loop id. Not tied to a session record: a sub-agent's loops live
   * under its own runtime session id, which has no Context Manager session. */
  readonly #loops = new Map<string, Map<string, LoopRecord>>();
  readonly #trust = new Map<string, WorkspaceTrustRecord>();
  readonly #faults: StoreFaultHook | undefined;
  readonly #now: () => Date;
  #pendingFailures: Error[] = [];
  #clock = 0;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.#faults = options.faults;
    this.#now = options.now ?? (() => new Date());
  }

  /** The next `write` call (any session) fails with `error` and changes nothing. Stackable. */
  failNextWrite(error: Error = new StoreError("unavailable", "injected storage failure")): void {
    this.#pendingFailures.push(error);
  }

  async createSession(session: SessionRecord, firstBranch: Branch): Promise<void> {
    this.#checkFault({ kind: "createSession", session_id: session.id });
    if (this.#sessions.has(session.id)) {
      throw new StoreError("conflict", `session ${session.id} already exists`);
    }
    if (firstBranch.session_id !== session.id) {
      throw new StoreError("invalid", `branch ${firstBranch.id} belongs to another session`);
    }
    if (session.active_branch_id !== firstBranch.id) {
      throw new StoreError("invalid", "the session's active branch must be its first branch");
    }
    if (firstBranch.message_ids.length > 0) {
      throw new StoreError("invalid", "a new session's first branch cannot name messages");
    }
    const { pending_merges, ...rest } = session;
    const record = pending_merges?.length ? { ...rest, pending_merges } : rest;
    this.#sessions.set(session.id, {
      record: copyData(record),
      touched: ++this.#clock,
      branches: new Map([[firstBranch.id, copyData(firstBranch)]]),
      messages: new Map(),
      events: [],
      views: new Map(),
    });
  }

  async loadSession(id: string): Promise<LoadedSession | undefined> {
    this.#checkFault({ kind: "loadSession", session_id: id });
    const data = this.#sessions.get(id);
    if (data === undefined) return undefined;
    return copyData({
      session: data.record,
      branches: [...data.branches.values()],
      messages: [...data.messages.values()],
      optimization_views: [...data.views.values()],
      corrupt: [],
    });
  }

  async listSessions(): Promise<SessionSummary[]> {
    this.#checkFault({ kind: "listSessions" });
    const ordered = [...this.#sessions.values()].sort((a, b) => {
      const byTime = b.record.updated_at.localeCompare(a.record.updated_at);
      return byTime !== 0 ? byTime : b.touched - a.touched;
    });
    return ordered.map((data) => {
      const parts: CostedUsage[] = [];
      // a fold's steps (meta.fold_id, on no branch) are not the conversation's messages
      let count = 0;
      for (const message of data.messages.values()) {
        if (message.meta?.fold_id === undefined) count++;
        // assistant answers, and tool results that spent usage themselves (sub-agents)
        if (message.role !== "assistant" && message.role !== "tool") continue;
        const messageUsage = message.meta?.usage;
        const messageCost = message.meta?.cost_usd;
        if (messageUsage === undefined && messageCost === undefined) continue;
        // the stored cost (meta.cost_usd) is the one summed, as the database's column
        parts.push(withCost(messageUsage ?? emptyUsage(), messageCost ?? null));
      }
      return copyData({
        id: data.record.id,
        title: data.record.title,
        state: data.record.state,
        updated_at: data.record.updated_at,
        message_count: count,
        usage: sumCostedUsage(parts),
      });
    });
  }

  async deleteSession(id: string): Promise<void> {
    this.#checkFault({ kind: "deleteSession", session_id: id });
    if (!this.#sessions.delete(id)) throw notFound(id);
    this.#loops.delete(id);
  }

  async write(sessionId: string, write: SessionWrite): Promise<{ events: StoredEvent[] }> {
    this.#checkFault({ kind: "write", session_id: sessionId, write });
    const injected = this.#pendingFailures.shift();
    if (injected !== undefined) throw injected;
    const data = this.#sessions.get(sessionId);
    if (data === undefined) throw notFound(sessionId);
    checkExpectedSequence(sessionId, write.expected_last_sequence, data.events.length);
    // Clone first: validation and application both work on the copy, never on caller objects.
    const input = copyData(write);
    const plan = planWrite(sessionId, data, input);
    return { events: copyData(this.#apply(data, input, plan)) };
  }

  async readEvents(
    sessionId: string,
    afterSequence: number,
    limit?: number,
  ): Promise<StoredEvent[]> {
    this.#checkFault({ kind: "readEvents", session_id: sessionId });
    const data = this.#sessions.get(sessionId);
    if (data === undefined) throw notFound(sessionId);
    // sequences are 1..n without gaps, so event k sits at index k-1
    const start = Math.max(0, Math.floor(afterSequence));
    const end = limit === undefined ? undefined : start + Math.max(0, limit);
    return copyData(data.events.slice(start, end));
  }

  async upsertLoop(record: LoopRecord): Promise<void> {
    this.#checkFault({ kind: "upsertLoop", session_id: record.sessionId, loop_id: record.loopId });
    let loops = this.#loops.get(record.sessionId);
    if (loops === undefined) {
      loops = new Map();
      this.#loops.set(record.sessionId, loops);
    }
    // Map.set keeps the first insertion's position: listLoops stays in first-write order.
    loops.set(record.loopId, copyData(record));
  }

  async countPendingApprovals(): Promise<number> {
    let count = 0;
    for (const data of this.#sessions.values()) {
      for (const message of data.messages.values()) {
        if (message.body.message_type !== "tool_request") continue;
        for (const call of message.body.calls) if (call.approval === "pending") count++;
      }
    }
    return count;
  }

  async listWorkspaceTrust(workspace: string): Promise<WorkspaceTrustRecord[]> {
    return [...this.#trust.values()].filter((r) => r.workspace === workspace).map(copyData);
  }

  async putWorkspaceTrust(record: WorkspaceTrustRecord): Promise<void> {
    this.#trust.set(trustKey(record.workspace, record.file, record.name), copyData(record));
  }

  async deleteWorkspaceTrust(workspace: string, file: string, name: string): Promise<void> {
    this.#trust.delete(trustKey(workspace, file, name));
  }

  async nextLoopNumber(sessionId: string, configId: string): Promise<number> {
    this.#checkFault({ kind: "listLoops", session_id: sessionId });
    return nextLoopNumberOf(this.#loops.get(sessionId)?.keys() ?? [], sessionId, configId);
  }

  async listLoops(sessionId: string): Promise<LoopRecord[]> {
    this.#checkFault({ kind: "listLoops", session_id: sessionId });
    return copyData([...(this.#loops.get(sessionId)?.values() ?? [])]);
  }

  #checkFault(operation: StoreOperation): void {
    const error = this.#faults?.(operation);
    if (error !== undefined) throw error;
  }

  /** Applies a validated write. Must not throw: every check happened in planWrite. */
  #apply(data: SessionData, write: SessionWrite, plan: WritePlan): StoredEvent[] {
    const at = this.#now().toISOString();
    for (const message of write.messages ?? []) data.messages.set(message.id, message);
    for (const updated of plan.updatedMessages) data.messages.set(updated.id, updated);
    for (const branch of write.branches ?? []) data.branches.set(branch.id, branch);
    for (const append of write.branch_appends ?? []) {
      const branch = data.branches.get(append.branch_id)!;
      branch.message_ids.push(...append.message_ids);
      branch.updated_at = at;
    }
    for (const id of write.deleted_branch_ids ?? []) data.branches.delete(id);
    for (const view of write.optimization_views ?? []) data.views.set(view.id, view);
    const stored: StoredEvent[] = [];
    for (const event of write.events ?? []) {
      const sequence = data.events.length + 1;
      const payload = withSequence(event.payload, sequence);
      const row = {
        session_id: data.record.id,
        sequence,
        name: event.name,
        payload,
        created_at: at,
      };
      data.events.push(row);
      stored.push(row);
    }
    const record: SessionRecord = { ...data.record, updated_at: at };
    const patch = write.session ?? {};
    if (patch.title !== undefined) record.title = patch.title;
    if (patch.config !== undefined) record.config = patch.config;
    if (patch.state !== undefined) record.state = patch.state;
    if (patch.active_branch_id !== undefined) record.active_branch_id = patch.active_branch_id;
    if (patch.pending_merges !== undefined) {
      if (patch.pending_merges.length > 0) record.pending_merges = patch.pending_merges;
      else delete record.pending_merges;
    }
    data.record = record;
    data.touched = ++this.#clock;
    return stored;
  }
}

function notFound(sessionId: string): StoreError {
  return new StoreError("not_found", `session ${sessionId} not found`);
}

/**
 * Event payloads that carry a `sequence` field (content_delta, content_final) get the allocated
 * sequence written into it, so the payload and the SSE `id:` always agree.
 */
export function withSequence(payload: unknown, sequence: number): unknown {
  if (typeof payload === "object" && payload !== null && !Array.isArray(payload)) {
    if (Object.hasOwn(payload, "sequence")) return { ...payload, sequence };
  }
  return payload;
}

interface WritePlan {
  updatedMessages: ContextMessage[];
}

/**
 * Checks a write against the session's current state without changing anything, and computes the
 * updated messages. Throws the StoreError of the first failing check.
 */
function planWrite(sessionId: string, data: SessionData, write: SessionWrite): WritePlan {
  const incoming = new Map<string, ContextMessage>();
  for (const message of write.messages ?? []) {
    if (message.session_id !== sessionId) {
      throw new StoreError(
        "invalid",
        `message ${message.id} belongs to session ${message.session_id}`,
      );
    }
    if (data.messages.has(message.id) || incoming.has(message.id)) {
      throw new StoreError(
        "conflict",
        `message ${message.id} already exists; content is immutable`,
      );
    }
    incoming.set(message.id, message);
  }
  const messageExists = (id: string) => data.messages.has(id) || incoming.has(id);

  // Updates apply in order, also to messages inserted by the same write.
  const updated = new Map<string, ContextMessage>();
  for (const update of write.message_updates ?? []) {
    const current =
      updated.get(update.id) ?? incoming.get(update.id) ?? data.messages.get(update.id);
    if (current === undefined) throw new StoreError("not_found", `message ${update.id} not found`);
    const result = applyLifecycleUpdate(current, update);
    if (!result.ok) throw new StoreError("invalid", describeLifecycleUpdateError(result.error));
    if (incoming.has(update.id)) incoming.set(update.id, result.message);
    else updated.set(update.id, result.message);
  }
  // Fold updates of messages inserted in this write into the inserted rows.
  if (write.messages !== undefined) {
    write.messages = write.messages.map((m) => incoming.get(m.id)!);
  }

  const branchIds = new Set(data.branches.keys());
  for (const branch of write.branches ?? []) {
    if (branch.session_id !== sessionId) {
      throw new StoreError(
        "invalid",
        `branch ${branch.id} belongs to session ${branch.session_id}`,
      );
    }
    for (const id of branch.message_ids) {
      if (!messageExists(id)) {
        throw new StoreError("not_found", `branch ${branch.id} names unknown message ${id}`);
      }
    }
    branchIds.add(branch.id);
  }
  for (const append of write.branch_appends ?? []) {
    if (!branchIds.has(append.branch_id)) {
      throw new StoreError("not_found", `branch ${append.branch_id} not found`);
    }
    for (const id of append.message_ids) {
      if (!messageExists(id)) {
        throw new StoreError("not_found", `cannot append unknown message ${id}`);
      }
    }
  }
  for (const id of write.deleted_branch_ids ?? []) {
    if (!branchIds.has(id)) throw new StoreError("not_found", `branch ${id} not found`);
    branchIds.delete(id);
  }
  const activeBranch = write.session?.active_branch_id ?? data.record.active_branch_id;
  if (!branchIds.has(activeBranch)) {
    throw new StoreError(
      "not_found",
      `active branch ${activeBranch} does not exist after the write`,
    );
  }
  const viewIds = new Set<string>();
  for (const view of write.optimization_views ?? []) {
    if (view.session_id !== sessionId) {
      throw new StoreError("invalid", `optimization view ${view.id} belongs to another session`);
    }
    if (data.views.has(view.id) || viewIds.has(view.id)) {
      throw new StoreError("conflict", `optimization view ${view.id} already exists`);
    }
    viewIds.add(view.id);
  }
  for (const event of write.events ?? []) {
    if (typeof event.name !== "string" || event.name.length === 0) {
      throw new StoreError("invalid", "an event needs a name");
    }
  }
  return { updatedMessages: [...updated.values()] };
}

function trustKey(workspace: string, file: string, name: string): string {
  return `${workspace}\0${file}\0${name}`;
}
