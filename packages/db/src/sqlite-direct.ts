import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type BetterSqlite3 from "better-sqlite3";

// The hot writes on SQLite, run synchronously on the Prisma adapter's own better-sqlite3
// connection (docs/decisions/0020). Prisma's interactive transactions on that connection hold
// the adapter's mutex across every await of the transaction, so 50 streaming sessions queued
// behind one transaction at a time, and each statement went through Prisma's client, its query
// interpreter and a fresh `prepare`. Here a write is one IMMEDIATE transaction that runs from
// BEGIN to COMMIT without yielding, on statements prepared once.
//
// One connection, one lock: the adapter's `startTransaction` is wrapped so that a Prisma
// transaction first takes this module's lock and gives it back when it commits or rolls back. A
// direct write runs only while no Prisma transaction is open (otherwise its statements would land
// inside that transaction).
//
// Group commit across sessions: the writes asked for during one turn of the event loop (every
// session whose chunks arrived in it) are stored at the turn's check phase in ONE transaction,
// so one failing write rolls back alone (the group runs again, each write in a savepoint of its
// own, when one fails; savepoints are not paid while none does); writes that wait for a Prisma
// transaction are grouped the same way. A commit returns once it is in the WAL (decision 0006),
// and a write's promise resolves only after its commit: nothing is acknowledged before it is
// stored.

export type Connection = BetterSqlite3.Database;
export type Statement = BetterSqlite3.Statement;

/** A FIFO lock that can also be taken synchronously when it is free. */
class Lock {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  get held(): boolean {
    return this.#held;
  }

  tryAcquire(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    // handed over: stays held
    if (next !== undefined) next();
    else this.#held = false;
  }
}

interface Job<T> {
  work: (conn: DirectConnection) => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** Statements prepared once per SQL text (a small LRU: the hot set is a few dozen texts). */
export class StatementCache {
  readonly #conn: Connection;
  readonly #limit: number;
  readonly #statements = new Map<string, Statement>();

  constructor(conn: Connection, limit = 256) {
    this.#conn = conn;
    this.#limit = limit;
  }

  get size(): number {
    return this.#statements.size;
  }

  get(sql: string): Statement {
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // most recently used last
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = this.#conn.prepare(sql);
    this.#statements.set(sql, statement);
    if (this.#statements.size > this.#limit) {
      const oldest = this.#statements.keys().next().value as string;
      this.#statements.delete(oldest);
    }
    return statement;
  }
}

/** What a direct write sees: the connection's prepared statements. */
export interface DirectConnection {
  statement(sql: string): Statement;
}

export class SqliteDirect {
  readonly #lock = new Lock();
  #conn: Connection | undefined;
  #cache: StatementCache | undefined;
  #queue: Job<unknown>[] = [];
  #waiting = false;
  /** transactions committed and writes stored by them, for the bench and the tests */
  readonly stats = { transactions: 0, writes: 0 };
  readonly #groupCommit: boolean;

  /**
   * `groupCommit` (default on): the writes asked for in one turn of the event loop are stored in
   * one transaction at its check phase (setImmediate); off: each write at once when the
   * connection is free (writes that queue behind a Prisma transaction still share one).
   */
  constructor(options: { groupCommit?: boolean } = {}) {
    this.#groupCommit = options.groupCommit ?? true;
  }

  /** Whether the adapter's connection was found (false: every write goes through Prisma). */
  get available(): boolean {
    return this.#conn !== undefined;
  }

  /**
   * Wraps the adapter factory: the adapter it connects is the one Prisma uses; its connection is
   * kept for direct writes and its transactions take the shared lock.
   */
  wrapFactory(inner: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
    const connect = async (): Promise<SqlDriverAdapter> => {
      const adapter = await inner.connect();
      this.#attach(adapter);
      return adapter;
    };
    return {
      provider: inner.provider,
      adapterName: inner.adapterName,
      connect,
      connectToShadowDb: () => inner.connectToShadowDb(),
    };
  }

  #attach(adapter: SqlDriverAdapter): void {
    // @prisma/adapter-better-sqlite3 keeps its better-sqlite3 Database in `client`; should a
    // version stop doing so, the direct path stays off and Prisma does every write
    const client: unknown = Reflect.get(adapter, "client");
    if (!isConnection(client)) return;
    const lock = this.#lock;
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => {
      await lock.acquire();
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        lock.release();
      };
      try {
        const tx = await start(isolationLevel);
        const commit = tx.commit.bind(tx);
        const rollback = tx.rollback.bind(tx);
        tx.commit = () => commit().finally(release);
        tx.rollback = () => rollback().finally(release);
        return tx;
      } catch (error) {
        release();
        throw error;
      }
    };
    this.#conn = client;
    this.#cache = new StatementCache(client);
  }

  /**
   * Runs `work` in a transaction on the connection, synchronously once the connection is free;
   * resolves with its value after the commit, rejects with what it threw (its changes undone).
   */
  write<T>(work: (conn: DirectConnection) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve, reject } as Job<unknown>);
      if (this.#waiting) return;
      this.#waiting = true;
      if (this.#groupCommit) {
        // the writes asked for until the event loop's check phase share one commit
        setImmediate(() => this.#flushWhenFree());
        return;
      }
      this.#flushWhenFree();
    });
  }

  /**
   * Runs `work`, which only reads, on the connection once no Prisma transaction is open: at once
   * when none is (no BEGIN: one SELECT reads one consistent snapshot in WAL mode). It sees what is
   * committed, as a read through Prisma does; writes still queued for the turn's commit are not.
   */
  read<T>(work: (conn: DirectConnection) => T): Promise<T> {
    const run = (): T => {
      try {
        const conn = this.#conn;
        const cache = this.#cache;
        if (conn === undefined || cache === undefined || !conn.open) {
          throw new Error("the SQLite connection is not open");
        }
        return work({ statement: (sql) => cache.get(sql) });
      } finally {
        this.#lock.release();
      }
    };
    if (this.#lock.tryAcquire()) {
      try {
        return Promise.resolve(run());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#lock.acquire().then(run);
  }

  /** Flushes the queue now if no Prisma transaction is open, else once the last one ends. */
  #flushWhenFree(): void {
    if (this.#lock.tryAcquire()) {
      this.#waiting = false;
      this.#flush();
      return;
    }
    void this.#lock.acquire().then(() => {
      this.#waiting = false;
      this.#flush();
    });
  }

  /** Stores the queued writes in one transaction; the lock is held on entry and freed on exit. */
  #flush(): void {
    const jobs = this.#queue;
    this.#queue = [];
    try {
      if (jobs.length > 0) this.#store(jobs);
    } finally {
      this.#lock.release();
    }
  }

  #store(jobs: Job<unknown>[]): void {
    const conn = this.#conn;
    const cache = this.#cache;
    if (conn === undefined || cache === undefined || !conn.open) {
      for (const job of jobs) job.reject(new Error("the SQLite connection is not open"));
      return;
    }
    const direct: DirectConnection = { statement: (sql) => cache.get(sql) };
    const begin = (): boolean => {
      try {
        cache.get("BEGIN IMMEDIATE").run();
        return true;
      } catch (error) {
        // SQLITE_BUSY past the busy timeout (another process writes): the store retries each
        for (const job of jobs) job.reject(error);
        return false;
      }
    };
    if (!begin()) return;
    /** COMMIT, then `settle` the jobs; a COMMIT that fails rejects them all */
    const commit = (settle: () => void): void => {
      try {
        cache.get("COMMIT").run();
      } catch (error) {
        rollback(conn);
        for (const job of jobs) job.reject(error);
        return;
      }
      this.stats.transactions++;
      this.stats.writes += jobs.length;
      settle();
    };
    const alone = jobs.length === 1;
    if (!alone) {
      // First the group as it nearly always goes: every write in the one transaction, without a
      // savepoint each (two statements per write, as many as the write's own in a streaming
      // batch: issue #30's profile). Should one throw, the whole transaction is undone and the
      // group is stored again below with a savepoint per write, so that write fails alone, as
      // before. The writes are statements only (no state of their own), so running them again
      // on the same rows gives the same outcome.
      const values: unknown[] = [];
      try {
        for (const job of jobs) values.push(job.work(direct));
      } catch {
        rollback(conn);
        if (!begin()) return;
      }
      if (values.length === jobs.length) {
        commit(() => {
          for (const [index, job] of jobs.entries()) job.resolve(values[index]);
        });
        return;
      }
    }
    const settled: Array<() => void> = [];
    for (const [index, job] of jobs.entries()) {
      try {
        if (!alone) cache.get("SAVEPOINT arbor_write").run();
        const value = job.work(direct);
        if (!alone) cache.get("RELEASE arbor_write").run();
        settled.push(() => job.resolve(value));
      } catch (error) {
        if (!alone && conn.inTransaction) {
          try {
            // this write alone is undone; the others stay in the transaction
            cache.get("ROLLBACK TO arbor_write").run();
            cache.get("RELEASE arbor_write").run();
            settled.push(() => job.reject(error));
            continue;
          } catch {
            // fall through: give up the whole transaction
          }
        }
        // the transaction is gone (SQLite ends it on some errors) or the write was alone: this
        // write fails, the others of the group are stored again by a transaction of their own
        rollback(conn);
        job.reject(error);
        const others = [...jobs.slice(0, index), ...jobs.slice(index + 1)];
        if (others.length > 0) this.#store(others);
        return;
      }
    }
    commit(() => {
      for (const settle of settled) settle();
    });
  }
}

function rollback(conn: Connection): void {
  if (!conn.inTransaction) return;
  try {
    conn.prepare("ROLLBACK").run();
  } catch {
    // SQLite rolled it back already (some errors end the transaction themselves)
  }
}

function isConnection(value: unknown): value is Connection {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof Reflect.get(value, "prepare") === "function" &&
    typeof Reflect.get(value, "inTransaction") === "boolean"
  );
}
