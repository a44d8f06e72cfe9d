import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { migrationsDir, type Provider } from "./prisma-schema.js";

// Whether an SQLite database already holds every committed migration, read straight from the
// `_prisma_migrations` table the schema engine keeps. An app start on a migrated database then
// loads neither @prisma/internals nor the 5 MB WebAssembly engine (about a CPU second); anything
// else (no file, no table, a migration missing, failed, rolled back or unknown to this version)
// goes to the engine, which applies, refuses or reports exactly as before.
// (docs/decisions/0082-storage-entry-and-migration-check.md)

/** The committed migrations of `provider`, oldest first (the folder names). */
export function committedMigrationNames(provider: Provider): string[] {
  const dir = migrationsDir(provider);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

interface MigrationRow {
  migration_name: string;
  finished_at: string | null;
  rolled_back_at: string | null;
}

/** True when the SQLite `file` has finished exactly the migrations `names`, and nothing failed. */
export function sqliteHasMigrations(file: string, names: readonly string[]): boolean {
  if (!existsSync(file)) return false;
  const Database = createRequire(import.meta.url)(
    "better-sqlite3",
  ) as typeof import("better-sqlite3");
  let db: import("better-sqlite3").Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const table = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'")
      .get();
    if (table === undefined) return false;
    const rows = db
      .prepare("SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations")
      .all() as MigrationRow[];
    const finished = new Set<string>();
    for (const row of rows) {
      if (row.rolled_back_at !== null) continue;
      // started and never finished: a failed migration, which the engine must report
      if (row.finished_at === null) return false;
      finished.add(row.migration_name);
    }
    return finished.size === names.length && names.every((name) => finished.has(name));
  } catch {
    // unreadable here (locked, not a database, …): the engine says what is wrong
    return false;
  } finally {
    db?.close();
  }
}
