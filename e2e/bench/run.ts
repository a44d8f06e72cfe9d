// The web benches: starts the runtime's fake LLM server, the app's production build (`next
// start`, built beforehand by `pnpm --filter @arbor/web build`) with a fresh SQLite file, and the
// bare baseline route (bare-route/, built here when needed) on free loopback ports, runs every
// *.bench.ts, prints a table of figures against their targets, writes them
// to <repo>/bench-results/web.json (one block per bench file with its run's header: the shared
// writer of @arbor/core/testing), and stops both servers. `pnpm bench` (turbo) runs it; a name
// filter runs some only: `pnpm --filter @arbor/e2e bench first`.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BenchRan, measureBench, printFigures, writeBenchRecord } from "@arbor/core/testing";
import { freePort, repoRoot, startApp, startBareRoute, startFakeLlm } from "../crash/app-server.js";
import type { BenchRun } from "./figure.js";

// compiled to bench/dist/bench/: the bench files sit next to this one, as .js
const here = import.meta.dirname;
const only = process.argv[2];
const files = readdirSync(here)
  .filter((f) => /\.bench\.js$/.test(f) && (!only || f.includes(only)))
  .sort();
// record under the source names, so the JSON reads like core.json's
const sourceName = (file: string) => file.replace(/\.js$/, ".ts");

// BENCH_PORT_BASE=P puts the fake LLM on P, the app on P+1 and the bare route on P+2 (on a shared
// machine where each person keeps to a port range); unset, the OS picks free ports
const portBase = process.env.BENCH_PORT_BASE ? Number(process.env.BENCH_PORT_BASE) : undefined;
if (portBase !== undefined && !(Number.isInteger(portBase) && portBase > 0 && portBase < 65_533))
  throw new Error(`BENCH_PORT_BASE must be a port number, not ${process.env.BENCH_PORT_BASE}`);
const port = async (offset: number) =>
  portBase === undefined ? await freePort() : portBase + offset;

// each block records the machine and its load before and after its bench (2 cores shared with
// other work move the latencies: docs/decisions/0060)
const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-bench-"));
const fake = await startFakeLlm({ port: await port(0) });
// ARBOR_SQLITE_* settings pass to the app, to compare the write paths in one build
// (ARBOR_SQLITE_DIRECT=0: every write through Prisma; docs/decisions/0020)
const appEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[0].startsWith("ARBOR_SQLITE_") && entry[1] !== undefined,
  ),
);
// BENCH_APP_NODE_OPTIONS becomes the app's NODE_OPTIONS, CPU_PROFILE_DIR passes on: CPU profiles
// of the app under a bench's load (cpu-profile.cjs says how)
if (process.env.BENCH_APP_NODE_OPTIONS) appEnv.NODE_OPTIONS = process.env.BENCH_APP_NODE_OPTIONS;
if (process.env.CPU_PROFILE_DIR) appEnv.CPU_PROFILE_DIR = process.env.CPU_PROFILE_DIR;
const app = await startApp({
  port: await port(1),
  dataDir,
  fakeLlmUrl: fake.url,
  env: appEnv,
});
const bare = await startBareRoute({ port: await port(2), fakeLlmUrl: fake.url });
process.stdout.write(
  `app ${app.url} (next start), bare route ${bare.url} (next start), fake LLM ${fake.url}\n`,
);

const ran: BenchRan[] = [];
try {
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: BenchRun };
    process.stdout.write(`running ${sourceName(file)} …\n`);
    const context = {
      appUrl: app.url,
      fakeUrl: fake.url,
      bareUrl: bare.url,
      appPid: app.pid,
      barePid: bare.pid,
    };
    ran.push(await measureBench(sourceName(file), () => mod.run(context)));
  }
} catch (error) {
  process.stderr.write(`app output (tail):\n${app.output().slice(-4_000)}\n`);
  process.stderr.write(`bare route output (tail):\n${bare.output().slice(-2_000)}\n`);
  throw error;
} finally {
  await app.kill("SIGTERM");
  await bare.kill("SIGTERM");
  await fake.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
}

printFigures(ran.flatMap((r) => r.figures));
writeBenchRecord({
  resultsDir: join(repoRoot, "bench-results"),
  name: "web",
  packageName: "@arbor/e2e",
  ran,
  filter: only,
});
console.log(`\nwrote bench-results/web.json (${ran.length} benches)`);
