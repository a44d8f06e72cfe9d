import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FileRecord } from "./file-record.js";
import { IndexStore } from "./index-store.js";

// The store: a base snapshot, deltas appended after it, a cut-off delta ignored.

const dir = mkdtempSync(path.join(tmpdir(), "arbor-index-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function record(p: string, ids: number[], line: number): FileRecord {
  return {
    path: p,
    size: 10 + line,
    mtimeMs: 1000 + line,
    hash: `h-${p}-${line}`,
    language: "typescript",
    lines: line,
    defs: [
      { name: `f${line}`, kind: "function", signature: `function f${line}()`, line, endLine: line },
    ],
    termCount: 2 * ids.length,
    termIds: Uint32Array.from(ids),
    termCounts: Uint32Array.from(ids.map(() => 2)),
    identIds: Uint32Array.from(ids.slice(0, 1)),
    identStarts: Uint32Array.from([0, 2]),
    identLines: Uint32Array.from([line, line + 1]),
  };
}

const plain = (r: FileRecord) => ({
  ...r,
  termIds: [...r.termIds],
  termCounts: [...r.termCounts],
  identIds: [...r.identIds],
  identStarts: [...r.identStarts],
  identLines: [...r.identLines],
});

describe("IndexStore", () => {
  it("reads the base and the deltas after it; ignores a delta cut short", () => {
    const root = "/ws/one";
    const store = new IndexStore(dir, root);
    expect(store.load()).toBeUndefined();
    expect(store.wantsWhole).toBe(true);
    const a = record("a.ts", [0, 1], 1);
    const b = record("b.ts", [1, 2], 2);
    store.save(["alpha", "beta", "gamma"], [a, b]);
    expect(store.wantsWhole).toBe(false);
    const base = statSync(store.file).size;

    const a2 = record("a.ts", [3], 7);
    store.append({
      from: 3,
      strings: ["delta"],
      removed: ["b.ts"],
      files: [a2],
      skipped: [["min.js", 5, 6]],
    });
    expect(statSync(store.file).size).toBeGreaterThan(base);

    const again = new IndexStore(dir, root);
    const loaded = again.load();
    expect(loaded?.strings).toEqual(["alpha", "beta", "gamma", "delta"]);
    expect(loaded?.files.map(plain)).toEqual([plain(a2)]);
    expect(loaded?.skipped).toEqual([["min.js", 5, 6]]);

    // a crash mid-append: the partial chunk is dropped (and cut from the file)
    const whole = statSync(store.file).size;
    appendFileSync(store.file, readFileSync(store.file).subarray(0, 40));
    const third = new IndexStore(dir, root);
    expect(third.load()?.files.map(plain)).toEqual([plain(a2)]);
    expect(statSync(store.file).size).toBe(whole);
    third.append({ from: 4, strings: [], removed: [], files: [b], skipped: [] });
    expect(
      new IndexStore(dir, root)
        .load()
        ?.files.map((r) => r.path)
        .sort(),
    ).toEqual(["a.ts", "b.ts"]);
  });

  it("reads another workspace's or an unknown file as empty", () => {
    const store = new IndexStore(dir, "/ws/two");
    store.save(["x"], [record("x.ts", [0], 1)]);
    expect(new IndexStore(dir, "/ws/two").load()?.files).toHaveLength(1);
    appendFileSync(path.join(dir, "junk.idx"), "not an index");
    const other = new IndexStore(dir, "/ws/three");
    expect(other.load()).toBeUndefined();
  });
});
