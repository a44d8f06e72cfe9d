import type { Branch } from "../model/branch.js";
import type { LoopRecord } from "../model/loop-records.js";
import type { ContextMessage } from "../model/message-types.js";
import type {
  MessageLifecycleUpdate,
  OptimizationView,
  SessionRecord,
  SessionSummary,
  StoredEvent,
} from "../model/session-records.js";

export type {
  MessageLifecycleUpdate,
  OptimizationView,
  SessionRecord,
  SessionSummary,
  StoredEvent,
};

// Storage interfaces of the Context Manager. The in-memory store (memory-store.ts) and the Prisma
// store (packages/db) both implement them and both pass test/support/store-contract.ts.
//
// Contract for every implementation:
// - `write` is atomic: all of it lands or none of it does (one transaction).
// - Event sequences are per session, start at 1, increase by 1, and are never reused, even when
//   several processes append to the same session.
// - Message content is immutable: `messages` inserts; re-inserting an existing id is an error.
//   Only lifecycle fields change, through `message_updates`.
// - Reads never return half of a write.

/** One unit of work on a session, applied atomically. */
export interface SessionWrite {
  session?: Partial<
    Pick<SessionRecord, "title" | "config" | "state" | "active_branch_id" | "pending_merges">
  >;
  messages?: ContextMessage[];
  message_updates?: MessageLifecycleUpdate[];
  /** appends ids to a branch's list (the common case: one new message) */
  branch_appends?: Array<{ branch_id: string; message_ids: string[] }>;
  /** creates or replaces whole branches (fork, merge, rebase) */
  branches?: Branch[];
  deleted_branch_ids?: string[];
  events?: Array<{ name: string; payload: unknown }>;
  optimization_views?: OptimizationView[];
  /**
   * The session's newest event sequence as the writer last saw it. When given, the write is
   * refused (StoreError "conflict", nothing applied) if another write stored events since: a
   * stale view never overwrites a newer one (several instances, docs/decisions/0030).
   */
  expected_last_sequence?: number;
}

/** A stored row that did not parse; the rest of the session still loads. */
export interface CorruptRow {
  session_id: string;
  table: "message" | "branch" | "event" | "session" | "optimization_view" | "loop";
  row_id: string;
  error: string;
}

export interface LoadedSession {
  session: SessionRecord;
  branches: Branch[];
  /** the whole pool, in insertion order */
  messages: ContextMessage[];
  optimization_views: OptimizationView[];
  corrupt: CorruptRow[];
}

export interface SessionStore {
  createSession(session: SessionRecord, firstBranch: Branch): Promise<void>;
  loadSession(id: string): Promise<LoadedSession | undefined>;
  /** newest first */
  listSessions(): Promise<SessionSummary[]>;
  deleteSession(id: string): Promise<void>;
  /** atomic; returns the events with their allocated sequences. Unknown session → StoreError "not_found". */
  write(sessionId: string, write: SessionWrite): Promise<{ events: StoredEvent[] }>;
  /** events with sequence > afterSequence, ascending */
  readEvents(sessionId: string, afterSequence: number, limit?: number): Promise<StoredEvent[]>;
  /** loop records (the runtime's LoopRecorder writes through this) */
  upsertLoop(record: LoopRecord): Promise<void>;
  listLoops(sessionId: string): Promise<LoopRecord[]>;
  /**
   * The number the next loop `{sessionId}.{configId}.{n}` gets: one more than the highest n of
   * that session and config among the stored loop records, 1 when there is none (see
   * loop-numbers.ts). It reserves nothing: a session runs one operation at a time (one instance
   * at a time under its lease), and each run's record is stored before the next run asks.
   */
  nextLoopNumber(sessionId: string, configId: string): Promise<number>;
  /**
   * Tool calls waiting for a person's decision (`approval: "pending"`), over every session: one
   * count (an index of the database's), read every few seconds by the arbor.approvals.waiting
   * gauge, so every instance reports the database's number, not what it ran itself
   */
  countPendingApprovals(): Promise<number>;
  /** the trust given to a workspace's executable configuration (trust/, docs/security.md) */
  listWorkspaceTrust(workspace: string): Promise<WorkspaceTrustRecord[]>;
  /** creates or replaces the record of (workspace, file, name) */
  putWorkspaceTrust(record: WorkspaceTrustRecord): Promise<void>;
  /** removes the record of (workspace, file, name); absent is no error */
  deleteWorkspaceTrust(workspace: string, file: string, name: string): Promise<void>;
}

/**
 * A person trusted one definition of a workspace's executable configuration (an MCP server of
 * mcp_servers.json, a spec of .arbor/openapi.json): as it was when they looked at it, by hash.
 * Kept in the database, never in a file a tool can write.
 */
export interface WorkspaceTrustRecord {
  /** the workspace's absolute root */
  workspace: string;
  /** the file, relative to the workspace (`mcp_servers.json`, `.arbor/openapi.json`) */
  file: string;
  /** the definition in the file: the server's name, the spec entry's key */
  name: string;
  /** sha256 (hex) of the definition trusted (trust/definitions.ts) */
  hash: string;
  /** who trusted it */
  trusted_by: string;
  /** ISO-8601 */
  trusted_at: string;
}

export type StoreErrorCode = "not_found" | "conflict" | "invalid" | "unavailable";

/** Thrown by stores; the Context Manager turns it into a storage-failure error event. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreError";
    this.code = code;
  }

  /**
   * A StoreError made by another copy of core counts as one: the app bundles core, and Node loads
   * packages/db beside the bundle with its own copy (src/storage.ts), so the error a Prisma store
   * throws is not of the bundle's class.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      value instanceof Error &&
      value.name === "StoreError" &&
      typeof (value as { code?: unknown }).code === "string"
    );
  }
}
