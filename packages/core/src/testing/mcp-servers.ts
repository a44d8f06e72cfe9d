import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../agent/types.js";

// The real MCP servers the tests connect to: the MCP project's reference servers from npm
// (devDependencies, resolved when asked for) and the small test server in fixtures/.

const require = createRequire(import.meta.url);

/** The packages have no main export: their script is dist/index.js, their `bin`. */
function binOf(name: string): string {
  return join(dirname(require.resolve(`${name}/package.json`)), "dist", "index.js");
}

/** The `mcp-server-everything` script (argument: stdio | streamableHttp | sse). */
export function everythingServerScript(): string {
  return binOf("@modelcontextprotocol/server-everything");
}

/** The `mcp-server-filesystem` script (argument: the allowed directory). */
export function filesystemServerScript(): string {
  return binOf("@modelcontextprotocol/server-filesystem");
}

/**
 * fixtures/mcp-test-server.mjs (the same path from src/testing and dist/testing): tools exit,
 * wait, add-tool, env; SLOW_START_MS delays its start.
 */
export function testServerScript(): string {
  return fileURLToPath(new URL("../../fixtures/mcp-test-server.mjs", import.meta.url));
}

/** fixtures/mcp-paged-server.mjs: answers tools/list and resources/list a page at a time. */
export function pagedServerScript(): string {
  return fileURLToPath(new URL("../../fixtures/mcp-paged-server.mjs", import.meta.url));
}

/** A workspace holding `mcp_servers.json` with `servers` as its mcpServers. */
export function workspaceWithServers(servers: Record<string, unknown>): {
  root: string;
  configPath: string;
} {
  const root = mkdtempSync(join(tmpdir(), "arbor-mcp-"));
  const configPath = join(root, "mcp_servers.json");
  writeFileSync(configPath, JSON.stringify({ mcpServers: servers }, null, 2));
  return { root, configPath };
}

export interface RecordingLogger extends Logger {
  readonly lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }>;
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger["lines"] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, ...(fields !== undefined ? { fields } : {}) });
    };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
