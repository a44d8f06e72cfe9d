import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { pollStore } from "../store/poll.js";
import { type McpConfigSource, parseMcpConfig } from "./config.js";

// The MCP servers a person added in the settings (issue #27, docs/decisions/0056): rows of the
// database (AppMcpServerRecords; @arbor/db's AppMcpServerTable is one), so a server added through
// one instance is offered by every instance on that database. The manager reads them as one more
// source (`source()`), which needs no trust: a server here was trusted by the act of the admin who
// added it (the route audits it). But each is checked as a workspace file's entry is, so it cannot
// pass one of Arbor's own secrets to the server through `${VAR}`. Tools never reach the database.
//
// Each instance compares a cheap stamp of the rows (name, version, time of each) every few seconds
// (`poll`, the same timer as workspace trust and provider keys) and tells its listeners (the
// manager's reload) when another instance changed something.

/** What the API's `file` says of a server added in the settings, and the manager's source name. */
export const APP_MCP_SOURCE = "settings (database)";

/** The file an older version kept these servers in, in the data directory (brought over once). */
export const APP_MCP_CONFIG_FILE = "mcp_servers.json";

type Env = Readonly<Record<string, string | undefined>>;
type Entry = Record<string, unknown>;

/** One server added in the settings, as stored. */
export interface AppMcpServerRecord {
  name: string;
  /** the entry in mcp_servers.json's format (`command`, `args`, … or `url`, …), without `disabled` */
  definition: Entry;
  enabled: boolean;
  /** who added it; null for one brought over from an older version's file */
  addedBy: { id: string; name: string } | null;
  /** milliseconds since the epoch */
  addedAt: number;
  updatedAt: number;
  /** 1 when added, one more with each change */
  version: number;
}

/** Where the servers added in the settings are kept (one set for the whole install). */
export interface AppMcpServerRecords {
  /** Every server, by name. */
  list(): Promise<AppMcpServerRecord[]>;
  /** Keeps `record` unless its name is taken: false then, even when two instances add it at once. */
  add(record: AppMcpServerRecord): Promise<boolean>;
  /** Turns one on or off (its version goes up); false when there is none by that name. */
  setEnabled(name: string, enabled: boolean, now: number): Promise<boolean>;
  /** false when there was none by that name */
  remove(name: string): Promise<boolean>;
  /** Changes whenever a server is added, changed or removed, by any instance; cheap to read. */
  stamp(): Promise<string>;
}

export type AddAppServerResult =
  | { type: "added"; hash: string }
  | { type: "exists" }
  | { type: "invalid"; field: string; message: string };

export type ChangeAppServerResult = { type: "changed" } | { type: "not_found" };

export interface AppMcpServersOptions {
  records: AppMcpServerRecords;
  /** the environment a `${VAR}` of an entry is checked against (tool processes') */
  env: Env;
  now?: () => number;
}

export class AppMcpServers {
  readonly file = APP_MCP_SOURCE;
  readonly #records: AppMcpServerRecords;
  readonly #env: Env;
  readonly #now: () => number;
  #stamp: string | undefined;
  #listeners = new Set<() => void>();

  constructor(options: AppMcpServersOptions) {
    this.#records = options.records;
    this.#env = options.env;
    this.#now = options.now ?? Date.now;
  }

  /** The manager's source: the rows as mcp_servers.json's text, read at each reload. */
  source(): McpConfigSource {
    return {
      path: APP_MCP_SOURCE,
      file: APP_MCP_SOURCE,
      needsTrust: false,
      read: async () => JSON.stringify({ mcpServers: await this.entries() }),
    };
  }

  /** The servers by name as mcp_servers.json would hold them (`"disabled": true` when off). */
  async entries(): Promise<Record<string, Entry>> {
    const records = await this.#records.list();
    return Object.fromEntries(
      records.map((r) => [r.name, r.enabled ? r.definition : { ...r.definition, disabled: true }]),
    );
  }

  /** The stored rows (who added each, when). */
  records(): Promise<AppMcpServerRecord[]> {
    return this.#records.list();
  }

  /**
   * Adds one server, unless the name is taken here; an entry the parser refuses (or one naming
   * Arbor's secrets) is `invalid` with the field, relative to the entry (`command`, `args[0]`).
   */
  async add(
    name: string,
    entry: Entry,
    by: { id: string; name: string } | null,
  ): Promise<AddAppServerResult> {
    const checked = parseMcpConfig(JSON.stringify({ mcpServers: { [name]: entry } }), this.#env, {
      file: APP_MCP_SOURCE,
      needsTrust: true,
    });
    const problem = checked.problems[0];
    if (problem !== undefined) {
      const prefix = `mcpServers.${name}.`;
      const field = problem.field.startsWith(prefix)
        ? problem.field.slice(prefix.length)
        : problem.field;
      return { type: "invalid", field, message: problem.message };
    }
    const { disabled: _off, ...definition } = entry;
    const now = this.#now();
    const added = await this.#records.add({
      name,
      definition,
      enabled: true,
      addedBy: by,
      addedAt: now,
      updatedAt: now,
      version: 1,
    });
    if (!added) return { type: "exists" };
    return { type: "added", hash: checked.servers[0]?.hash ?? "" };
  }

  /** Turns a server off (it stays listed, its tools go) or on again. */
  async setEnabled(name: string, enabled: boolean): Promise<ChangeAppServerResult> {
    const changed = await this.#records.setEnabled(name, enabled, this.#now());
    return changed ? { type: "changed" } : { type: "not_found" };
  }

  async remove(name: string): Promise<ChangeAppServerResult> {
    return (await this.#records.remove(name)) ? { type: "changed" } : { type: "not_found" };
  }

  /**
   * Rereads the stamp; when it changed since the last read, tells the listeners and resolves true.
   * The first read only records it (the manager read the rows at its start).
   */
  async refresh(): Promise<boolean> {
    const stamp = await this.#records.stamp();
    const before = this.#stamp;
    this.#stamp = stamp;
    if (before === undefined || before === stamp) return false;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
    return true;
  }

  /** Called after another instance (or this one) changed the servers, as `refresh` saw it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Rereads the stamp every `intervalMs` (another instance may add a server); returns the stop. */
  poll(onError: (error: Error) => void, intervalMs?: number): () => void {
    return pollStore(() => this.refresh(), onError, intervalMs);
  }
}

/** What importAppMcpFile did. */
export interface AppMcpImport {
  /** the older file (renamed to `<file>.imported` once read) */
  file: string;
  /** the servers it held that are now rows (a name already kept is left as it is) */
  imported: string[];
  /** the servers it held whose names were already kept */
  kept: string[];
}

/**
 * Brings an older version's `<data dir>/mcp_servers.json` (the servers added in the settings
 * before they lived in the database) into `records` once, then renames it `….imported`: an
 * upgrade loses none of them. Idempotent: a name already kept is not replaced (a start that died
 * before the rename imports nothing twice). Each server keeps its on/off state; who added it is
 * unknown (null). An entry is taken as written, as the older version ran it (the file sat in the
 * owner's data directory, out of the tools' reach). Undefined when there is no file; throws when
 * it does not parse (it is left in place, to be fixed by hand).
 */
export async function importAppMcpFile(
  dataDir: string,
  records: AppMcpServerRecords,
  now: () => number = Date.now,
): Promise<AppMcpImport | undefined> {
  const file = join(dataDir, APP_MCP_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const json = JSON.parse(text) as unknown;
  const servers =
    typeof json === "object" && json !== null && "mcpServers" in json ? json.mcpServers : undefined;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new Error(`${file}: expected {"mcpServers": {…}}`);
  }
  const result: AppMcpImport = { file, imported: [], kept: [] };
  for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error(`${file}: mcpServers.${name} is not an object`);
    }
    const { disabled, ...definition } = value as Entry;
    const at = now();
    const added = await records.add({
      name,
      definition,
      enabled: disabled !== true,
      addedBy: null,
      addedAt: at,
      updatedAt: at,
      version: 1,
    });
    (added ? result.imported : result.kept).push(name);
  }
  await rename(file, `${file}.imported`);
  return result;
}
