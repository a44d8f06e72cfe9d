import { createHash } from "node:crypto";

// A workspace's executable configuration, one definition at a time: an MCP server of
// mcp_servers.json or .mcp.json, a spec of .arbor/openapi.json, a hook command of
// .claude/settings.json or .arbor/settings.json (command-hooks/). A definition is inert until a
// person trusts it (workspace-trust.ts); what they trust is its hash, so a changed definition asks
// again. `runs` is what the trust prompt shows: what would start, what would be fetched, which
// credential would go where.

export type ConfigDefinitionKind = "mcp_server" | "openapi_spec" | "hook";

/** What a definition does once trusted, as the trust prompt shows it (never a secret's value). */
export interface DefinitionRuns {
  /** a process: its command, arguments and working directory */
  command?: string;
  args?: string[];
  cwd?: string;
  /** names of the environment variables the definition sets for its process */
  env?: string[];
  /** the server's environment variables the definition reads (`${VAR}`, `auth.env`) */
  variables?: string[];
  /** whether its process may use the network */
  network?: boolean;
  /** a remote MCP server's URL and the names of the headers sent to it */
  url?: string;
  headers?: string[];
  /** an OpenAPI spec: where it is read from, the URLs fetched to read it, where calls go */
  spec?: string;
  fetches?: string[];
  base_url?: string;
  /** the credential sent with each call: its variable, how it is sent, to which host */
  credential?: { env: string; type: string; sent_to?: string };
  /** a hook: the event it runs on, the tools (or trigger) its matcher picks, its timeout */
  hook?: { event: string; matcher?: string; timeout_s: number };
}

export interface ConfigDefinition {
  kind: ConfigDefinitionKind;
  /** the file, relative to the workspace, with `/` separators */
  file: string;
  /** the definition's name in its file: the MCP server's name, the spec entry's key */
  name: string;
  /** sha256 (hex) of the definition (definitionHash) */
  hash: string;
  runs: DefinitionRuns;
}

/** The key of one definition (file and name): what a trust record is kept under. */
export interface DefinitionKey {
  file: string;
  name: string;
}

/**
 * The hash a trust is given to: sha256 of the definition's JSON with object keys sorted (so a
 * reformatted file keeps its trust), plus the bytes of any file it runs from (an OpenAPI spec).
 */
export function definitionHash(definition: unknown, ...contents: Array<string | Buffer>): string {
  const hash = createHash("sha256").update(canonicalJson(definition));
  for (const content of contents) hash.update("\0").update(content);
  return hash.digest("hex");
}

/** JSON with object keys in sorted order at every depth. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
