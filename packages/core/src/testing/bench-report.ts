import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";

// The one bench harness of the repo: every package's `pnpm bench` lists its `bench/*.bench.ts`,
// runs them, prints the figures against their targets and records them in
// `<repo>/bench-results/<name>.json`.

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

/** The checkout's commit (with "+dirty" when it has changes), or "unknown" outside git. */
function currentCommit(): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
    }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      encoding: "utf8",
    }).trim();
    return dirty === "" ? commit : `${commit}+dirty`;
  } catch {
    return "unknown";
  }
}

/**
 * Writes `<resultsDir>/<name>.json`. A filtered run (`filtered`: only some bench files ran)
 * replaces only the figures of the files it ran and keeps the others.
 */
export function writeBenchRecord(options: {
  resultsDir: string;
  name: string;
  packageName: string;
  figures: readonly RecordedFigure[];
  ranFiles: readonly string[];
  filtered: boolean;
}): string {
  mkdirSync(options.resultsDir, { recursive: true });
  const file = join(options.resultsDir, `${options.name}.json`);
  const ran = new Set(options.ranFiles);
  const kept: RecordedFigure[] = [];
  if (options.filtered && existsSync(file)) {
    const previous = JSON.parse(readFileSync(file, "utf8")) as { figures?: RecordedFigure[] };
    for (const f of previous.figures ?? []) if (!ran.has(f.bench)) kept.push(f);
  }
  const record = {
    package: options.packageName,
    at: new Date().toISOString(),
    node: process.version,
    // where the figures come from: the command, the commit, the machine and its load then
    command: process.argv.slice(1).join(" "),
    commit: currentCommit(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}`,
    load: os.loadavg().map((value) => Number(value.toFixed(2))),
    figures: [...kept, ...options.figures].sort((a, b) => a.bench.localeCompare(b.bench)),
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}
