import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BenchResults,
  benchBlockDigest,
  checkBenchResults,
  checkBenchResultsDir,
  measureBench,
  writeBenchRecord,
} from "../src/testing/bench-report.js";

// Figures are only ever written by the bench tools (docs/decisions/0070): every block of every
// results file carries the header of the run that measured it and the digest its writer computed
// over both; a figure or header edited by hand no longer matches it.

const resultsDir = resolve(import.meta.dirname, "..", "..", "..", "bench-results");

describe("bench-results/", () => {
  it("holds only results files written by the bench tools, each block matching its run", () => {
    const others = readdirSync(resultsDir).filter((f) => !f.endsWith(".json"));
    expect(others, "figures with no recorded run behind them").toEqual([]);
    const problems = checkBenchResultsDir(resultsDir);
    expect(Object.keys(problems).length).toBeGreaterThan(0);
    for (const [file, list] of Object.entries(problems)) expect(list, file).toEqual([]);
  });
});

describe("writeBenchRecord and checkBenchResults", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function tempResults(): string {
    const dir = mkdtempSync(join(tmpdir(), "arbor-bench-results-"));
    dirs.push(dir);
    return dir;
  }
  const figure = (name: string, value: number) => ({
    name,
    value,
    unit: "ms",
    target: "< 5 ms",
    pass: value < 5,
  });
  const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as BenchResults;

  it("writes one block per bench with its own run header, and the check accepts it", async () => {
    const dir = tempResults();
    const ran = [
      await measureBench("a.bench.ts", async () => [figure("a", 1.5)]),
      await measureBench("b.bench.ts", async () => [figure("b", 2)]),
    ];
    const file = writeBenchRecord({
      resultsDir: dir,
      name: "t",
      packageName: "@arbor/t",
      repoRoot: resultsDir,
      ran,
    });
    const record = read(file);
    expect(record.blocks.map((b) => b.bench)).toEqual(["a.bench.ts", "b.bench.ts"]);
    const run = record.blocks[0]!.run;
    expect(run.command).toBe("pnpm --filter @arbor/t bench");
    expect(run.machine.cores).toBeGreaterThan(0);
    expect(run.load.before).toHaveLength(3);
    expect(Date.parse(run.finishedAt)).toBeGreaterThanOrEqual(Date.parse(run.startedAt!));
    expect(checkBenchResults(record)).toEqual([]);
  });

  it("fails on a figure edited by hand, and on a header edited by hand", async () => {
    const dir = tempResults();
    const ran = [await measureBench("a.bench.ts", async () => [figure("a", 7.25)])];
    const file = writeBenchRecord({
      resultsDir: dir,
      name: "t",
      packageName: "@arbor/t",
      repoRoot: resultsDir,
      ran,
    });
    // the edit a person makes in the JSON: a better figure, the same digest
    writeFileSync(file, readFileSync(file, "utf8").replace('"value": 7.25', '"value": 3.25'));
    expect(readFileSync(file, "utf8")).toContain('"value": 3.25');
    expect(checkBenchResults(read(file))).toEqual([
      expect.stringMatching(/^a\.bench\.ts: figures or header differ from what its run wrote/),
    ]);
    const edited = read(file);
    edited.blocks[0]!.figures[0]!.value = 7.25;
    expect(checkBenchResults(edited)).toEqual([]);
    edited.blocks[0]!.run.load.before = [0.1, 0.1, 0.1];
    expect(checkBenchResults(edited)).toHaveLength(1);
  });

  it("fails on a block without a run header, and on the first format", () => {
    const figures = [figure("a", 1)];
    expect(
      checkBenchResults({
        package: "@arbor/t",
        format: 2,
        blocks: [{ bench: "a.bench.ts", figures }],
      }),
    ).toEqual(["a.bench.ts: no run header"]);
    expect(
      checkBenchResults({ package: "@arbor/t", at: "2026-11-27T12:36:48.482Z", figures }),
    ).toEqual(["format is undefined, not 2 (blocks with run headers)", "no blocks"]);
  });

  it("fails on a block whose command does not run its bench", async () => {
    const dir = tempResults();
    const ran = [await measureBench("a.bench.ts", async () => [figure("a", 1)])];
    const file = writeBenchRecord({
      resultsDir: dir,
      name: "t",
      packageName: "@arbor/t",
      repoRoot: resultsDir,
      ran,
    });
    const record = read(file);
    const block = record.blocks[0]!;
    block.run.command = "pnpm --filter @arbor/t bench other";
    block.digest = benchBlockDigest(record.package, block);
    expect(checkBenchResults(record)).toEqual([
      'a.bench.ts: command "pnpm --filter @arbor/t bench other" does not run this bench',
    ]);
  });

  it("a filtered run replaces only its blocks; the others keep their own run headers", async () => {
    const dir = tempResults();
    const first = [
      await measureBench("a.bench.ts", async () => [figure("a", 1)]),
      await measureBench("b.bench.ts", async () => [figure("b", 2)]),
    ];
    const file = writeBenchRecord({
      resultsDir: dir,
      name: "t",
      packageName: "@arbor/t",
      repoRoot: resultsDir,
      ran: first,
    });
    const before = read(file);
    await new Promise((r) => setTimeout(r, 5));
    const again = [await measureBench("b.bench.ts", async () => [figure("b", 3)])];
    writeBenchRecord({
      resultsDir: dir,
      name: "t",
      packageName: "@arbor/t",
      repoRoot: resultsDir,
      ran: again,
      filter: "b",
    });
    const after = read(file);
    expect(after.blocks[0]).toEqual(before.blocks[0]);
    expect(after.blocks[1]!.run.command).toBe("pnpm --filter @arbor/t bench b");
    expect(after.blocks[1]!.figures[0]!.value).toBe(3);
    expect(after.blocks[1]!.run.finishedAt).not.toBe(before.blocks[1]!.run.finishedAt);
    expect(checkBenchResults(after)).toEqual([]);
    // a full run replaces the file: a block of a bench that no longer runs goes
    writeBenchRecord({
      resultsDir: dir,
      name: "t",
      packageName: "@arbor/t",
      repoRoot: resultsDir,
      ran: again,
    });
    expect(read(file).blocks.map((b) => b.bench)).toEqual(["b.bench.ts"]);
  });
});
