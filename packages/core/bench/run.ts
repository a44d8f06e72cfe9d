// Runs every bench/*.bench.ts, prints a table of figures against their targets and writes them to
// <repo>/bench-results/core.json, one block per bench file with its run's header. `pnpm bench`
// from the repo root runs it; `pnpm bench heap` (in this package) runs the benches whose file name
// matches and replaces only their blocks.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type BenchRan,
  benchFiles,
  measureBench,
  printFigures,
  writeBenchRecord,
} from "../src/testing/bench-report.js";
import type { BenchRun } from "./figure.js";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const files = benchFiles(here, only);

const ran: BenchRan[] = [];
// a bench that throws records no block (its old one goes on a full run); the others are written
const failed: string[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: BenchRun };
  process.stdout.write(`running ${file} …\n`);
  try {
    ran.push(await measureBench(file, mod.run));
  } catch (error) {
    failed.push(file);
    process.stderr.write(
      `${file} failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
  }
}
printFigures(ran.flatMap((r) => r.figures));
writeBenchRecord({
  resultsDir: join(here, "..", "..", "..", "bench-results"),
  name: "core",
  packageName: "@arbor/core",
  ran,
  filter: only,
});
console.log(`\nwrote bench-results/core.json (${ran.length} benches)`);
if (failed.length > 0) {
  console.error(`failed, so not recorded: ${failed.join(", ")}`);
  process.exitCode = 1;
}
