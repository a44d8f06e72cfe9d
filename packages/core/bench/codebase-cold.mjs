// Child process of codebase.bench.ts: one cold (or warm) index of a tree, alone in its process so
// its peak RSS is its own. Prints one JSON line. Plain JavaScript so that, with core built, it
// runs as the server does: node alone, dist/ in the main thread and the workers. Without a build
// it is started with tsx and imports the sources.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const built = existsSync(new URL("../dist/codebase/codebase-index.js", import.meta.url));
const from = (name) => new URL(`../${built ? "dist" : "src"}/codebase/${name}.js`, import.meta.url);
const { CodebaseIndex } = await import(from("codebase-index").href);
const { analysisWorkers } = await import(from("analysis-pool").href);
const { PARSE_MAX_BYTES } = await import(from("file-analysis").href);

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
// the store is written when the index closes (a cold start's whole index, once)
await index.close();
let storeBytes = 0;
for (const name of readdirSync(storeDir)) {
  if (name.endsWith(".idx")) storeBytes += statSync(path.join(storeDir, name)).size;
}
process.stdout.write(
  `${JSON.stringify({
    built,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    textOnly,
    workers: analysisWorkers(),
    storeBytes,
    files: symbols.fileCount,
    lines,
    definitions,
    status: index.status,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
