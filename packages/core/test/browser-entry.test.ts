import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type EntryAllowance,
  entryClosureProblems,
  readSourceImports,
  type SourceImports,
} from "./import-graph.js";

// @arbor/core/browser (src/browser.ts) is what browser code may take from core
// (docs/decisions/0069-core-entries.md). What a bundler pulls in from it is every module its
// runtime imports reach: those must all be the wire protocol or the data model (no server
// folder), and import no package but zod and nothing of node:. A name from a server folder may be
// re-exported as a type only: `export type` is erased, so it reaches nothing at run time.

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const ENTRY = "browser.ts";
/** What browser code's modules may reach and load at run time. */
const BROWSER: EntryAllowance = {
  folders: ["model/", "protocol/"],
  packages: new Set(["zod"]),
  nodeModules: false,
};

const browserProblems = (sources: SourceImports, entry: string) =>
  entryClosureProblems(sources, entry, BROWSER);

describe("@arbor/core/browser", () => {
  const sources = readSourceImports(SRC);

  it("reads the real entry", () => {
    const imports = sources.imports.get(ENTRY) ?? [];
    expect(imports.map((i) => i.specifier)).toContain("./protocol/index.js");
    // the server folders it names are type-only re-exports
    expect(
      imports.filter((i) => i.specifier === "./context/index.js").map((i) => i.typeOnly),
    ).toEqual([true]);
  });

  it("reaches at run time only the protocol and the data model, importing only zod", () => {
    expect(browserProblems(sources, ENTRY)).toEqual([]);
  });
});

describe("the check itself", () => {
  const sourcesOf = (
    imports: Record<string, { specifier: string; typeOnly?: boolean; file?: string }[]>,
  ): SourceImports => ({
    files: Object.keys(imports),
    imports: new Map(
      Object.entries(imports).map(([file, list]) => [
        file,
        list.map((i) => ({ specifier: i.specifier, typeOnly: i.typeOnly ?? false, file: i.file })),
      ]),
    ),
    useClient: new Set(),
  });

  it("reports a node: import and a server module reached through a value re-export", () => {
    const sources = sourcesOf({
      "browser.ts": [
        { specifier: "./model/index.js", file: "model/index.ts" },
        { specifier: "./context/index.js", file: "context/index.ts" },
      ],
      "model/index.ts": [{ specifier: "./private-files.js", file: "model/private-files.ts" }],
      "model/private-files.ts": [{ specifier: "node:fs" }, { specifier: "zod" }],
      "context/index.ts": [],
    });
    expect(browserProblems(sources, "browser.ts")).toEqual([
      "src/context/index.ts is reached at run time and is not in model/, protocol/",
      "src/model/private-files.ts imports node:fs, which the entry may not load",
    ]);
  });

  it("follows no type-only import", () => {
    const sources = sourcesOf({
      "browser.ts": [{ specifier: "./context/index.js", typeOnly: true, file: "context/index.ts" }],
      "context/index.ts": [{ specifier: "node:fs" }],
    });
    expect(browserProblems(sources, "browser.ts")).toEqual([]);
  });
});
