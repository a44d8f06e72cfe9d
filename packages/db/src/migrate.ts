import { type DatabaseTarget, parseDatabaseUrl } from "./database-url.js";
import { committedMigrationNames, sqliteHasMigrations } from "./migration-status.js";
import type { Provider } from "./prisma-schema.js";
import { migrateEmptySqlite } from "./sqlite-fresh-migrations.js";

// Migrations: the committed folders under prisma/migrations/<provider>/ (SQLite and PostgreSQL
// SQL differ, so each provider has its own history, both generated from the one schema by
// `db:migrate:create`). They are applied by createStore on every start and by `pnpm db:migrate`;
// the engine records what it ran in _prisma_migrations, so applying again is a no-op. An SQLite
// database that already has them all is told apart without the engine (migration-status.ts), and
// an empty one is migrated without it (sqlite-fresh-migrations.ts).

export interface ApplyResult {
  provider: Provider;
  applied: string[];
}

/** Applies every committed migration not yet in the database. Safe to call on every start. */
export async function applyMigrations(urlOrTarget: string | DatabaseTarget): Promise<ApplyResult> {
  const target = typeof urlOrTarget === "string" ? parseDatabaseUrl(urlOrTarget) : urlOrTarget;
  if (target.file !== undefined) {
    const names = committedMigrationNames(target.provider);
    if (sqliteHasMigrations(target.file, names)) return { provider: target.provider, applied: [] };
    if (emptySqliteMigrated(target.file, names))
      return { provider: target.provider, applied: names };
  }
  const { applyMigrationsWithEngine } = await import("./schema-engine.js");
  return applyMigrationsWithEngine(target);
}

/**
 * An empty SQLite database migrated without the engine. A script that fails there was rolled
 * back: false, and the engine runs it again to name the migration that fails, in its own words.
 */
function emptySqliteMigrated(file: string, names: readonly string[]): boolean {
  try {
    return migrateEmptySqlite(file, names);
  } catch {
    return false;
  }
}
