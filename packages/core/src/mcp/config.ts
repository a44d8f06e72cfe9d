import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { isNeverToolEnv } from "../tools/tool-env.js";
import { type DefinitionRuns, definitionHash } from "../trust/definitions.js";

// mcp_servers.json: the format users already have for Claude Desktop, Claude Code and Cursor.
//
//   {"mcpServers": {"<name>": {"command": "...", "args": [...], "env": {...}, "cwd": "..."},
//                   "<name>": {"url": "https://…/mcp", "headers": {...}},
//                   "<name>": {..., "disabled": true}}}
//
// `${VAR}` (and `${VAR:-default}`) in env, headers, args and url are taken from the server's
// environment. A file that does not parse is one problem; an invalid entry is a problem naming
// its field, and the other entries still load.
//
// Where servers come from: ARBOR_MCP_CONFIG (the user's own file) when set; else the workspace's
// mcp_servers.json and Claude Code's .mcp.json (same format; mcp_servers.json wins a name
// clash). A file of the workspace came with the repository: its servers start only once a person
// trusted them (trust/), and it cannot read Arbor's own secrets through `${VAR}`.

export const MCP_CONFIG_FILE = "mcp_servers.json";
export const MCP_PROJECT_CONFIG_FILE = ".mcp.json";
export const MCP_CONFIG_ENV = "ARBOR_MCP_CONFIG";

/** One file servers are read from. */
export interface McpConfigSource {
  /** absolute */
  path: string;
  /** as shown and as trust is kept: relative to the workspace (`/`), else the absolute path */
  file: string;
  /** a file inside the workspace: its servers wait for a person's trust */
  needsTrust: boolean;
  /**
   * Not a file: the config's text comes from here (the servers added in the settings, kept in the
   * database; app-servers.ts), and `path` only names the source. Nothing watches it.
   */
  read?: () => Promise<string>;
}

type Env = Readonly<Record<string, string | undefined>>;

interface ServerBase {
  name: string;
  disabled: boolean;
  /** the file it is defined in (McpConfigSource.file) */
  file: string;
  /** sha256 of the entry as written (trust/definitions.ts) */
  hash: string;
  /** defined in a workspace file: starts only when trusted */
  needsTrust: boolean;
  /** what it runs, for the trust prompt */
  runs: DefinitionRuns;
}
export interface StdioServerConfig extends ServerBase {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** `"network": false`: the process gets no network in the sandbox (default: it has one) */
  network: boolean;
}
export interface HttpServerConfig extends ServerBase {
  transport: "http";
  url: string;
  headers: Record<string, string>;
  /** `"type": "sse"`: the server speaks only the older HTTP+SSE transport (no Streamable HTTP try) */
  sseOnly: boolean;
}
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** Something wrong in the file: `field` is the JSON path of the wrong value. */
export interface McpConfigProblem {
  /** the server entry it concerns (absent: the file as a whole) */
  server?: string;
  field: string;
  message: string;
}

export interface McpConfig {
  /** the file read (absent files give no servers and no problems) */
  path: string;
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

/** The config file: ARBOR_MCP_CONFIG (relative to the workspace) when set, else the workspace's. */
export function mcpConfigPath(workspaceRoot: string, env: Env): string {
  const named = env[MCP_CONFIG_ENV]?.trim();
  if (named) return isAbsolute(named) ? named : resolve(workspaceRoot, named);
  return join(workspaceRoot, MCP_CONFIG_FILE);
}

/**
 * The files servers are read from, in order of precedence: ARBOR_MCP_CONFIG alone when set (a
 * path inside the workspace still needs trust: a tool can write it), else the workspace's
 * mcp_servers.json and .mcp.json.
 */
export function mcpConfigSources(workspaceRoot: string, env: Env): McpConfigSource[] {
  const root = resolve(workspaceRoot);
  const source = (path: string): McpConfigSource => {
    const inside = relative(root, path);
    const needsTrust = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
    return { path, file: needsTrust ? inside.split(sep).join("/") : path, needsTrust };
  };
  if (env[MCP_CONFIG_ENV]?.trim()) return [source(mcpConfigPath(root, env))];
  return [source(join(root, MCP_CONFIG_FILE)), source(join(root, MCP_PROJECT_CONFIG_FILE))];
}

export async function loadMcpConfig(
  path: string,
  env: Env,
  source: Omit<McpConfigSource, "path"> = { file: path, needsTrust: false },
): Promise<McpConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { path, servers: [], problems: [] };
    return {
      path,
      servers: [],
      problems: [{ field: "(file)", message: `cannot read ${path}: ${(error as Error).message}` }],
    };
  }
  return { path, ...parseMcpConfig(text, env, source) };
}

/** Reads every source; a server named in an earlier file hides the same name in a later one. */
export async function loadMcpConfigs(
  sources: readonly McpConfigSource[],
  env: Env,
): Promise<{
  servers: McpServerConfig[];
  problems: Array<McpConfigProblem & { file: string }>;
}> {
  const servers: McpServerConfig[] = [];
  const problems: Array<McpConfigProblem & { file: string }> = [];
  const seen = new Set<string>();
  for (const source of sources) {
    const config =
      source.read !== undefined
        ? await readMcpConfig(source, source.read, env)
        : await loadMcpConfig(source.path, env, source);
    for (const problem of config.problems) problems.push({ ...problem, file: source.file });
    for (const server of config.servers) {
      if (seen.has(server.name)) continue;
      seen.add(server.name);
      servers.push(server);
    }
    for (const problem of config.problems)
      if (problem.server !== undefined) seen.add(problem.server);
  }
  return { servers, problems };
}

/** A source that is not a file: a failed read is a problem of the source, as a file's would be. */
async function readMcpConfig(
  source: McpConfigSource,
  read: () => Promise<string>,
  env: Env,
): Promise<McpConfig> {
  let text: string;
  try {
    text = await read();
  } catch (error) {
    return {
      path: source.path,
      servers: [],
      problems: [
        { field: "(file)", message: `cannot read ${source.file}: ${(error as Error).message}` },
      ],
    };
  }
  return { path: source.path, ...parseMcpConfig(text, env, source) };
}

/** Parses the text of mcp_servers.json. */
export function parseMcpConfig(
  text: string,
  env: Env,
  source: Omit<McpConfigSource, "path"> = { file: MCP_CONFIG_FILE, needsTrust: false },
): { servers: McpServerConfig[]; problems: McpConfigProblem[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      servers: [],
      problems: [{ field: "(file)", message: `not valid JSON: ${(error as Error).message}` }],
    };
  }
  if (!isObject(json) || !isObject(json.mcpServers)) {
    return {
      servers: [],
      problems: [{ field: "mcpServers", message: "expected an object of servers by name" }],
    };
  }
  const servers: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = [];
  for (const [name, entry] of Object.entries(json.mcpServers)) {
    const result = parseEntry(name, entry, env, source);
    if ("problem" in result) problems.push({ server: name, ...result.problem });
    else servers.push(result.server);
  }
  return { servers, problems };
}

class EntryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function parseEntry(
  name: string,
  entry: unknown,
  serverEnv: Env,
  source: Omit<McpConfigSource, "path">,
): { server: McpServerConfig } | { problem: { field: string; message: string } } {
  const at = (key: string) => `mcpServers.${name}${key === "" ? "" : `.${key}`}`;
  // a workspace's file came with the repository: Arbor's own secrets are not its to read
  const env: Env = source.needsTrust ? withoutArborSecrets(serverEnv) : serverEnv;
  try {
    if (name.trim() === "") throw new EntryError(at(""), "a server needs a non-empty name");
    if (!isObject(entry)) throw new EntryError(at(""), "expected an object");
    if (source.needsTrust) refuseArborSecrets(entry, at);
    const base = {
      name,
      file: source.file,
      hash: definitionHash(entry),
      needsTrust: source.needsTrust,
    };
    const variables = referencedVariables(entry);
    const disabled = optionalBoolean(entry, "disabled", at) ?? false;
    const type = optionalString(entry, "type", at);
    if (type !== undefined && !["stdio", "http", "streamable-http", "sse"].includes(type)) {
      throw new EntryError(at("type"), 'expected "stdio", "http", "streamable-http" or "sse"');
    }
    const hasCommand = entry.command !== undefined;
    const hasUrl = entry.url !== undefined;
    if (hasCommand && hasUrl)
      throw new EntryError(at("url"), "give either command or url, not both");
    if (!hasCommand && !hasUrl) {
      throw new EntryError(at("command"), "expected a command (local server) or a url (remote)");
    }
    if (hasCommand) {
      const command = requiredString(entry, "command", at);
      const args = stringArray(entry, "args", at).map((arg, i) =>
        expand(arg, env, at(`args[${i}]`)),
      );
      const vars = stringRecord(entry, "env", at);
      const cwd = optionalString(entry, "cwd", at);
      const network = optionalBoolean(entry, "network", at) ?? true;
      return {
        server: {
          ...base,
          disabled,
          transport: "stdio",
          command,
          args,
          env: Object.fromEntries(
            Object.entries(vars).map(([k, v]) => [k, expand(v, env, at(`env.${k}`))]),
          ),
          ...(cwd !== undefined ? { cwd } : {}),
          network,
          runs: {
            command,
            args: stringArray(entry, "args", at),
            cwd: cwd ?? ".",
            env: Object.keys(vars),
            variables,
            network,
          },
        },
      };
    }
    const url = expand(requiredString(entry, "url", at), env, at("url"));
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new EntryError(at("url"), `not a URL: ${url}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new EntryError(at("url"), "expected an http or https URL");
    }
    const headers = stringRecord(entry, "headers", at);
    return {
      server: {
        ...base,
        runs: { url: requiredString(entry, "url", at), headers: Object.keys(headers), variables },
        disabled,
        transport: "http",
        url,
        headers: Object.fromEntries(
          Object.entries(headers).map(([k, v]) => [k, expand(v, env, at(`headers.${k}`))]),
        ),
        sseOnly: type === "sse",
      },
    };
  } catch (error) {
    if (error instanceof EntryError) {
      return { problem: { field: error.field, message: error.message } };
    }
    throw error;
  }
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The `${VAR}` names an entry reads, sorted. */
function referencedVariables(entry: Record<string, unknown>): string[] {
  const names = new Set<string>();
  for (const match of JSON.stringify(entry).matchAll(VARIABLE)) names.add(match[1] as string);
  return [...names].sort();
}

/** A workspace file naming one of Arbor's secrets (`${ANTHROPIC_API_KEY}`) is refused. */
function refuseArborSecrets(entry: Record<string, unknown>, at: At): void {
  for (const key of ["args", "env", "headers", "url"]) {
    const text = JSON.stringify(entry[key] ?? "");
    for (const match of text.matchAll(VARIABLE)) {
      if (isNeverToolEnv(match[1] as string)) {
        throw new EntryError(
          at(key),
          `\${${match[1]}} is one of Arbor's secrets: a workspace's file cannot pass it to a server (name the server in ARBOR_MCP_CONFIG, your own file, to do that)`,
        );
      }
    }
  }
}

function withoutArborSecrets(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isNeverToolEnv(name)));
}

/** `${VAR}` / `${VAR:-default}` from `env`; an unset variable without default is an error. */
export function expand(value: string, env: Env, field: string): string {
  return value.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    throw new EntryError(field, `\${${name}} is not set in the server's environment`);
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type At = (key: string) => string;

function requiredString(entry: Record<string, unknown>, key: string, at: At): string {
  const value = entry[key];
  if (typeof value !== "string" || value.trim() === "") {
    throw new EntryError(at(key), "expected a non-empty string");
  }
  return value;
}

function optionalString(entry: Record<string, unknown>, key: string, at: At): string | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new EntryError(at(key), "expected a string");
  return value;
}

function optionalBoolean(entry: Record<string, unknown>, key: string, at: At): boolean | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw new EntryError(at(key), "expected true or false");
  return value;
}

function stringArray(entry: Record<string, unknown>, key: string, at: At): string[] {
  const value = entry[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new EntryError(at(key), "expected an array of strings");
  return value.map((item, i) => {
    if (typeof item !== "string") throw new EntryError(at(`${key}[${i}]`), "expected a string");
    return item;
  });
}

function stringRecord(entry: Record<string, unknown>, key: string, at: At): Record<string, string> {
  const value = entry[key];
  if (value === undefined) return {};
  if (!isObject(value)) throw new EntryError(at(key), "expected an object of strings");
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") throw new EntryError(at(`${key}.${k}`), "expected a string");
  }
  return value as Record<string, string>;
}
