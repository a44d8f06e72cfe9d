import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { DatabaseTarget } from "./database-url.js";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client.js";
import { type Prisma, PrismaClient as SqliteClient } from "./generated/sqlite/client.js";
import type { Provider } from "./prisma-schema.js";
import { type Checkpointer, startCheckpointer } from "./sqlite-checkpoint.js";
import { SqliteDirect } from "./sqlite-direct.js";

// One Prisma client per provider (each compiles queries for its own database), behind one type.
// Both are generated from the same models with the same scalar types, so their model APIs are
// identical; the store is written once against the SQLite client's types and the PostgreSQL
// client is viewed through them (the one cast in this package, in asShared below).

export type Client = SqliteClient;
export type Tx = Prisma.TransactionClient;

/** SQLite durability: see README "Durability". */
export type SqliteSynchronous = "FULL" | "NORMAL";

export interface DatabaseOptions {
  /** SQLite only; default ARBOR_SQLITE_SYNCHRONOUS, else NORMAL */
  synchronous?: SqliteSynchronous;
  /** PostgreSQL only: pool size; default 10 */
  poolSize?: number;
  /** SQLite only: the direct write path (docs/decisions/0020); default ARBOR_SQLITE_DIRECT, else on */
  direct?: boolean;
  /**
   * SQLite only: direct writes of one event-loop turn share a commit; default
   * ARBOR_SQLITE_GROUP_COMMIT, else on
   */
  groupCommit?: boolean;
}

export interface Database {
  provider: Provider;
  client: Client;
  /** a transaction that writes: statements see what committed before them (read committed) */
  writeTransaction<T>(run: (tx: Tx) => Promise<T>): Promise<T>;
  /** a transaction that only reads, from one snapshot, so it never sees half of a write */
  readTransaction<T>(run: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * SQLite: the hot writes, synchronous on the adapter's own connection (sqlite-direct.ts,
   * docs/decisions/0020); absent on PostgreSQL, or when `ARBOR_SQLITE_DIRECT=0`
   */
  direct?: SqliteDirect;
  close(): Promise<void>;
}

// Generous: 100 sessions writing at once queue for one SQLite connection or a pool of 10.
const TX_OPTIONS = { maxWait: 30_000, timeout: 30_000 };

/** options.synchronous, else ARBOR_SQLITE_SYNCHRONOUS, else NORMAL (docs/decisions/0006) */
export function sqliteSynchronous(options: DatabaseOptions): SqliteSynchronous {
  const value =
    options.synchronous ?? process.env.ARBOR_SQLITE_SYNCHRONOUS?.toUpperCase() ?? "NORMAL";
  if (value !== "FULL" && value !== "NORMAL") {
    throw new Error(`ARBOR_SQLITE_SYNCHRONOUS must be FULL or NORMAL (got ${value})`);
  }
  return value;
}

/** options.direct, else ARBOR_SQLITE_DIRECT (0 turns it off), else on */
function sqliteDirectEnabled(options: DatabaseOptions): boolean {
  return options.direct ?? process.env.ARBOR_SQLITE_DIRECT !== "0";
}

/** options.groupCommit, else ARBOR_SQLITE_GROUP_COMMIT (0 turns it off), else on */
function sqliteGroupCommit(options: DatabaseOptions): boolean {
  return options.groupCommit ?? process.env.ARBOR_SQLITE_GROUP_COMMIT !== "0";
}

function asShared(client: PostgresClient): Client {
  return client as unknown as Client;
}

export async function openDatabase(
  target: DatabaseTarget,
  options: DatabaseOptions = {},
): Promise<Database> {
  if (target.provider === "postgresql") {
    const pg = new PostgresClient({
      adapter: new PrismaPg({ connectionString: target.url, max: options.poolSize ?? 10 }),
    });
    await pg.$connect();
    return {
      provider: "postgresql",
      client: asShared(pg),
      // The write path takes the session row's lock first, then reads the next sequence: under
      // read committed each statement sees what the previous lock holder committed.
      writeTransaction: (run) =>
        pg.$transaction((tx) => run(tx as unknown as Tx), {
          ...TX_OPTIONS,
          isolationLevel: "ReadCommitted",
        }),
      readTransaction: (run) =>
        pg.$transaction((tx) => run(tx as unknown as Tx), {
          ...TX_OPTIONS,
          isolationLevel: "RepeatableRead",
        }),
      close: () => pg.$disconnect(),
    };
  }
  // timeout: how long a writer waits for another process's write lock (busy_timeout)
  const direct = new SqliteDirect({ groupCommit: sqliteGroupCommit(options) });
  const client = new SqliteClient({
    adapter: direct.wrapFactory(new PrismaBetterSqlite3({ url: target.url, timeout: 15_000 })),
  });
  await client.$connect();
  // WAL: readers never block the writer and a commit is one append to the log. synchronous
  // NORMAL (the default): a commit is in the OS once write() returns, so a killed process loses
  // nothing acknowledged; an OS crash may roll back the last commits. FULL fsyncs every commit
  // (power-cut safe, ~3 ms per write). See docs/decisions/0006. Foreign keys are off by default.
  await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await client.$executeRawUnsafe(`PRAGMA synchronous = ${sqliteSynchronous(options)}`);
  await client.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  // The direct write path checkpoints the WAL on a worker thread instead of inside a COMMIT
  // (sqlite-checkpoint.ts): a checkpoint's fsyncs no longer stall the event loop
  const useDirect = direct.available && sqliteDirectEnabled(options);
  let checkpointer: Checkpointer | undefined;
  if (useDirect && target.file !== undefined) {
    await client.$queryRawUnsafe("PRAGMA wal_autocheckpoint = 0");
    checkpointer = startCheckpointer(target.file, (problem) => {
      console.warn(`[arbor/db] WAL checkpoint failed: ${problem}`);
    });
  }
  // The adapter has one connection and serialises transactions on it, but a query outside a
  // transaction would run inside whichever transaction is open: every store operation therefore
  // runs in a transaction, reads included.
  const transaction = <T>(run: (tx: Tx) => Promise<T>) => client.$transaction(run, TX_OPTIONS);
  return {
    provider: "sqlite",
    client,
    writeTransaction: transaction,
    readTransaction: transaction,
    ...(useDirect ? { direct } : {}),
    async close() {
      await checkpointer?.close();
      await client.$disconnect();
    },
  };
}
