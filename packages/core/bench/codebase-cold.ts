// Child process of codebase.bench.ts: one cold (or warm) index of a tree, alone in its process so
// its peak RSS is its own. Prints one JSON line.
import { CodebaseIndex } from "../src/codebase/codebase-index.js";

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
  `${JSON.stringify({ ms, files: symbols.fileCount, lines, definitions, status: index.status, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
);
