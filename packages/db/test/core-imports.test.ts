import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf } from "@arbor/core/import-graph";
import { describe, expect, it } from "vitest";

// The app loads this package with Node at run time, beside its own bundled core: a value imported
// from core's server entry here would load the whole runtime a second time at every start (about
// 2 CPU seconds). Values come from `@arbor/core/storage`, whose closure core's
// test/storage-entry.test.ts keeps small; types may come from anywhere, they are erased.

const SRC = fileURLToPath(new URL("../src", import.meta.url));

describe("what packages/db loads of core", () => {
  it("takes values only from @arbor/core/storage", () => {
    const files = readdirSync(SRC).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(files.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const file of files) {
      for (const { specifier, typeOnly } of importsOf(
        file,
        readFileSync(join(SRC, file), "utf8"),
      )) {
        if (typeOnly || !specifier.startsWith("@arbor/core")) continue;
        if (specifier !== "@arbor/core/storage") problems.push(`src/${file} imports ${specifier}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
