import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FoldMemoryFile, rankByDescription } from "./memory.js";

function store(dataDir = mkdtempSync(path.join(tmpdir(), "fold-mem-")), workspace = "/w/app") {
  let now = 0;
  return new FoldMemoryFile({
    dataDir,
    workspace,
    // one token per word keeps the budgets readable
    countTokens: (text) => text.split(/\s+/).filter(Boolean).length,
    now: () => ++now,
  });
}

describe("FoldMemoryFile", () => {
  it("keeps memories per workspace in <data dir>/fold-memory/, durable across instances", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "fold-mem-"));
    const a = store(dataDir, "/w/app");
    const kept = a.remember("find the config loader", "it is in session-config.ts");
    expect(kept).toMatchObject({
      description: "find the config loader",
      text: "it is in session-config.ts",
    });
    expect(path.dirname(a.file)).toBe(path.join(dataDir, "fold-memory"));
    expect(readdirSync(path.join(dataDir, "fold-memory"))).toEqual([path.basename(a.file)]);
    // a new instance (a restart, another process) reads it back
    expect(store(dataDir, "/w/app").list()).toEqual([kept]);
    // another workspace has its own
    expect(store(dataDir, "/w/other").list()).toEqual([]);
  });

  it("does not double the same lesson, forgets by id, and reads a broken file as empty", () => {
    const s = store();
    const one = s.remember("d", "lesson");
    expect(s.remember("d", "lesson").id).toBe(one.id);
    expect(s.list()).toHaveLength(1);
    expect(s.forget(one.id)).toBe(true);
    expect(s.forget(one.id)).toBe(false);
    s.remember("d", "again");
    writeFileSync(s.file, "{ not json");
    expect(s.list()).toEqual([]);
    s.remember("d", "fresh");
    expect(JSON.parse(readFileSync(s.file, "utf8")).memories).toHaveLength(1);
  });

  it("keeps at most `limit` memories, dropping the oldest", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "fold-mem-"));
    const s = new FoldMemoryFile({ dataDir, workspace: "/w", limit: 2 });
    s.remember("a", "1");
    s.remember("b", "2");
    s.remember("c", "3");
    expect(s.list().map((m) => m.text)).toEqual(["2", "3"]);
  });

  it("ranks by BM25 over descriptions: shared rare terms first, unrelated ones left out", () => {
    const s = store();
    const parser = s.remember("fix the parser crash on empty input", "guard empty strings");
    const tests = s.remember("run the parser tests", "use vitest run");
    s.remember("deploy to staging", "through CI only");
    const ranked = s.rank("parser crash");
    expect(ranked.map((m) => m.id)).toEqual([parser.id, tests.id]);
    expect(ranked[0]?.score).toBeGreaterThan(ranked[1]?.score ?? Infinity);
    expect(s.rank("kubernetes")).toEqual([]);
    expect(s.rank("")).toEqual([]);
  });

  it("splits identifiers in descriptions as the codebase search does", () => {
    const memories = [
      { id: "1", description: "refactor parseHttpRequest", text: "t", createdAt: 1 },
      { id: "2", description: "write docs", text: "t", createdAt: 2 },
    ];
    expect(rankByDescription(memories, "http request").map((m) => m.id)).toEqual(["1"]);
  });

  it("selects greedily up to the token budget, passing over one too large for smaller ones", () => {
    const s = store();
    const best = s.remember("lint lint the code", "one two three");
    const big = s.remember("lint the code", "a b c d e f g h i j");
    const small = s.remember("lint it", "x y");
    expect(s.rank("lint").map((m) => m.id)).toEqual([best.id, small.id, big.id]);
    expect(s.select("lint", 5)).toEqual([best.id, small.id]);
    expect(s.select("lint", 15)).toEqual([best.id, small.id, big.id]);
    expect(s.select("lint", 2)).toEqual([small.id]);
    expect(s.select("lint", 0)).toEqual([]);
    expect(s.recall("lint", 5).map((m) => m.text)).toEqual(["one two three", "x y"]);
  });
});
