import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type AnalyseItem, analyseInWorkers } from "./analysis-pool.js";
import { contentHash, Grammars } from "./file-analysis.js";
import { readOne } from "./file-reader.js";

// The analysis workers of a large scan answer exactly what reading on one thread answers, in the
// order of the files given.

const root = mkdtempSync(path.join(tmpdir(), "arbor-analysis-pool-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("analyseInWorkers", { timeout: 120_000 }, () => {
  it("reads batches in two workers, outcomes in order and equal to reading in-process", async () => {
    mkdirSync(path.join(root, "src"));
    const items: AnalyseItem[] = [];
    for (let i = 0; i < 60; i++) {
      const rel = `src/m${i}.${i % 3 === 0 ? "py" : "ts"}`;
      const text =
        i % 3 === 0
          ? `def pooled_function_${i}(x):\n    return helper_${i}(x)\n`
          : `export class Pooled${i} {\n  run(): number {\n    return helper${i}();\n  }\n}\n`;
      writeFileSync(path.join(root, rel), text);
      const st = statSync(path.join(root, rel));
      // the last file is known with its current hash: unchanged, not parsed again
      const known = i === 59 ? contentHash(text) : undefined;
      items.push([{ path: rel, size: st.size, mtimeMs: st.mtimeMs }, known]);
    }
    const pooled = await analyseInWorkers(root, items, 2);
    const grammars = new Grammars();
    const inline = [];
    for (const [stat, hash] of items) inline.push(await readOne(grammars, root, stat, hash));
    expect(pooled).toHaveLength(60);
    expect(pooled).toEqual(inline);
    expect(pooled[59]?.kind).toBe("touched");
    const first = pooled[1];
    expect(first?.kind === "record" && first.record.defs.map((d) => d.name)).toEqual([
      "Pooled1",
      "run",
    ]);
  });
});
