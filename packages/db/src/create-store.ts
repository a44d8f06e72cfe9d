import { type Database, type DatabaseOptions, openDatabase } from "./database.js";
import { resolveDatabase, type DatabaseOptions as TargetOptions } from "./database-url.js";
import { applyMigrations } from "./migrate.js";
import { PgCoordinator } from "./pg-coordinator.js";
import { PrismaSessionStore, type StoreLogger } from "./prisma-session-store.js";
import { checkSqliteDriver } from "./sqlite-driver.js";
import { prepareSqliteFile, tightenSqliteFiles } from "./sqlite-files.js";

// The package's entry point for the app: resolve where the data lives, migrate, open. Safe to
// call on every server start: migrations that already ran are skipped, a missing SQLite file and
// its folder are created, readable by their owner only (0600 / 0700: sqlite-files.ts).

export interface CreateStoreOptions extends TargetOptions, DatabaseOptions {
  logger?: StoreLogger;
  /** skip applying migrations (the caller ran db:migrate); default false */
  skipMigrations?: boolean;
  now?: () => Date;
  /**
   * PostgreSQL only: open the coordinator several app instances share sessions through (leases,
   * cross-instance events; pg-coordinator.ts, docs/decisions/0030). Default false: the app asks.
   */
  coordinate?: boolean;
  /** the coordinator's polling interval for watchers (a lost notification), ms; default 1000 */
  pollIntervalMs?: number;
}

export interface CreatedStore {
  store: PrismaSessionStore;
  provider: "sqlite" | "postgresql";
  /** where the data is: the SQLite file, or the PostgreSQL URL without credentials */
  location: string;
  /** migrations applied by this call */
  applied: string[];
  /** the Prisma client underneath, for read-only admin queries beyond the store's interface */
  db: Database;
  /** PostgreSQL with `coordinate`: leases and cross-instance events for the SessionManager */
  coordinator?: PgCoordinator;
  close(): Promise<void>;
}

export async function createStore(options: CreateStoreOptions = {}): Promise<CreatedStore> {
  const target = resolveDatabase(options);
  // a driver built for another Node.js is said here, with its fix (sqlite-driver.ts)
  if (target.provider === "sqlite") checkSqliteDriver();
  if (target.file !== undefined) prepareSqliteFile(target.file);
  const applied = options.skipMigrations ? [] : (await applyMigrations(target)).applied;
  const db = await openDatabase(target, options);
  if (target.file !== undefined) tightenSqliteFiles(target.file);
  const store = new PrismaSessionStore(db, {
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const coordinator =
    options.coordinate && target.provider === "postgresql"
      ? await PgCoordinator.open({
          url: target.url,
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.pollIntervalMs === undefined
            ? {}
            : { pollIntervalMs: options.pollIntervalMs }),
        })
      : undefined;
  return {
    store,
    provider: target.provider,
    location: target.file ?? target.url.replace(/\/\/[^@/]*@/, "//"),
    applied,
    db,
    ...(coordinator ? { coordinator } : {}),
    async close() {
      await coordinator?.close();
      await db.close();
    },
  };
}
