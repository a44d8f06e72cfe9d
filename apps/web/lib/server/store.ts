import type { Logger, SessionCoordinator, SessionStore } from "@arbor/core";
import type { Database } from "@arbor/db";

// Opens the session store: @arbor/db's Prisma store, a SQLite file in ARBOR_DATA_DIR (default
// <cwd>/.data) or PostgreSQL when DATABASE_URL says so. Migrations run on open (skipped when
// already applied), so a fresh checkout starts with no setup step.
//
// @arbor/db is imported at run time, not bundled: Prisma's engines load .wasm files and native
// drivers by path, which breaks inside a bundle, and Turbopack bundles workspace packages even
// when serverExternalPackages names them. Node then loads packages/db/dist (built by turbo's
// ^build before the app); Vitest resolves the same import to the TypeScript source.

type Env = Record<string, string | undefined>;

export interface OpenedStore {
  store: SessionStore;
  close(): Promise<void>;
  /** where the data is (the SQLite file, or the PostgreSQL URL without credentials) */
  location: string;
  /** the database underneath: people, shares, tokens, audit and budgets live in it too */
  database: Database;
  provider: "sqlite" | "postgresql";
  /**
   * PostgreSQL: the coordinator that lets several instances share the database's sessions
   * (leases, cross-instance events; docs/decisions/0030). Absent on SQLite.
   */
  coordinator?: SessionCoordinator & { close(): Promise<void>; readonly leases: string[] };
}

export async function openStore(env: Env, logger: Logger): Promise<OpenedStore> {
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  const dataDir = env.ARBOR_DATA_DIR?.trim() || undefined;
  const { createStore } = await import(/* turbopackIgnore: true */ "@arbor/db");
  const opened = await createStore({
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(dataDir ? { dataDir } : {}),
    logger,
    coordinate: true,
  });
  if (opened.applied.length > 0) {
    logger.info("database migrated", { applied: opened.applied, location: opened.location });
  }
  return {
    store: opened.store,
    close: opened.close,
    location: opened.location,
    database: opened.db,
    provider: opened.provider,
    ...(opened.coordinator ? { coordinator: opened.coordinator } : {}),
  };
}
