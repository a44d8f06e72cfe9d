import type {
  Branch,
  LoadedSession,
  LoopRecord,
  SessionRecord,
  SessionStore,
  SessionSummary,
  SessionWrite,
  StoredEvent,
  WorkspaceTrustRecord,
} from "@arbor/core";
import {
  ContextStateSchema,
  emptyUsage,
  LoopRecordSchema,
  nextLoopNumberOf,
  StoreError,
} from "@arbor/core/storage";
import type { Database, Tx } from "./database.js";
import { classifyFailure } from "./failures.js";
import { loadSessionRows } from "./load-session.js";
import { branchRow, CLIENT_METADATA_KEY, describeZodError, loopRow, parseJson } from "./rows.js";
import { applyWrite, checkWriteShape } from "./write-session.js";
import { applyWriteDirect, isDirectWrite, upsertLoopDirect } from "./write-session-direct.js";

// The Prisma SessionStore: the contract of core's store/types.ts on SQLite or PostgreSQL.
// Every operation is one transaction. Writes are incremental (a message is one row, an append to
// a branch one row per id, events one row each). Database failures become StoreError
// "unavailable" so the Context Manager reports a storage failure; a write that collides with
// another process's (unique key, SQLite busy, PostgreSQL serialization failure) is retried whole.

export interface StoreLogger {
  warn(message: string, details?: Record<string, unknown>): void;
}

export interface PrismaSessionStoreOptions {
  logger?: StoreLogger;
  /** the clock for updated_at and event created_at (tests pin it) */
  now?: () => Date;
  /** attempts of a write that collides with a concurrent one; default 10 */
  maxAttempts?: number;
}

const consoleLogger: StoreLogger = {
  warn: (message, details) => console.warn(`[arbor/db] ${message}`, details ?? ""),
};

function unavailable(error: unknown): StoreError {
  const message = error instanceof Error ? error.message.split("\n").slice(-1)[0] : String(error);
  return new StoreError("unavailable", `storage failure: ${message}`, { cause: error });
}

/** how a fold's step's meta JSON names its fold (see listSessions) */
const FOLD_ID_KEY = '"fold_id":';
/** the key client_metadata has in the meta JSON (rows.ts metaColumn) */
const CLIENT_METADATA_JSON_KEY = `"${CLIENT_METADATA_KEY}":`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let lastTick = 0n;
/** Microseconds since the epoch, strictly increasing in this process: orders ties. */
function nextTick(): bigint {
  const now = BigInt(Date.now()) * 1000n;
  lastTick = now > lastTick ? now : lastTick + 1n;
  return lastTick;
}

/** The loop ids of a session that start with a prefix (nextLoopNumber's direct read). */
const LOOP_IDS_WITH_PREFIX =
  'SELECT "loop_id" FROM "loop_records" WHERE "session_id" = ? AND substr("loop_id", 1, ?) = ?';

export class PrismaSessionStore implements SessionStore {
  readonly #db: Database;
  readonly #logger: StoreLogger;
  readonly #now: () => Date;
  readonly #maxAttempts: number;

  constructor(db: Database, options: PrismaSessionStoreOptions = {}) {
    this.#db = db;
    this.#logger = options.logger ?? consoleLogger;
    this.#now = options.now ?? (() => new Date());
    this.#maxAttempts = options.maxAttempts ?? 10;
  }

  get provider(): Database["provider"] {
    return this.#db.provider;
  }

  async createSession(session: SessionRecord, firstBranch: Branch): Promise<void> {
    if (firstBranch.session_id !== session.id) {
      throw new StoreError("invalid", `branch ${firstBranch.id} belongs to another session`);
    }
    if (session.active_branch_id !== firstBranch.id) {
      throw new StoreError("invalid", "the session's active branch must be its first branch");
    }
    if (firstBranch.message_ids.length > 0) {
      throw new StoreError("invalid", "a new session's first branch cannot name messages");
    }
    await this.#write(
      "createSession",
      async (tx) => {
        await tx.session.create({
          data: {
            id: session.id,
            title: session.title,
            config: JSON.stringify(session.config),
            state: JSON.stringify(session.state),
            stateType: session.state.type,
            activeBranchId: session.active_branch_id,
            pendingMerges: JSON.stringify(session.pending_merges ?? []),
            createdAt: session.created_at,
            updatedAt: session.updated_at,
            touched: nextTick(),
          },
        });
        await tx.branch.create({ data: branchRow(firstBranch, 1) });
      },
      { onUnique: () => new StoreError("conflict", `session ${session.id} already exists`) },
    );
  }

  async loadSession(id: string): Promise<LoadedSession | undefined> {
    const loaded = await this.#read((tx) => loadSessionRows(tx, id));
    for (const row of loaded?.corrupt ?? []) {
      this.#logger.warn("corrupt row", { ...row });
    }
    return loaded;
  }

  async listSessions(): Promise<SessionSummary[]> {
    const { sessions, counts, usage, unpriced } = await this.#read(async (tx) => {
      const sessions = await tx.session.findMany({
        select: { id: true, title: true, state: true, updatedAt: true },
        orderBy: [{ updatedAt: "desc" }, { touched: "desc" }],
      });
      // a fold's steps (meta.fold_id, on no branch) are not the conversation's messages; meta is
      // the JSON of ContextMessage.meta, where `"fold_id":` can only be a key (a string value
      // holding it has its quotes escaped). A user message's client_metadata travels in meta too
      // (rows.ts), and a client may name a key of its own fold_id: a row with client_metadata is
      // a message the API stored, never a fold's step, so it is counted whatever its keys
      const counts = await tx.message.groupBy({
        by: ["sessionId"],
        where: {
          OR: [
            { meta: null },
            { NOT: { meta: { contains: FOLD_ID_KEY } } },
            { meta: { contains: CLIENT_METADATA_JSON_KEY } },
          ],
        },
        _count: { _all: true },
      });
      // SUM skips NULLs and is NULL when every value is: a session's cost stays unknown until
      // one of its assistant messages has a known cost
      const usage = await tx.message.groupBy({
        by: ["sessionId"],
        where: {
          // assistant answers, and tool results that spent usage themselves (sub-agents)
          role: { in: ["assistant", "tool"] },
          OR: [{ usageTotalTokens: { not: null } }, { usageCostUsd: { not: null } }],
        },
        _sum: {
          usageInput: true,
          usageOutput: true,
          usageCacheRead: true,
          usageCacheWrite: true,
          usageTotalTokens: true,
          usageCostUsd: true,
        },
      });
      // rows whose tokens have no price: the session's cost is then incomplete
      const unpriced = await tx.message.groupBy({
        by: ["sessionId"],
        where: {
          role: { in: ["assistant", "tool"] },
          usageTotalTokens: { not: null },
          usageCostUsd: null,
        },
        _count: { _all: true },
      });
      return { sessions, counts, usage, unpriced };
    });
    const countOf = new Map(counts.map((row) => [row.sessionId, row._count._all]));
    const usageOf = new Map(usage.map((row) => [row.sessionId, row._sum]));
    const unpricedOf = new Map(unpriced.map((row) => [row.sessionId, row._count._all]));
    return sessions.map((row) => {
      const sum = usageOf.get(row.id);
      // the sum rule of usage-cost.ts: nothing spent is $0; no priced part is null
      const complete = (unpricedOf.get(row.id) ?? 0) === 0;
      const cost = sum === undefined ? 0 : (sum.usageCostUsd ?? null);
      return {
        id: row.id,
        title: row.title,
        state: this.#listState(row.id, row.state),
        updated_at: row.updatedAt,
        message_count: countOf.get(row.id) ?? 0,
        usage: {
          ...(sum === undefined
            ? emptyUsage()
            : {
                input: sum.usageInput ?? 0,
                output: sum.usageOutput ?? 0,
                cacheRead: sum.usageCacheRead ?? 0,
                cacheWrite: sum.usageCacheWrite ?? 0,
                totalTokens: sum.usageTotalTokens ?? 0,
              }),
          cost_usd: cost,
          cost_complete: complete,
        },
      };
    });
  }

  async deleteSession(id: string): Promise<void> {
    await this.#write("deleteSession", async (tx) => {
      // messages, branches, entries, events, approvals and views go by ON DELETE CASCADE
      const { count } = await tx.session.deleteMany({ where: { id } });
      if (count === 0) throw new StoreError("not_found", `session ${id} not found`);
      await tx.loopRecord.deleteMany({ where: { sessionId: id } });
    });
  }

  async write(sessionId: string, write: SessionWrite): Promise<{ events: StoredEvent[] }> {
    checkWriteShape(sessionId, write);
    const direct = this.#db.direct;
    if (direct !== undefined && isDirectWrite(write)) {
      const events = await this.#attempt("write", () =>
        direct.write((conn) =>
          applyWriteDirect(conn, sessionId, write, {
            at: this.#now().toISOString(),
            touched: nextTick(),
          }),
        ),
      );
      return { events };
    }
    const events = await this.#write("write", (tx) =>
      applyWrite(tx, sessionId, write, { at: this.#now().toISOString(), touched: nextTick() }),
    );
    return { events };
  }

  async readEvents(
    sessionId: string,
    afterSequence: number,
    limit?: number,
  ): Promise<StoredEvent[]> {
    const rows = await this.#read(async (tx) => {
      const session = await tx.session.findUnique({
        where: { id: sessionId },
        select: { id: true },
      });
      if (session === null) throw new StoreError("not_found", `session ${sessionId} not found`);
      return await tx.event.findMany({
        where: { sessionId, sequence: { gt: Math.max(0, Math.floor(afterSequence)) } },
        orderBy: { sequence: "asc" },
        ...(limit === undefined ? {} : { take: Math.max(0, Math.floor(limit)) }),
      });
    });
    return rows.map((row) => {
      const payload = parseJson(row.payload);
      if (!payload.ok) {
        this.#logger.warn("corrupt row", {
          session_id: sessionId,
          table: "event",
          row_id: String(row.sequence),
          error: payload.error,
        });
      }
      return {
        session_id: row.sessionId,
        sequence: row.sequence,
        name: row.name,
        payload: payload.ok ? payload.value : null,
        created_at: row.createdAt,
      };
    });
  }

  async upsertLoop(record: LoopRecord): Promise<void> {
    const parsed = LoopRecordSchema.safeParse(record);
    if (!parsed.success) {
      throw new StoreError("invalid", `loop ${record.loopId}: ${describeZodError(parsed.error)}`);
    }
    const row = loopRow(parsed.data, nextTick());
    const direct = this.#db.direct;
    if (direct !== undefined) {
      // every loop's start and end: one prepared upsert in the turn's group commit instead of a
      // Prisma transaction of its own
      await this.#attempt("upsertLoop", () => direct.write((conn) => upsertLoopDirect(conn, row)));
      return;
    }
    const { ordinal: _first, sessionId, loopId, ...update } = row;
    await this.#write("upsertLoop", async (tx) => {
      await tx.loopRecord.upsert({
        where: { sessionId_loopId: { sessionId, loopId } },
        create: row,
        update,
      });
    });
  }

  async nextLoopNumber(sessionId: string, configId: string): Promise<number> {
    const prefix = `${sessionId}.${configId}.`;
    const direct = this.#db.direct;
    if (direct !== undefined) {
      // on the way to every answer's model request: one prepared SELECT instead of a Prisma
      // transaction (the prefix compared exactly; nextLoopNumberOf checks each id again)
      const ids = await this.#attempt("nextLoopNumber", () =>
        direct.read(
          (conn) =>
            conn
              .statement(LOOP_IDS_WITH_PREFIX)
              .pluck(true)
              .all(sessionId, prefix.length, prefix) as string[],
        ),
      );
      return nextLoopNumberOf(ids, sessionId, configId);
    }
    const rows = await this.#read((tx) =>
      tx.loopRecord.findMany({
        // the prefix narrows the rows; nextLoopNumberOf checks each id exactly
        where: { sessionId, loopId: { startsWith: prefix } },
        select: { loopId: true },
      }),
    );
    return nextLoopNumberOf(
      rows.map((row) => row.loopId),
      sessionId,
      configId,
    );
  }

  async listLoops(sessionId: string): Promise<LoopRecord[]> {
    const rows = await this.#read((tx) =>
      tx.loopRecord.findMany({
        where: { sessionId },
        orderBy: [{ ordinal: "asc" }, { loopId: "asc" }],
        select: { loopId: true, record: true },
      }),
    );
    const loops: LoopRecord[] = [];
    for (const row of rows) {
      const json = parseJson(row.record);
      const parsed = json.ok ? LoopRecordSchema.safeParse(json.value) : undefined;
      if (parsed?.success) {
        loops.push(parsed.data);
        continue;
      }
      this.#logger.warn("corrupt row", {
        session_id: sessionId,
        table: "loop",
        row_id: row.loopId,
        error: !json.ok ? json.error : parsed ? describeZodError(parsed.error) : "unreadable",
      });
    }
    return loops;
  }

  async countPendingApprovals(): Promise<number> {
    // tool_approvals has one row per call, pending until decided (rows.ts approvalRows)
    return this.#read((tx) => tx.toolApproval.count({ where: { approval: "pending" } }));
  }

  async listWorkspaceTrust(workspace: string): Promise<WorkspaceTrustRecord[]> {
    const rows = await this.#read((tx) =>
      tx.workspaceTrust.findMany({
        where: { workspace },
        orderBy: [{ file: "asc" }, { name: "asc" }],
      }),
    );
    return rows.map((row) => ({
      workspace: row.workspace,
      file: row.file,
      name: row.name,
      hash: row.hash,
      trusted_by: row.trustedBy,
      trusted_at: row.trustedAt,
    }));
  }

  async putWorkspaceTrust(record: WorkspaceTrustRecord): Promise<void> {
    const { workspace, file, name } = record;
    const values = {
      hash: record.hash,
      trustedBy: record.trusted_by,
      trustedAt: record.trusted_at,
    };
    await this.#write("putWorkspaceTrust", async (tx) => {
      await tx.workspaceTrust.upsert({
        where: { workspace_file_name: { workspace, file, name } },
        create: { workspace, file, name, ...values },
        update: values,
      });
    });
  }

  async deleteWorkspaceTrust(workspace: string, file: string, name: string): Promise<void> {
    await this.#write("deleteWorkspaceTrust", async (tx) => {
      await tx.workspaceTrust.deleteMany({ where: { workspace, file, name } });
    });
  }

  #listState(sessionId: string, text: string): SessionSummary["state"] {
    const json = parseJson(text);
    const parsed = json.ok ? ContextStateSchema.safeParse(json.value) : undefined;
    if (parsed?.success) return parsed.data;
    const error = !json.ok ? json.error : parsed ? describeZodError(parsed.error) : "unreadable";
    this.#logger.warn("corrupt row", {
      session_id: sessionId,
      table: "session",
      row_id: sessionId,
      error,
    });
    // listed rather than hidden, so the user can see it and delete it
    return { type: "Failed", error: `stored state is corrupt: ${error}`, recoverable: false };
  }

  async #read<T>(run: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#db.readTransaction(run);
      } catch (error) {
        if (error instanceof StoreError) throw error;
        if (classifyFailure(error) !== "retry" || attempt >= this.#maxAttempts) {
          throw unavailable(error);
        }
        await sleep(backoff(attempt));
      }
    }
  }

  #write<T>(
    operation: string,
    run: (tx: Tx) => Promise<T>,
    options: { onUnique?: () => StoreError } = {},
  ): Promise<T> {
    return this.#attempt(operation, () => this.#db.writeTransaction(run), options);
  }

  /** Runs a write, again while it collides with a concurrent writer; failures become StoreErrors. */
  async #attempt<T>(
    operation: string,
    write: () => Promise<T>,
    options: { onUnique?: () => StoreError } = {},
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (error) {
        if (error instanceof StoreError) throw error;
        const failure = classifyFailure(error);
        if (failure === "unique" && options.onUnique !== undefined) throw options.onUnique();
        if (failure === "other") throw unavailable(error);
        if (attempt >= this.#maxAttempts) {
          throw failure === "unique"
            ? new StoreError("conflict", `${operation}: kept colliding with concurrent writers`, {
                cause: error,
              })
            : unavailable(error);
        }
        await sleep(backoff(attempt));
      }
    }
  }
}

/** Jittered exponential backoff: 2, 4, 8 … ms, at most ~200 ms. */
function backoff(attempt: number): number {
  const base = Math.min(200, 2 ** attempt);
  return base / 2 + Math.random() * base;
}
