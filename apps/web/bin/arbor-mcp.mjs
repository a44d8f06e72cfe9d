#!/usr/bin/env node
// arbor-mcp: Arbor's folding MCP server over stdio, for agents that start MCP servers as child
// processes (Claude Code, Cursor, …). Runs scripts/arbor-mcp.ts from the sources through tsx:
//   node apps/web/bin/arbor-mcp.mjs [mcp]      (or `npx arbor-mcp` in the repository)
// Environment: WORKSPACE_DIR (default: the directory it is started in), ARBOR_DATA_DIR.
// stdout is the JSON-RPC channel: nothing else may write to it.
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const webDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const started = process.cwd();
const child = spawn(
  process.execPath,
  [
    "--conditions=@arbor/source",
    "--import",
    import.meta.resolve("tsx"),
    join(webDir, "scripts", "arbor-mcp.ts"),
  ],
  {
    // tsx (and the codebase index's worker, which loads it) resolve from the app's directory
    cwd: webDir,
    stdio: "inherit",
    env: {
      ...process.env,
      WORKSPACE_DIR: resolve(started, process.env.WORKSPACE_DIR?.trim() || "."),
      ARBOR_DATA_DIR: resolve(started, process.env.ARBOR_DATA_DIR?.trim() || ".data"),
    },
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
