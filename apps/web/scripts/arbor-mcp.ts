import { resolve } from "node:path";
import { runFoldingMcpStdio } from "@arbor/core";
import { dataDirOf } from "../lib/server/data-dir";

// `arbor-mcp`: Arbor's folding MCP server over stdio (bin/arbor-mcp.mjs starts this). The
// workspace is WORKSPACE_DIR, else the directory it was started from; the data dir (fold
// memories, the codebase index) is the web server's rule: ARBOR_DATA_DIR, else <cwd>/.data.
// Set ARBOR_DATA_DIR to the server's to share its fold memories.

const workspace = resolve(process.env.WORKSPACE_DIR?.trim() || process.cwd());

runFoldingMcpStdio({ workspace, dataDir: dataDirOf(process.env) }).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`arbor-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
