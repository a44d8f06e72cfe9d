// Child process of codebase.bench.ts: one cold (or warm) index of a tree, alone in its process so
// its peak RSS is its own. Prints one JSON line. It runs the build (dist/, as the server does: the
// worker thread then loads plain JavaScript) when there is one, else the sources through tsx.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { analysisWorkers } from "../src/codebase/analysis-pool.js";
import type { CodebaseIndex as Index } from "../src/codebase/codebase-index.js";
import { PARSE_MAX_BYTES } from "../src/codebase/file-analysis.js";

const built = new URL("../dist/codebase/codebase-index.js", import.meta.url);
const { CodebaseIndex } = (await import(
  existsSync(built) ? built.href : "../src/codebase/codebase-index.js"
)) as { CodebaseIndex: typeof Index };

const [root, storeDir] = process.argv.slice(2);
if (root === undefined || storeDir === undefined)
  throw new Error("usage: codebase-cold ROOT STORE_DIR");
const cpuBefore = process.cpuUsage();
const started = performance.now();
const index = new CodebaseIndex({ workspaceRoot: root, storeDir, watch: false });
const symbols = await index.ready();
const ms = performance.now() - started;
// every thread of the process (main, indexing worker, analysis workers): the work, apart from
// the machine's load
const cpu = process.cpuUsage(cpuBefore);
let definitions = 0;
let lines = 0;
let textOnly = 0;
for (const file of symbols.allFiles()) {
  definitions += file.defs.length;
  lines += file.lines;
  if (file.size > PARSE_MAX_BYTES) textOnly++;
}
await index.close();
process.stdout.write(
  `${JSON.stringify({ built: existsSync(built), ms, cpuMs: (cpu.user + cpu.system) / 1000, textOnly, workers: analysisWorkers(), storeBytes: storeSize(storeDir), files: symbols.fileCount, lines, definitions, status: index.status, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
);

function storeSize(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".idx")) bytes += statSync(path.join(dir, name)).size;
  }
  return bytes;
}
