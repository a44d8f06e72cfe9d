import { readFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";

// mcp_servers.json: the format users already have for Claude Desktop, Claude Code and Cursor.
//
//   {"mcpServers": {"<name>": {"command": "...", "args": [...], "env": {...}, "cwd": "..."},
//                   "<name>": {"url": "https://…/mcp", "headers": {...}},
//                   "<name>": {..., "disabled": true}}}
//
// `${VAR}` (and `${VAR:-default}`) in env, headers, args and url are taken from the server's
// environment. A file that does not parse is one problem; an invalid entry is a problem naming
// its field, and the other entries still load.

export const MCP_CONFIG_FILE = "mcp_servers.json";
export const MCP_CONFIG_ENV = "ARBOR_MCP_CONFIG";

type Env = Readonly<Record<string, string | undefined>>;

interface ServerBase {
  name: string;
  disabled: boolean;
}
export interface StdioServerConfig extends ServerBase {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
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

export async function loadMcpConfig(path: string, env: Env): Promise<McpConfig> {
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
  return { path, ...parseMcpConfig(text, env) };
}

/** Parses the text of mcp_servers.json. */
export function parseMcpConfig(
  text: string,
  env: Env,
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
    const result = parseEntry(name, entry, env);
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
  env: Env,
): { server: McpServerConfig } | { problem: { field: string; message: string } } {
  const at = (key: string) => `mcpServers.${name}${key === "" ? "" : `.${key}`}`;
  try {
    if (name.trim() === "") throw new EntryError(at(""), "a server needs a non-empty name");
    if (!isObject(entry)) throw new EntryError(at(""), "expected an object");
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
      return {
        server: {
          name,
          disabled,
          transport: "stdio",
          command,
          args,
          env: Object.fromEntries(
            Object.entries(vars).map(([k, v]) => [k, expand(v, env, at(`env.${k}`))]),
          ),
          ...(cwd !== undefined ? { cwd } : {}),
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
        name,
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
