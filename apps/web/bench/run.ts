import { join } from "node:path";
import type { BenchFigure } from "@arbor/core/testing";
import {
  type BenchRan,
  benchFiles,
  measureBench,
  printFigures,
  writeBenchRecord,
} from "@arbor/core/testing";

// The app's in-process benches (bench/*.bench.ts): each exports `run` and returns figures,
// printed and written to <repo>/bench-results/web-app.json, one block per bench file with its
// run's header. `pnpm --filter @arbor/web bench [NAME]`.

const here = import.meta.dirname;
const only = process.argv[2];
const files = benchFiles(here, only);
const ran: BenchRan[] = [];
for (const file of files) {
  const mod = (await import(join(here, file))) as { run: () => Promise<BenchFigure[]> };
  process.stdout.write(`running ${file} …\n`);
  ran.push(await measureBench(file, mod.run));
}
printFigures(ran.flatMap((r) => r.figures));
writeBenchRecord({
  resultsDir: join(here, "..", "..", "..", "bench-results"),
  name: "web-app",
  packageName: "@arbor/web",
  ran,
  filter: only,
});
console.log(`\nwrote bench-results/web-app.json (${ran.length} benches)`);
process.exit(0);
