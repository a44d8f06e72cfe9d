import { type DatabaseTarget, parseDatabaseUrl } from "./database-url.js";
import { committedMigrationNames, sqliteHasMigrations } from "./migration-status.js";
import type { Provider } from "./prisma-schema.js";

// Migrations: the committed folders under prisma/migrations/<provider>/ (SQLite and PostgreSQL
// SQL differ, so each provider has its own history, both generated from the one schema by
// `db:migrate:create`). They are applied by createStore on every start and by `pnpm db:migrate`;
// the engine records what it ran in _prisma_migrations, so applying again is a no-op. An SQLite
// database that already has them all is told apart without the engine (migration-status.ts).

export interface ApplyResult {
  provider: Provider;
  applied: string[];
}

/** Applies every committed migration not yet in the database. Safe to call on every start. */
export async function applyMigrations(urlOrTarget: string | DatabaseTarget): Promise<ApplyResult> {
  const target = typeof urlOrTarget === "string" ? parseDatabaseUrl(urlOrTarget) : urlOrTarget;
  if (
    target.file !== undefined &&
    sqliteHasMigrations(target.file, committedMigrationNames(target.provider))
  ) {
    return { provider: target.provider, applied: [] };
  }
  const { loadMigrationList, NO_FILTERS, withSchemaEngine } = await import("./schema-engine.js");
  const { appliedMigrationNames } = await withSchemaEngine(target, (engine) =>
    engine.applyMigrations({
      migrationsList: loadMigrationList(target.provider),
      filters: NO_FILTERS,
    }),
  );
  return { provider: target.provider, applied: appliedMigrationNames };
}
