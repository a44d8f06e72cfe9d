import { join } from "node:path";
import {
  browserImportProblems,
  describeCycles,
  graphOf,
  type ImportGraph,
  readSourceImports,
} from "@arbor/core/import-graph";
import { describe, expect, it } from "vitest";

// packages/ui runs in the browser, all of it: no file imports a Node module, the database
// package or any entry of @arbor/core but @arbor/core/browser (docs/decisions/0069-core-entries.md),
// and no two files import each other, directly or around a loop (`import type` counts: it ties
// two modules' designs together just the same). The reader is core's (test/import-graph.ts).

// (import.meta.url is no file URL under jsdom, the environment of this package's tests)
const SRC = join(import.meta.dirname, "../src");

describe("packages/ui's import graph", () => {
  const sources = readSourceImports(SRC, { extensions: [".ts", ".tsx"] });

  it("reads the real sources", () => {
    expect(sources.files).toContain("messages/tool-request-card.tsx");
    expect(sources.imports.get("messages/tool-request-card.tsx")?.map((i) => i.file)).toContain(
      "messages/sub-agent-card.tsx",
    );
    expect(sources.useClient.has("messages/tool-request-card.tsx")).toBe(true);
  });

  it("has no import cycle between files", () => {
    expect(describeCycles(graphOf(sources), "src/")).toEqual([]);
  });

  it("takes from core only its browser entry, and nothing of Node or the database", () => {
    expect(browserImportProblems(sources, sources.files, "src/")).toEqual([]);
  });
});

describe("the checks themselves", () => {
  const graph = (edges: Record<string, string[]>): ImportGraph => ({
    files: Object.keys(edges),
    edges: new Map(Object.entries(edges)),
  });

  it("name the files of a cycle, type-only imports included", () => {
    const sources = {
      files: ["messages/a.tsx", "messages/b.tsx"],
      imports: new Map([
        ["messages/a.tsx", [{ specifier: "./b.js", typeOnly: false, file: "messages/b.tsx" }]],
        ["messages/b.tsx", [{ specifier: "./a.js", typeOnly: true, file: "messages/a.tsx" }]],
      ]),
      useClient: new Set<string>(),
    };
    expect(describeCycles(graphOf(sources), "src/")).toEqual([
      "src/messages/a.tsx → src/messages/b.tsx → src/messages/a.tsx" +
        " (files in the cycle: messages/a.tsx, messages/b.tsx)",
    ]);
    expect(describeCycles(graph({ "a.ts": ["b.ts"], "b.ts": [] }))).toEqual([]);
  });

  it("refuse core's server entry, a Node module and the database package", () => {
    const imports = (...specifiers: string[]) =>
      specifiers.map((specifier) => ({ specifier, typeOnly: true, file: undefined }));
    const sources = {
      files: ["composer.tsx"],
      imports: new Map([
        [
          "composer.tsx",
          imports("@arbor/core", "@arbor/core/browser", "node:fs", "path", "@arbor/db", "react"),
        ],
      ]),
      useClient: new Set<string>(),
    };
    expect(browserImportProblems(sources, sources.files, "src/")).toEqual([
      "src/composer.tsx imports @arbor/core: not core's browser entry (take @arbor/core/browser)",
      "src/composer.tsx imports node:fs: a Node module",
      "src/composer.tsx imports path: a Node module",
      "src/composer.tsx imports @arbor/db: the database package",
    ]);
  });
});
