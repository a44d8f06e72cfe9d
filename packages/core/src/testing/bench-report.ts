import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";

// The one bench harness of the repo: every package's `pnpm bench` lists its `bench/*.bench.ts`,
// runs them, prints the figures against their targets and records them in
// `<repo>/bench-results/<name>.json`: one block per bench file, each with the header of the run
// that measured it (command, commit, machine, load, time) and a digest of the two, so a hand edit
// shows (checkBenchResults; packages/core/test/bench-results.test.ts; docs/decisions/0070).

/** One measured figure with its target, as printed and recorded by `pnpm bench`. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** human-readable target, e.g. "< 1.5× raw" */
  target: string;
  pass: boolean;
  /** a figure without a target, printed as INFO */
  informational?: boolean;
  notes?: string;
}

export type RecordedFigure = BenchFigure & { bench: string };

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (nearest rank) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `*.bench.ts` files in `dir` whose name contains `filter` (all when absent), sorted. */
export function benchFiles(dir: string, filter?: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".bench.ts") && (!filter || f.includes(filter)))
    .sort();
}

/** Prints one aligned line per figure: PASS/MISS/INFO, name, value, target, notes. */
export function printFigures(figures: readonly BenchFigure[]): void {
  const rows = figures.map((f) => [
    f.informational ? "INFO" : f.pass ? "PASS" : "MISS",
    f.name,
    `${Number.isInteger(f.value) ? f.value : f.value.toFixed(3)} ${f.unit}`,
    f.target,
    f.notes ?? "",
  ]);
  const widths = [4, 0, 0, 0].map((w, i) => Math.max(w, ...rows.map((r) => r[i]!.length)));
  for (const r of rows) {
    console.log(r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join("  "));
  }
}

/** The load average (1, 5, 15 min), two decimals. */
function loadAverage(): [number, number, number] {
  const [one = 0, five = 0, fifteen = 0] = os.loadavg().map((value) => Number(value.toFixed(2)));
  return [one, five, fifteen];
}

/** One bench file's figures and when and under what load it ran (from `measureBench`). */
export interface BenchRan {
  bench: string;
  figures: readonly BenchFigure[];
  startedAt: string;
  finishedAt: string;
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
}

/**
 * Runs one bench file's `run` and notes its time and the machine's load around it. A bench that
 * throws records nothing.
 */
export async function measureBench(
  bench: string,
  run: () => Promise<readonly BenchFigure[]>,
): Promise<BenchRan> {
  const startedAt = new Date().toISOString();
  const loadBefore = loadAverage();
  const figures = await run();
  return {
    bench,
    figures,
    startedAt,
    finishedAt: new Date().toISOString(),
    loadBefore,
    loadAfter: loadAverage(),
  };
}

/** Where a block's figures come from: written by the bench tool, never by hand. */
export interface BenchRunHeader {
  /** the command that ran it, to run it again, e.g. "pnpm --filter @arbor/core bench session" */
  command: string;
  /** the commit checked out, with " (with uncommitted changes)" when tracked files differed */
  commit: string;
  node: string;
  /** `os` is absent from the blocks converted from the first format (e2e's did not record it) */
  machine: { cores: number; cpu: string; memoryGiB: number; os?: string };
  /** the load average (1/5/15 min) when this bench started and when it finished */
  load: { before: number[]; after: number[] };
  /** absent from the blocks converted from the first format, which recorded the end only */
  startedAt?: string;
  finishedAt: string;
  /** how a block came to this format when the writer did not write it so (decision 0070) */
  convertedFrom?: string;
}

export interface BenchBlock {
  bench: string;
  run: BenchRunHeader;
  figures: BenchFigure[];
  /** sha256 of the package, bench, run header and figures (benchBlockDigest) */
  digest: string;
}

export interface BenchResults {
  package: string;
  format: 2;
  blocks: BenchBlock[];
}

/** JSON with object keys sorted at every level, so a digest does not depend on key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The digest the writer stores with a block: any change to its figures or header changes it. */
export function benchBlockDigest(
  packageName: string,
  block: Pick<BenchBlock, "bench" | "run" | "figures">,
): string {
  return createHash("sha256")
    .update(
      canonical({
        package: packageName,
        bench: block.bench,
        run: block.run,
        figures: block.figures,
      }),
    )
    .digest("hex");
}

/** The checkout's commit, with a note when tracked files (results files aside) have changes. */
function currentCommit(repoRoot: string): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: repoRoot,
      encoding: "utf8",
    }).trim();
    // the results files do not count: an earlier run wrote them
    const dirty = execFileSync(
      "git",
      ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench-results"],
      { cwd: repoRoot, encoding: "utf8" },
    ).trim();
    return dirty === "" ? commit : `${commit} (with uncommitted changes)`;
  } catch {
    return "unknown";
  }
}

/** The command that reruns a package's benches: `pnpm --filter PKG bench [FILTER]`. */
export function benchCommand(packageName: string, filter?: string): string {
  return `pnpm --filter ${packageName} bench${filter ? ` ${filter}` : ""}`;
}

/**
 * Writes `<resultsDir>/<name>.json`: one block per bench file that ran, each with its own run
 * header and digest. A filtered run replaces only the blocks of the files it ran and keeps the
 * others (with their own headers); a full run replaces the file.
 */
export function writeBenchRecord(options: {
  resultsDir: string;
  name: string;
  packageName: string;
  ran: readonly BenchRan[];
  /** the name filter the run was given (`pnpm bench NAME`), if any */
  filter?: string;
  /** the command to record; default benchCommand(packageName, filter) */
  command?: string;
  /** the checkout whose commit is recorded; default the results folder's parent */
  repoRoot?: string;
}): string {
  mkdirSync(options.resultsDir, { recursive: true });
  const file = join(options.resultsDir, `${options.name}.json`);
  const ran = new Set(options.ran.map((r) => r.bench));
  let kept: BenchBlock[] = [];
  if (options.filter !== undefined && existsSync(file)) {
    const previous = JSON.parse(readFileSync(file, "utf8")) as Partial<BenchResults>;
    if (previous.format === 2) kept = (previous.blocks ?? []).filter((b) => !ran.has(b.bench));
  }
  const cpus = os.cpus();
  const command = options.command ?? benchCommand(options.packageName, options.filter);
  const commit = currentCommit(options.repoRoot ?? resolve(options.resultsDir, ".."));
  const machine = {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? "unknown CPU",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.platform()} ${os.release()}`,
  };
  const blocks: BenchBlock[] = options.ran.map((r) => {
    const run: BenchRunHeader = {
      command,
      commit,
      node: process.version,
      machine,
      load: { before: r.loadBefore, after: r.loadAfter },
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
    };
    const figures = r.figures.map((f) => ({ ...f }));
    return {
      bench: r.bench,
      run,
      figures,
      digest: benchBlockDigest(options.packageName, { bench: r.bench, run, figures }),
    };
  });
  const record: BenchResults = {
    package: options.packageName,
    format: 2,
    blocks: [...kept, ...blocks].sort((a, b) => a.bench.localeCompare(b.bench)),
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

const HEADER_TEXT = ["command", "commit", "node", "finishedAt"] as const;

/**
 * What is wrong with a results file (empty when nothing): the format, every block's header, the
 * command naming the block's bench, and the digest the writer stored against the figures and
 * header as they stand now. A figure or header edited by hand fails here.
 */
export function checkBenchResults(record: unknown): string[] {
  const problems: string[] = [];
  if (record === null || typeof record !== "object") return ["not a JSON object"];
  const r = record as Partial<BenchResults>;
  if (r.format !== 2)
    problems.push(`format is ${String(r.format)}, not 2 (blocks with run headers)`);
  if (typeof r.package !== "string" || r.package === "") problems.push("no package");
  if (!Array.isArray(r.blocks)) return [...problems, "no blocks"];
  const seen = new Set<string>();
  for (const block of r.blocks as Partial<BenchBlock>[]) {
    const name = typeof block.bench === "string" ? block.bench : "(a block without a bench)";
    if (seen.has(name)) problems.push(`${name}: two blocks`);
    seen.add(name);
    const run = block.run as Partial<BenchRunHeader> | undefined;
    if (run === undefined || run === null || typeof run !== "object") {
      problems.push(`${name}: no run header`);
      continue;
    }
    for (const key of HEADER_TEXT) {
      if (typeof run[key] !== "string" || run[key] === "") problems.push(`${name}: no ${key}`);
    }
    if (run.commit === "unknown") problems.push(`${name}: commit unknown`);
    if (
      typeof run.machine?.cores !== "number" ||
      typeof run.machine.cpu !== "string" ||
      typeof run.machine.memoryGiB !== "number"
    ) {
      problems.push(`${name}: machine lacks cores, cpu or memoryGiB`);
    }
    if (!Array.isArray(run.load?.before) || !Array.isArray(run.load.after)) {
      problems.push(`${name}: no load average before and after`);
    }
    // the command must be one that runs this bench: `… bench` or `… bench FILTER` matching it
    const filter = /\sbench(?:\s+(\S+))?$/.exec(run.command ?? "");
    if (filter === null) problems.push(`${name}: command "${run.command}" is not a bench command`);
    else if (filter[1] !== undefined && !name.includes(filter[1])) {
      problems.push(`${name}: command "${run.command}" does not run this bench`);
    }
    if (!Array.isArray(block.figures)) {
      problems.push(`${name}: no figures`);
      continue;
    }
    if (typeof r.package === "string") {
      const digest = benchBlockDigest(r.package, {
        bench: name,
        run: run as BenchRunHeader,
        figures: block.figures,
      });
      if (block.digest !== digest) {
        problems.push(
          `${name}: figures or header differ from what its run wrote (digest ${String(block.digest).slice(0, 12)}…, now ${digest.slice(0, 12)}…)`,
        );
      }
    }
  }
  return problems;
}

/** checkBenchResults for every `*.json` in a results folder, keyed by file name. */
export function checkBenchResultsDir(dir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    out[file] = checkBenchResults(JSON.parse(readFileSync(join(dir, file), "utf8")));
  }
  return out;
}
