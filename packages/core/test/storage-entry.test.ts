import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { entryClosureProblems, readSourceImports } from "./import-graph.js";

// @arbor/core/storage (src/storage.ts) is what packages/db takes from core at run time. The app
// loads packages/db with Node beside its bundle, so whatever this entry reaches is loaded a second
// time at every start: it must stay the data model, the protocol, the store's rules and the
// stored-message reader, loading no package but zod
// (docs/decisions/0082-storage-entry-and-migration-check.md).

const SRC = fileURLToPath(new URL("../src", import.meta.url));

describe("@arbor/core/storage", () => {
  it("reaches at run time only the model, the protocol, the store and the stored-message reader", () => {
    const sources = readSourceImports(SRC);
    expect(sources.imports.get("storage.ts")?.length).toBeGreaterThan(5);
    expect(
      entryClosureProblems(sources, "storage.ts", {
        folders: ["model/", "protocol/", "store/"],
        files: ["context/legacy.ts"],
        packages: new Set(["zod"]),
        nodeModules: true,
      }),
    ).toEqual([]);
  });
});
