// The web benches: starts the runtime's fake LLM server, the app's production build (`next
// start`, built beforehand by `pnpm --filter @arbor/web build`) with a fresh SQLite file, and the
// bare baseline route (bare-route/, built here when needed) on free loopback ports, runs every
// *.bench.ts, prints a table of figures against their targets, writes them
// to <repo>/bench-results/web.json, and stops both servers. `pnpm bench` (turbo) runs it; a name
// filter runs some only: `pnpm --filter @arbor/e2e bench first`.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { freePort, repoRoot, startApp, startBareRoute, startFakeLlm } from "../crash/app-server.js";
import type { BenchFigure, BenchRun } from "./figure.js";

// compiled to bench/dist/bench/: the bench files sit next to this one, as .js
const here = import.meta.dirname;
const only = process.argv[2];
const files = readdirSync(here)
  .filter((f) => /\.bench\.js$/.test(f) && (!only || f.includes(only)))
  .sort();
// record under the source names, so the JSON reads like core.json's
const sourceName = (file: string) => file.replace(/\.js$/, ".ts");

// what the record says of this run: the machine, and its load before and after (2 cores shared
// with other work move the latencies: docs/decisions/0060)
const loadBefore = loadavg();
const dataDir = mkdtempSync(join(tmpdir(), "arbor-web-bench-"));
const fake = await startFakeLlm();
// ARBOR_SQLITE_* settings pass to the app, to compare the write paths in one build
// (ARBOR_SQLITE_DIRECT=0: every write through Prisma; docs/decisions/0020)
const appEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[0].startsWith("ARBOR_SQLITE_") && entry[1] !== undefined,
  ),
);
const app = await startApp({
  port: await freePort(),
  dataDir,
  fakeLlmUrl: fake.url,
  env: appEnv,
});
const bare = await startBareRoute({ port: await freePort(), fakeLlmUrl: fake.url });
process.stdout.write(
  `app ${app.url} (next start), bare route ${bare.url} (next start), fake LLM ${fake.url}\n`,
);

const figures: Array<BenchFigure & { bench: string }> = [];
try {
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: BenchRun };
    process.stdout.write(`running ${sourceName(file)} …\n`);
    const ran = await mod.run({
      appUrl: app.url,
      fakeUrl: fake.url,
      bareUrl: bare.url,
      appPid: app.pid,
      barePid: bare.pid,
    });
    for (const figure of ran) figures.push({ bench: sourceName(file), ...figure });
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

const rows = figures.map((f) => [
  f.informational ? "INFO" : f.pass ? "PASS" : "MISS",
  f.name,
  `${Number.isInteger(f.value) ? f.value : f.value.toFixed(2)} ${f.unit}`,
  f.target,
  f.notes ?? "",
]);
const widths = [4, 0, 0, 0].map((w, i) => Math.max(w, ...rows.map((r) => r[i]!.length)));
for (const r of rows) {
  console.log(r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join("  "));
}

const out = join(repoRoot, "bench-results");
mkdirSync(out, { recursive: true });
const file = join(out, "web.json");
// a filtered run replaces only the figures of the benches it ran
const ranBenches = new Set(files.map(sourceName));
const kept: typeof figures = [];
if (only && existsSync(file)) {
  const previous = JSON.parse(readFileSync(file, "utf8")) as { figures?: typeof figures };
  for (const f of previous.figures ?? []) if (!ranBenches.has(f.bench)) kept.push(f);
}
const commit = spawnSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8" });
// the results files themselves do not count: an earlier run wrote them
const dirty = spawnSync("git", ["status", "--porcelain", "--", ".", ":!bench-results"], {
  cwd: repoRoot,
  encoding: "utf8",
});
const record = {
  package: "@arbor/e2e",
  at: new Date().toISOString(),
  node: process.version,
  command: `pnpm --filter @arbor/e2e bench${only ? ` ${only}` : ""}`,
  commit: `${commit.stdout.trim() || "unknown"}${dirty.stdout.trim() !== "" ? " (with uncommitted changes)" : ""}`,
  machine: `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
  load: `load average (1/5/15 min) before ${loadBefore.map((l) => l.toFixed(2)).join("/")}, after ${loadavg()
    .map((l) => l.toFixed(2))
    .join("/")}`,
  figures: [...kept, ...figures].sort((a, b) => a.bench.localeCompare(b.bench)),
};
writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
console.log(`\nwrote bench-results/web.json (${figures.length} figures)`);
