import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "./database-url.js";
import { applyMigrations } from "./migrate.js";
import { committedMigrationNames, sqliteHasMigrations } from "./migration-status.js";
import { applyMigrationsWithEngine } from "./schema-engine.js";
import { prepareSqliteFile } from "./sqlite-files.js";
import { migrateEmptySqlite } from "./sqlite-fresh-migrations.js";

const Database = createRequire(import.meta.url)(
  "better-sqlite3",
) as typeof import("better-sqlite3");
const tmp = mkdtempSync(join(tmpdir(), "arbor-fresh-migrations-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const names = committedMigrationNames("sqlite");

function read<T>(file: string, statement: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(statement).all() as T[];
  } finally {
    db.close();
  }
}

/** Everything SQLite knows of the schema: tables, indexes, triggers, with their SQL. */
const schemaOf = (file: string) =>
  read(file, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");

interface Row {
  id: string;
  checksum: string;
  finished_at: string | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: string | null;
  started_at: string;
  applied_steps_count: number;
}
const rowsOf = (file: string) =>
  read<Row>(file, "SELECT * FROM _prisma_migrations ORDER BY migration_name");

/** An empty database file, as createStore makes it before migrating. */
function emptyFile(name: string): string {
  const file = join(tmp, `${name}.db`);
  prepareSqliteFile(file);
  return file;
}

describe("migrateEmptySqlite", () => {
  it("makes the database the engine makes: the same schema and the same migration records", async () => {
    const ours = emptyFile("ours");
    const theirs = emptyFile("theirs");
    expect(migrateEmptySqlite(ours, names)).toBe(true);
    await applyMigrationsWithEngine(parseDatabaseUrl(`file:${theirs}`));

    expect(schemaOf(ours)).toEqual(schemaOf(theirs));
    const timeOfEngine = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
    const comparable = (rows: Row[]) =>
      rows.map(({ id, started_at, finished_at, ...rest }) => {
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        expect(started_at).toMatch(timeOfEngine);
        expect(finished_at).toMatch(timeOfEngine);
        expect(finished_at! >= started_at).toBe(true);
        return rest;
      });
    expect(comparable(rowsOf(ours))).toEqual(comparable(rowsOf(theirs)));
    expect(rowsOf(ours).map((r) => r.migration_name)).toEqual(names);
  });

  it("leaves a database the engine reads as fully migrated: the next start and the engine apply nothing", async () => {
    const file = emptyFile("then-engine");
    expect((await applyMigrations(`file:${file}`)).applied).toEqual(names);
    expect(sqliteHasMigrations(file, names)).toBe(true);
    expect((await applyMigrations(`file:${file}`)).applied).toEqual([]);
    // the engine itself finds nothing to apply and nothing to complain about
    expect((await applyMigrationsWithEngine(parseDatabaseUrl(`file:${file}`))).applied).toEqual([]);
  });

  it("changes nothing in a database that has a table, which goes to the engine", () => {
    const file = emptyFile("not-empty");
    const db = new Database(file);
    db.exec("CREATE TABLE mine (x INTEGER)");
    db.close();
    expect(migrateEmptySqlite(file, names)).toBe(false);
    expect(schemaOf(file).map((e) => (e as { name: string }).name)).toEqual(["mine"]);
  });

  it("changes nothing when a script is missing", () => {
    const file = emptyFile("missing-script");
    expect(migrateEmptySqlite(file, [...names, "99990101000000_not_committed"])).toBe(false);
    expect(schemaOf(file)).toEqual([]);
  });

  it("rolls every migration back when one fails, and throws its error", () => {
    const dir = join(tmp, "migrations");
    for (const [name, script] of [
      ["1_good", "CREATE TABLE a (x INTEGER);"],
      ["2_bad", "CREATE TABLE b (x INTEGER);\nTHIS IS NOT SQL;"],
    ]) {
      mkdirSync(join(dir, name as string), { recursive: true });
      writeFileSync(join(dir, name as string, "migration.sql"), script as string);
    }
    const file = emptyFile("failing");
    expect(() => migrateEmptySqlite(file, ["1_good", "2_bad"], dir)).toThrow(/syntax error/);
    expect(schemaOf(file)).toEqual([]);
  });
});
