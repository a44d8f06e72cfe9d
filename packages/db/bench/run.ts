// Runs every bench/*.bench.ts on SQLite and on PostgreSQL, prints a table of figures against
// their targets and writes them to <repo>/bench-results/db.json. `pnpm bench` from the repo root
// runs it; `pnpm --filter @arbor/db bench append` runs the benches whose file name matches.
//
// SQLite: a file in a temporary folder, WAL, synchronous=NORMAL (the store's default). PostgreSQL: a
// throwaway PostgreSQL 15 cluster from the machine's binaries, with fsync ON so the figures are
// those of a durable commit. Without root or the binaries the PostgreSQL figures are recorded as
// MISS with the reason instead of being left out.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type BenchFigure,
  type BenchRan,
  benchFiles,
  measureBench,
  printFigures,
  writeBenchRecord,
} from "@arbor/core/testing";
import pg from "pg";
import { applyMigrations } from "../src/migrate.js";
import { pgClusterUnavailableReason, startPgCluster } from "../src/pg-cluster.js";
import type { BenchRun, BenchTarget } from "./figure.js";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const files = benchFiles(here, only);

const tmp = mkdtempSync(join(tmpdir(), "arbor-db-bench-"));
let n = 0;
const sqlite: BenchTarget = {
  provider: "sqlite",
  async fresh() {
    const url = `file:${join(tmp, `bench-${++n}.db`)}`;
    await applyMigrations(url);
    return url;
  },
};
const pgReason = pgClusterUnavailableReason();
const cluster = pgReason === undefined ? await startPgCluster({ fsync: true }) : undefined;
const postgres: BenchTarget | undefined =
  cluster === undefined
    ? undefined
    : {
        provider: "postgresql",
        async fresh() {
          const name = `bench_${++n}`;
          const client = new pg.Client({ connectionString: cluster.url });
          await client.connect();
          await client.query(`CREATE DATABASE ${name}`);
          await client.end();
          const url = cluster.urlFor(name);
          await applyMigrations(url);
          return url;
        },
      };

const ran: BenchRan[] = [];
try {
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: BenchRun };
    ran.push(
      await measureBench(file, async () => {
        const figures: BenchFigure[] = [];
        for (const target of [sqlite, postgres]) {
          if (target === undefined) {
            figures.push({
              name: `${file.replace(".bench.ts", "")} (postgresql)`,
              value: 0,
              unit: "",
              target: "runs",
              pass: false,
              notes: `not run: ${pgReason}`,
            });
            continue;
          }
          process.stdout.write(`running ${file} on ${target.provider} …\n`);
          figures.push(...(await mod.run(target)));
        }
        return figures;
      }),
    );
  }
} finally {
  cluster?.stop();
  rmSync(tmp, { recursive: true, force: true });
}

printFigures(ran.flatMap((r) => r.figures));
writeBenchRecord({
  resultsDir: join(here, "..", "..", "..", "bench-results"),
  name: "db",
  packageName: "@arbor/db",
  ran,
  filter: only,
});
console.log(`\nwrote bench-results/db.json (${ran.length} benches)`);
// the pg driver may hold an idle socket open for its idle timeout; nothing is pending
process.exit(0);
