import type { DisabledExtension, ExtensionKind, ExtensionSwitchRecords } from "@arbor/core";
import type { Database } from "./database.js";

// Skills and sub-agents switched off in Settings (issue #27, decision 0057), in
// `disabled_extensions`: the core's ExtensionSwitchRecords (skills/switches.ts) over Prisma, so a
// switch made through one instance is read by every other at its next poll. Switching off is one
// INSERT … ON CONFLICT DO NOTHING (the same SQL on SQLite and PostgreSQL): two admins switching
// the same one off at once keep the first record, and neither fails.

export class ExtensionSwitchTable implements ExtensionSwitchRecords {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async list(): Promise<DisabledExtension[]> {
    const rows = await this.#db.client.disabledExtension.findMany({
      orderBy: [{ kind: "asc" }, { name: "asc" }],
    });
    return rows.flatMap((row) =>
      row.kind === "skill" || row.kind === "agent"
        ? [
            {
              kind: row.kind,
              name: row.name,
              by: { id: row.byId, name: row.byName },
              at: Number(row.disabledAt),
            },
          ]
        : [],
    );
  }

  async disable(entry: DisabledExtension): Promise<void> {
    await this.#db.client.$executeRaw`
      INSERT INTO "disabled_extensions" ("kind", "name", "by_id", "by_name", "disabled_at")
      VALUES (${entry.kind}, ${entry.name}, ${entry.by.id}, ${entry.by.name}, ${BigInt(entry.at)})
      ON CONFLICT DO NOTHING`;
  }

  async enable(kind: ExtensionKind, name: string): Promise<boolean> {
    const { count } = await this.#db.client.disabledExtension.deleteMany({ where: { kind, name } });
    return count > 0;
  }
}
