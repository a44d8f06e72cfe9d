import path from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CodebaseIndex } from "../codebase/codebase-index.js";
import { secretsFromEnv } from "../tools/secrets.js";
import { refuseInWorkspaces } from "../tools/workspace.js";
import { createFoldingMcpServer, createServedTools } from "./mcp-server.js";
import { FoldMemoryFile, type FoldMemorySource } from "./memory.js";

// The folding MCP server over stdio (`arbor-mcp`), for an agent that starts it as a child
// process. stdout carries JSON-RPC only: whatever this process has to say goes to stderr.

export interface FoldingMcpStdioOptions {
  /** the workspace the tools are confined to */
  workspace: string;
  /** Arbor's data dir: the codebase index lives there (and fold memories, unless `memories`) */
  dataDir: string;
  /** the workspace's fold memories; default: a file in the data dir (FoldMemoryFile) */
  memories?: FoldMemorySource;
  env?: Readonly<Record<string, string | undefined>>;
  stdin?: NodeJS.ReadableStream & import("node:stream").Readable;
  stdout?: NodeJS.WritableStream & import("node:stream").Writable;
}

/** Serves until stdin ends; resolves when the server has closed. */
export async function runFoldingMcpStdio(options: FoldingMcpStdioOptions): Promise<void> {
  const env = options.env ?? process.env;
  const workspace = path.resolve(options.workspace);
  // the served tools never read Arbor's own data (its database, its token), wherever it lies
  refuseInWorkspaces(options.dataDir);
  const index = new CodebaseIndex({
    workspaceRoot: workspace,
    storeDir: path.join(options.dataDir, "codebase-index"),
    onError: (err) => process.stderr.write(`arbor-mcp: codebase index: ${err.message}\n`),
  });
  const secrets = secretsFromEnv(env);
  const { server } = createFoldingMcpServer({
    tools: createServedTools({ workspaceRoot: workspace, env, secrets, index }),
    memories: options.memories ?? new FoldMemoryFile({ dataDir: options.dataDir, workspace }),
  });
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  const stdin = options.stdin ?? process.stdin;
  stdin.once("end", () => void server.close());
  await closed;
  await index.close();
}
