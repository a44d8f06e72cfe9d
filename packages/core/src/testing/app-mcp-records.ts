import type { AppMcpServerRecord, AppMcpServerRecords } from "../mcp/app-servers.js";

// The MCP servers added in the settings kept in memory: for tests of what sits on top of the
// store (@arbor/db's AppMcpServerTable is the real one, tested on SQLite and PostgreSQL).

/** AppMcpServerRecords in a Map. */
export class InMemoryAppMcpServerRecords implements AppMcpServerRecords {
  readonly #rows = new Map<string, AppMcpServerRecord>();

  async list(): Promise<AppMcpServerRecord[]> {
    return [...this.#rows.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => structuredClone(r));
  }

  async add(record: AppMcpServerRecord): Promise<boolean> {
    if (this.#rows.has(record.name)) return false;
    this.#rows.set(record.name, structuredClone(record));
    return true;
  }

  async setEnabled(name: string, enabled: boolean, now: number): Promise<boolean> {
    const row = this.#rows.get(name);
    if (row === undefined) return false;
    this.#rows.set(name, { ...row, enabled, updatedAt: now, version: row.version + 1 });
    return true;
  }

  async remove(name: string): Promise<boolean> {
    return this.#rows.delete(name);
  }

  async stamp(): Promise<string> {
    return JSON.stringify([...this.#rows.values()].map((r) => [r.name, r.version, r.updatedAt]));
  }
}
