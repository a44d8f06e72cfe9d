import type { AppMcpServerRecord, AppMcpServerRecords } from "@arbor/core";
import type { Database } from "./database.js";
import { isUniqueViolation } from "./failures.js";

// The MCP servers added in the settings (issue #27, docs/decisions/0056), in `app_mcp_servers`:
// the core's AppMcpServerRecords (mcp/app-servers.ts) over Prisma, so a server added through one
// instance is offered by every instance on the database. The name is the primary key: two
// instances adding one name at once keep one (the other's insert is a unique violation, answered
// false). The stamp the other instances poll is each row's name, version and time: a few short
// values per server, so a poll every two seconds reads next to nothing.

export class AppMcpServerTable implements AppMcpServerRecords {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async list(): Promise<AppMcpServerRecord[]> {
    const rows = await this.#db.client.appMcpServer.findMany({ orderBy: { name: "asc" } });
    return rows.map(recordOf);
  }

  async add(record: AppMcpServerRecord): Promise<boolean> {
    try {
      await this.#db.client.appMcpServer.create({
        data: {
          name: record.name,
          definition: JSON.stringify(record.definition),
          enabled: record.enabled,
          addedById: record.addedBy?.id ?? null,
          addedByName: record.addedBy?.name ?? null,
          addedAt: BigInt(record.addedAt),
          updatedAt: BigInt(record.updatedAt),
          version: record.version,
        },
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async setEnabled(name: string, enabled: boolean, now: number): Promise<boolean> {
    const { count } = await this.#db.client.appMcpServer.updateMany({
      where: { name },
      data: { enabled, updatedAt: BigInt(now), version: { increment: 1 } },
    });
    return count > 0;
  }

  async remove(name: string): Promise<boolean> {
    const { count } = await this.#db.client.appMcpServer.deleteMany({ where: { name } });
    return count > 0;
  }

  async stamp(): Promise<string> {
    const rows = await this.#db.client.appMcpServer.findMany({
      select: { name: true, version: true, updatedAt: true },
      orderBy: { name: "asc" },
    });
    return JSON.stringify(rows.map((r) => [r.name, r.version, String(r.updatedAt)]));
  }
}

function recordOf(row: {
  name: string;
  definition: string;
  enabled: boolean;
  addedById: string | null;
  addedByName: string | null;
  addedAt: bigint;
  updatedAt: bigint;
  version: number;
}): AppMcpServerRecord {
  let definition: unknown;
  try {
    definition = JSON.parse(row.definition);
  } catch (error) {
    throw new Error(
      `app_mcp_servers row ${row.name}: the definition is not JSON (${(error as Error).message})`,
    );
  }
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    throw new Error(`app_mcp_servers row ${row.name}: the definition is not a JSON object`);
  }
  return {
    name: row.name,
    definition: definition as Record<string, unknown>,
    enabled: row.enabled,
    addedBy:
      row.addedById !== null ? { id: row.addedById, name: row.addedByName ?? row.addedById } : null,
    addedAt: Number(row.addedAt),
    updatedAt: Number(row.updatedAt),
    version: row.version,
  };
}
