import { createHash } from "node:crypto";
import type { FoldMemoryEntry, FoldMemoryRecords } from "@arbor/core";
import type { Database } from "./database.js";

// Fold memories in `fold_memories` (issue #26): the core's FoldMemoryRecords
// (folding/memory-store.ts) over Prisma, so a lesson kept through one instance is offered by
// every other. A lesson is added with one INSERT … ON CONFLICT DO NOTHING (the same SQL on SQLite
// and PostgreSQL) on the unique (workspace, content_key): two instances keeping the same lesson
// at once keep one copy, and both get that copy back.

/** The key that makes a lesson one: its description and text. */
function contentKey(description: string, text: string): string {
  return createHash("sha256").update(description).update("\0").update(text).digest("hex");
}

export class FoldMemoryTable implements FoldMemoryRecords {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async list(workspace: string): Promise<FoldMemoryEntry[]> {
    const rows = await this.#db.client.foldMemory.findMany({
      where: { workspace },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(entryOf);
  }

  async add(workspace: string, entry: FoldMemoryEntry, limit: number): Promise<FoldMemoryEntry> {
    const key = contentKey(entry.description, entry.text);
    await this.#db.client.$executeRaw`
      INSERT INTO "fold_memories" ("workspace", "id", "description", "text", "content_key", "created_at")
      VALUES (${workspace}, ${entry.id}, ${entry.description}, ${entry.text}, ${key}, ${BigInt(entry.createdAt)})
      ON CONFLICT DO NOTHING`;
    const kept = await this.#db.client.foldMemory.findFirst({
      where: { workspace, OR: [{ contentKey: key }, { id: entry.id }] },
      orderBy: { createdAt: "asc" },
    });
    // the oldest beyond the limit go
    const beyond = await this.#db.client.foldMemory.findMany({
      where: { workspace },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: limit,
      select: { id: true },
    });
    if (beyond.length > 0) {
      await this.#db.client.foldMemory.deleteMany({
        where: { workspace, id: { in: beyond.map((row) => row.id) } },
      });
    }
    return kept === null ? entry : entryOf(kept);
  }

  async forget(workspace: string, id: string): Promise<boolean> {
    const { count } = await this.#db.client.foldMemory.deleteMany({ where: { workspace, id } });
    return count > 0;
  }
}

function entryOf(row: {
  id: string;
  description: string;
  text: string;
  createdAt: bigint;
}): FoldMemoryEntry {
  return {
    id: row.id,
    description: row.description,
    text: row.text,
    createdAt: Number(row.createdAt),
  };
}
