import { join } from "node:path";
import type { BenchFigure } from "@arbor/core/testing";
import {
  benchFiles,
  printFigures,
  type RecordedFigure,
  writeBenchRecord,
} from "@arbor/core/testing";

// The app's in-process benches (bench/*.bench.ts): each exports `run` and returns figures,
// printed and written to <repo>/bench-results/web-app.json. `pnpm --filter @arbor/web bench`.

const here = import.meta.dirname;
const only = process.argv[2];
const files = benchFiles(here, only);
const figures: RecordedFigure[] = [];
for (const file of files) {
  const mod = (await import(join(here, file))) as { run: () => Promise<BenchFigure[]> };
  process.stdout.write(`running ${file} …\n`);
  for (const figure of await mod.run()) figures.push({ bench: file, ...figure });
}
printFigures(figures);
writeBenchRecord({
  resultsDir: join(here, "..", "..", "..", "bench-results"),
  name: "web-app",
  packageName: "@arbor/web",
  figures,
  ranFiles: files,
  filtered: only !== undefined,
});
console.log(`\nwrote bench-results/web-app.json (${figures.length} figures)`);
process.exit(0);
