import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "./database-url.js";
import { applyMigrations } from "./migrate.js";
import { committedMigrationNames, sqliteHasMigrations } from "./migration-status.js";
import { migrationsDir } from "./prisma-schema.js";
import { applyMigrationsWithEngine } from "./schema-engine.js";

const Database = createRequire(import.meta.url)(
  "better-sqlite3",
) as typeof import("better-sqlite3");
const tmp = mkdtempSync(join(tmpdir(), "arbor-migration-status-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh SQLite file migrated by the engine (not by sqlite-fresh-migrations.ts). */
async function migrated(name: string): Promise<string> {
  const file = join(tmp, `${name}.db`);
  await applyMigrationsWithEngine(parseDatabaseUrl(`file:${file}`));
  return file;
}

function sql(file: string, statement: string): void {
  const db = new Database(file);
  try {
    db.prepare(statement).run();
  } finally {
    db.close();
  }
}

describe("committedMigrationNames", () => {
  it("lists the provider's migration folders, oldest first", () => {
    const folders = readdirSync(migrationsDir("sqlite"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const names = committedMigrationNames("sqlite");
    expect(names.length).toBeGreaterThan(5);
    expect(names).toEqual([...folders].sort());
    expect(names[0]).toMatch(/_init$/);
  });
});

describe("sqliteHasMigrations", () => {
  const names = committedMigrationNames("sqlite");

  it("is true for a database the engine migrated, and the next start applies nothing", async () => {
    const file = await migrated("done");
    expect(sqliteHasMigrations(file, names)).toBe(true);
    expect((await applyMigrations(`file:${file}`)).applied).toEqual([]);
  });

  it("is false when a committed migration is missing, so the engine applies it", async () => {
    const file = await migrated("behind");
    const last = names.at(-1)!;
    sql(file, `DELETE FROM _prisma_migrations WHERE migration_name = '${last}'`);
    expect(sqliteHasMigrations(file, names)).toBe(false);
    expect(sqliteHasMigrations(file, names.slice(0, -1))).toBe(true);
    // the engine runs the script again; the last migration's tables exist, so it fails loudly
    // rather than passing in silence: the check never hides a database that is behind
    await expect(applyMigrations(`file:${file}`)).rejects.toThrow();
  });

  it("is false when the database has a migration this version does not know", async () => {
    const file = await migrated("ahead");
    expect(sqliteHasMigrations(file, names.slice(0, -1))).toBe(false);
  });

  it("is false when a migration started and never finished (the engine reports it)", async () => {
    const file = await migrated("failed");
    sql(
      file,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ('x', 'y', '99990101000000_broken', '2026-01-01T00:00:00.000+00:00', 0)`,
    );
    expect(sqliteHasMigrations(file, names)).toBe(false);
    await expect(applyMigrations(`file:${file}`)).rejects.toThrow(/99990101000000_broken/);
  });

  it("is false for a missing file, an empty database and a file that is not a database", () => {
    expect(sqliteHasMigrations(join(tmp, "nothing-here.db"), names)).toBe(false);
    const empty = join(tmp, "empty.db");
    new Database(empty).close();
    expect(sqliteHasMigrations(empty, names)).toBe(false);
    const junk = join(tmp, "junk.db");
    writeFileSync(junk, "not a database, only text that is long enough to have a header");
    expect(sqliteHasMigrations(junk, names)).toBe(false);
  });
});
