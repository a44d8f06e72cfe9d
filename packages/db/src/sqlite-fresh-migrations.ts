import { createHash, randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { migrationsDir } from "./prisma-schema.js";

// An empty SQLite database (a first start: createStore has just made the file) gets the committed
// migrations without the schema engine, which costs about a CPU second to load. The scripts are the
// same files the engine runs, and `_prisma_migrations` is written as the engine writes it: its
// table, one row per migration with the file's SHA-256, the times and one applied step. So the
// engine and `migration-status.ts` later read this database exactly as one the engine made; a test
// compares the two (sqlite-fresh-migrations.test.ts). All of it is one transaction: a failure or a
// crash leaves the database empty, and the engine then applies, or names what fails, as before.
// Anything but an empty database (a table in it, a missing script) is left to the engine.
// (docs/decisions/0085-a-first-start-loads-less.md)

/** `_prisma_migrations` as the schema engine creates it in SQLite (its own DDL, byte for byte). */
const MIGRATIONS_TABLE = `CREATE TABLE "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/** A time as the engine records it: RFC 3339, milliseconds, `+00:00`. */
function engineTime(date: Date): string {
  return date.toISOString().replace(/Z$/, "+00:00");
}

/**
 * Applies the migrations `names` (oldest first, folders of `dir`) to the SQLite `file` when it
 * holds no table yet. Returns true when it did; false when the database is not empty or a script
 * is missing, and then changes nothing. A script that fails rolls everything back and is thrown.
 */
export function migrateEmptySqlite(
  file: string,
  names: readonly string[],
  dir = migrationsDir("sqlite"),
): boolean {
  const scripts = names.map((name) => join(dir, name, "migration.sql"));
  if (names.length === 0 || !scripts.every((script) => existsSync(script))) return false;
  const Database = createRequire(import.meta.url)(
    "better-sqlite3",
  ) as typeof import("better-sqlite3");
  const db = new Database(file);
  try {
    // IMMEDIATE: the write lock before looking, so no other writer starts in between
    db.exec("BEGIN IMMEDIATE");
    try {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number };
      if (tables.n > 0) {
        db.exec("ROLLBACK");
        return false;
      }
      db.exec(MIGRATIONS_TABLE);
      const record = db.prepare(
        `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "logs", "rolled_back_at", "started_at", "applied_steps_count") VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
      );
      names.forEach((name, i) => {
        const script = readFileSync(scripts[i] as string, "utf8");
        const startedAt = engineTime(new Date());
        // a script's PRAGMA foreign_keys lines are no-ops inside the transaction; on an empty
        // database there is no row for a foreign key to catch while a table is rebuilt
        db.exec(script);
        const checksum = createHash("sha256").update(script).digest("hex");
        record.run(randomUUID(), checksum, engineTime(new Date()), name, startedAt);
      });
      db.exec("COMMIT");
      return true;
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  } finally {
    db.close();
  }
}
