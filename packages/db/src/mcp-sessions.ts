import type { McpSessionRow, McpSessionStore } from "@arbor/core";
import type { Database } from "./database.js";

// The sessions of Arbor's MCP server (/api/mcp) in `mcp_sessions` (issue #26), so every instance
// serves every request of every session: the core's McpSessionStore (folding/mcp-session-store.ts)
// over Prisma, the same on SQLite and PostgreSQL. A row is found by the SHA-256 of the session id
// (the core hashes it); `save` writes only over the version it read (an optimistic lock: the
// core redoes a change that lost the race), so two instances changing one session's folds at
// once lose neither change.

export class PrismaMcpSessionStore implements McpSessionStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async create(key: string, row: { personId: string; state: string; now: number }) {
    const at = BigInt(row.now);
    await this.#db.client.mcpSession.create({
      data: { key, personId: row.personId, state: row.state, createdAt: at, lastUsedAt: at },
    });
  }

  async get(key: string): Promise<McpSessionRow | undefined> {
    const row = await this.#db.client.mcpSession.findUnique({ where: { key } });
    if (row === null) return undefined;
    return {
      personId: row.personId,
      state: row.state,
      version: row.version,
      createdAt: Number(row.createdAt),
      lastUsedAt: Number(row.lastUsedAt),
    };
  }

  async save(key: string, state: string, version: number, now: number) {
    const { count } = await this.#db.client.mcpSession.updateMany({
      where: { key, version },
      data: { state, version: version + 1, lastUsedAt: BigInt(now) },
    });
    return count === 1;
  }

  async touch(key: string, now: number) {
    const at = BigInt(now);
    await this.#db.client.mcpSession.updateMany({
      where: { key, lastUsedAt: { lt: at } },
      data: { lastUsedAt: at },
    });
  }

  async delete(key: string) {
    const { count } = await this.#db.client.mcpSession.deleteMany({ where: { key } });
    return count > 0;
  }

  async prune(before: number) {
    const { count } = await this.#db.client.mcpSession.deleteMany({
      where: { lastUsedAt: { lt: BigInt(before) } },
    });
    return count;
  }

  async trim(personId: string, keep: number) {
    const beyond = await this.#db.client.mcpSession.findMany({
      where: { personId },
      orderBy: [{ lastUsedAt: "desc" }, { key: "asc" }],
      skip: keep,
      select: { key: true },
    });
    if (beyond.length === 0) return 0;
    const { count } = await this.#db.client.mcpSession.deleteMany({
      where: { key: { in: beyond.map((row) => row.key) } },
    });
    return count;
  }
}
