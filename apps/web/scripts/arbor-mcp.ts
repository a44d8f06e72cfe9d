import { resolve } from "node:path";
import {
  FoldMemories,
  FoldMemoryFile,
  importFoldMemoryFile,
  runFoldingMcpStdio,
} from "@arbor/core";
import { createStore, FoldMemoryTable } from "@arbor/db";
import { dataDirOf } from "../lib/server/data-dir";

// `arbor-mcp`: Arbor's folding MCP server over stdio (bin/arbor-mcp.mjs starts this). The
// workspace is WORKSPACE_DIR, else the directory it was started from; the data dir (the codebase
// index) is the web server's rule: ARBOR_DATA_DIR, else <cwd>/.data. Fold memories are in the
// web server's database (DATABASE_URL, else the SQLite file in the data dir; issue #26): set the
// server's DATABASE_URL or ARBOR_DATA_DIR to share its lessons.

const workspace = resolve(process.env.WORKSPACE_DIR?.trim() || process.cwd());
const dataDir = dataDirOf(process.env);

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  // stdout is the JSON-RPC channel: the store's warnings go to stderr
  const opened = await createStore({
    ...(databaseUrl ? { databaseUrl } : {}),
    dataDir,
    logger: { warn: (message) => process.stderr.write(`arbor-mcp: ${message}\n`) },
  });
  try {
    const memories = new FoldMemories({ records: new FoldMemoryTable(opened.db), workspace });
    await importFoldMemoryFile(new FoldMemoryFile({ dataDir, workspace }), memories);
    await runFoldingMcpStdio({ workspace, dataDir, memories });
  } finally {
    await opened.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`arbor-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
