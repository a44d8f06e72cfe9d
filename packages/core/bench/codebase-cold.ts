// Child process of codebase.bench.ts: one cold (or warm) index of a tree, alone in its process so
// its peak RSS is its own. Prints one JSON line. It runs the build (dist/, as the server does: the
// worker thread then loads plain JavaScript) when there is one, else the sources through tsx.
import { existsSync } from "node:fs";
import type { CodebaseIndex as Index } from "../src/codebase/codebase-index.js";

const built = new URL("../dist/codebase/codebase-index.js", import.meta.url);
const { CodebaseIndex } = (await import(
  existsSync(built) ? built.href : "../src/codebase/codebase-index.js"
)) as { CodebaseIndex: typeof Index };

const [root, storeDir] = process.argv.slice(2);
if (root === undefined || storeDir === undefined)
  throw new Error("usage: codebase-cold ROOT STORE_DIR");
const started = performance.now();
const index = new CodebaseIndex({ workspaceRoot: root, storeDir, watch: false });
const symbols = await index.ready();
const ms = performance.now() - started;
let definitions = 0;
let lines = 0;
for (const file of symbols.allFiles()) {
  definitions += file.defs.length;
  lines += file.lines;
}
await index.close();
process.stdout.write(
  `${JSON.stringify({ built: existsSync(built), ms, files: symbols.fileCount, lines, definitions, status: index.status, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
);
