import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FoldMemoryFile } from "./memory.js";
import { FoldMemories, InMemoryFoldMemoryRecords, importFoldMemoryFile } from "./memory-store.js";

// FoldMemories over a store: what FoldMemoryFile promises (no doubles, the limit, BM25 recall in
// a budget), kept per workspace, and an older file's lessons imported once with their ids.

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe("FoldMemories", () => {
  it("keeps lessons per workspace, not doubled, at most `limit`, recalled by BM25 in a budget", async () => {
    const records = new InMemoryFoldMemoryRecords();
    let now = 0;
    const app = new FoldMemories({
      records,
      workspace: "/w/app",
      countTokens: words,
      now: () => ++now,
      limit: 3,
    });
    const other = new FoldMemories({ records, workspace: "/w/other" });
    const one = await app.remember("fix the parser crash", "guard empty strings");
    expect((await app.remember("fix the parser crash", "guard empty strings")).id).toBe(one.id);
    await app.remember("parser tests", "run vitest on src/parser only");
    await app.remember("deploy notes", "tag then push");
    expect(await other.list()).toEqual([]);
    expect((await app.recall("the parser", 4)).map((m) => m.text)).toEqual(["guard empty strings"]);
    await app.remember("release", "bump the version");
    // the oldest went
    expect((await app.list()).map((m) => m.text)).toEqual([
      "run vitest on src/parser only",
      "tag then push",
      "bump the version",
    ]);
    expect(await app.forget(one.id)).toBe(false);
  });

  it("imports an older file's lessons once, with their ids, and renames the file", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "fold-mem-import-"));
    const file = new FoldMemoryFile({ dataDir, workspace: "/w/app" });
    const kept = file.remember("find the config loader", "it is in session-config.ts");
    const memories = new FoldMemories({
      records: new InMemoryFoldMemoryRecords(),
      workspace: "/w/app",
    });
    expect(await importFoldMemoryFile(file, memories)).toBe(1);
    expect(await memories.list()).toEqual([kept]);
    expect(existsSync(file.file)).toBe(false);
    expect(existsSync(`${file.file}.imported`)).toBe(true);
    // the next start finds no file: nothing more
    expect(await importFoldMemoryFile(file, memories)).toBe(0);
    expect(await memories.list()).toHaveLength(1);
  });
});
