import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type McpConfigSource, parseMcpConfig } from "./config.js";

// The MCP servers a person added in the settings (issue #27): the app's own mcp_servers.json in
// the data directory, which tool processes cannot see or write (the sandbox hides the data dir).
// A server written here was trusted by the act of the person who added it (an admin, recorded in
// the audit log by the route), so its source needs no further trust; but it is checked as a
// workspace file is, so it cannot pass one of Arbor's own secrets to the server through `${VAR}`.

export const APP_MCP_CONFIG_FILE = "mcp_servers.json";

/** The app's own MCP config in the data directory, as one of the manager's sources. */
export function appMcpConfigSource(dataDir: string): McpConfigSource {
  const path = join(dataDir, APP_MCP_CONFIG_FILE);
  return { path, file: path, needsTrust: false };
}

type Env = Readonly<Record<string, string | undefined>>;
type Entry = Record<string, unknown>;

export type AddAppServerResult =
  | { type: "added"; hash: string }
  | { type: "exists" }
  | { type: "invalid"; field: string; message: string };

export type ChangeAppServerResult = { type: "changed" } | { type: "not_found" };

/** Reads and rewrites the app's own file; changes are serialized, each write is atomic. */
export class AppMcpServers {
  readonly #path: string;
  readonly #env: Env;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(source: McpConfigSource, env: Env) {
    this.#path = source.path;
    this.#env = env;
  }

  get path(): string {
    return this.#path;
  }

  /** The servers by name, as written (absent file: none). */
  async entries(): Promise<Record<string, Entry>> {
    let text: string;
    try {
      text = await readFile(this.#path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
    const json = JSON.parse(text) as { mcpServers?: Record<string, Entry> };
    return json.mcpServers ?? {};
  }

  /**
   * Adds one server, unless the name is taken here; an entry the parser refuses (or one naming
   * Arbor's secrets) is `invalid` with the field, relative to the entry (`command`, `args[0]`).
   */
  add(name: string, entry: Entry): Promise<AddAppServerResult> {
    return this.#serial(async () => {
      const servers = await this.entries();
      if (Object.hasOwn(servers, name)) return { type: "exists" } as const;
      const checked = parseMcpConfig(JSON.stringify({ mcpServers: { [name]: entry } }), this.#env, {
        file: this.#path,
        needsTrust: true,
      });
      const problem = checked.problems[0];
      if (problem !== undefined) {
        const prefix = `mcpServers.${name}.`;
        const field = problem.field.startsWith(prefix)
          ? problem.field.slice(prefix.length)
          : problem.field;
        return { type: "invalid", field, message: problem.message } as const;
      }
      await this.#write({ ...servers, [name]: entry });
      return { type: "added", hash: checked.servers[0]?.hash ?? "" } as const;
    });
  }

  /** Turns a server off (`"disabled": true`: it stays listed, its tools go) or on again. */
  setEnabled(name: string, enabled: boolean): Promise<ChangeAppServerResult> {
    return this.#serial(async () => {
      const servers = await this.entries();
      const entry = servers[name];
      if (entry === undefined) return { type: "not_found" } as const;
      const { disabled: _was, ...rest } = entry;
      await this.#write({ ...servers, [name]: enabled ? rest : { ...rest, disabled: true } });
      return { type: "changed" } as const;
    });
  }

  remove(name: string): Promise<ChangeAppServerResult> {
    return this.#serial(async () => {
      const servers = await this.entries();
      if (servers[name] === undefined) return { type: "not_found" } as const;
      const { [name]: _removed, ...rest } = servers;
      await this.#write(rest);
      return { type: "changed" } as const;
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #write(servers: Record<string, Entry>): Promise<void> {
    await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
    const temporary = `${this.#path}.${randomUUID()}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`, {
      mode: 0o600,
    });
    await rename(temporary, this.#path);
  }
}
