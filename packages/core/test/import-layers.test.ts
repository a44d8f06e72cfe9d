import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  cyclePath,
  findCycles,
  type ImportGraph,
  readImportGraph,
  readSourceImports,
  type SourceImports,
} from "./import-graph.js";

// Core's layers, bottom first (docs/decisions/0010-core-layers.md). A file may import files of its
// own folder and of folders listed before its own, never one listed after it. Files directly in
// src/ (index.ts, runtime-info.ts) sit on top of every folder. Type-only imports count: they do
// not make a runtime cycle, but they tie two layers' designs together just the same.
const CORE_LAYERS = [
  "model",
  "protocol",
  "store",
  "trust",
  "llm",
  "tools",
  "telemetry",
  "skills",
  "codebase",
  "agent",
  "command-hooks",
  "mcp",
  "openapi",
  "recording",
  "folding",
  "subagents",
  "context",
  "testing",
] as const;

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function layerOf(file: string): number {
  const slash = file.indexOf("/");
  if (slash === -1) return CORE_LAYERS.length; // src/index.ts, src/runtime-info.ts
  const folder = file.slice(0, slash);
  const layer = (CORE_LAYERS as readonly string[]).indexOf(folder);
  if (layer === -1) {
    throw new Error(
      `src/${folder}/ has no place in CORE_LAYERS (test/import-layers.test.ts): add it where it belongs`,
    );
  }
  return layer;
}

/** Every import that goes up the layer order, as "from → to (from-folder is below to-folder)". */
function upwardImports(graph: ImportGraph): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph.edges) {
    for (const to of targets) {
      if (to.startsWith("../")) {
        wrong.push(`src/${from} imports ${to.slice(3)}, outside src/ (test helpers are for tests)`);
      } else if (layerOf(to) > layerOf(from)) {
        wrong.push(`src/${from} imports src/${to}, a layer above its own`);
      }
    }
  }
  return wrong;
}

/** Packages only tests may import: src/ ships in the build, a test library does not belong there
 * (helpers that need one live in test/support/, e.g. the store contract suite). */
const TEST_LIBRARIES = [
  /^vitest(\/|$)/,
  /^@vitest\//,
  /^@testing-library\//,
  /^@playwright\//,
  /^jsdom$/,
];

/** Every import of a test library by a source file that is not a test, as "file imports pkg". */
function testLibraryImports(sources: SourceImports): string[] {
  const wrong: string[] = [];
  for (const [file, imports] of sources.imports) {
    for (const { specifier } of imports) {
      if (TEST_LIBRARIES.some((library) => library.test(specifier))) {
        wrong.push(`src/${file} imports ${specifier}, a test library (move it to test/support/)`);
      }
    }
  }
  return wrong;
}

function describeCycles(graph: ImportGraph): string[] {
  return findCycles(graph.edges).map(
    (component) =>
      `${cyclePath(graph.edges, component)
        .map((f) => `src/${f}`)
        .join(" → ")} (files in the cycle: ${component.join(", ")})`,
  );
}

describe("core's import graph", () => {
  const graph = readImportGraph(SRC);

  it("reads the real sources", () => {
    expect(graph.files).toContain("agent/loop.ts");
    expect(graph.edges.get("agent/loop.ts")).toContain("agent/loop-run.ts");
  });

  it("imports only downwards in the layer order", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("has no import cycle between files", () => {
    expect(describeCycles(graph)).toEqual([]);
  });

  it("imports no test library outside test files", () => {
    expect(testLibraryImports(readSourceImports(SRC))).toEqual([]);
  });

  it("model/ imports nothing else of Arbor", () => {
    const outside = [...graph.edges]
      .filter(([from]) => from.startsWith("model/"))
      .flatMap(([from, targets]) =>
        targets.filter((to) => !to.startsWith("model/")).map((to) => `${from} → ${to}`),
      );
    expect(outside).toEqual([]);
  });
});

describe("the checks themselves", () => {
  const graphOf = (edges: Record<string, string[]>): ImportGraph => ({
    files: Object.keys(edges),
    edges: new Map(Object.entries(edges)),
  });

  it("name the files of a cycle, in order", () => {
    const graph = graphOf({
      "agent/loop.ts": ["agent/step.ts"],
      "agent/step.ts": ["agent/helper.ts"],
      "agent/helper.ts": ["agent/loop.ts"],
      "agent/other.ts": ["agent/loop.ts"],
    });
    expect(describeCycles(graph)).toEqual([
      "src/agent/helper.ts → src/agent/loop.ts → src/agent/step.ts → src/agent/helper.ts" +
        " (files in the cycle: agent/helper.ts, agent/loop.ts, agent/step.ts)",
    ]);
  });

  it("find a file that imports itself and two separate cycles", () => {
    const graph = graphOf({
      "a/x.ts": ["a/x.ts"],
      "b/y.ts": ["b/z.ts"],
      "b/z.ts": ["b/y.ts"],
      "c/free.ts": ["b/y.ts"],
    });
    expect(describeCycles(graph)).toHaveLength(2);
  });

  it("report an import from a lower folder into a higher one", () => {
    const graph = graphOf({
      "protocol/events.ts": ["context/states.ts", "model/states.ts"],
      "context/states.ts": [],
      "model/states.ts": [],
    });
    expect(upwardImports(graph)).toEqual([
      "src/protocol/events.ts imports src/context/states.ts, a layer above its own",
    ]);
  });

  it("report a source file that imports a test helper", () => {
    const graph = graphOf({ "agent/loop.ts": ["../test/support/random-history.ts"] });
    expect(upwardImports(graph)).toEqual([
      "src/agent/loop.ts imports test/support/random-history.ts, outside src/ (test helpers are for tests)",
    ]);
  });

  it("report a source file that imports a test library", () => {
    const sources: SourceImports = {
      files: ["store/store-contract.ts"],
      imports: new Map([
        [
          "store/store-contract.ts",
          [
            { specifier: "vitest", typeOnly: false, file: undefined },
            { specifier: "zod", typeOnly: false, file: undefined },
          ],
        ],
      ]),
      useClient: new Set(),
    };
    expect(testLibraryImports(sources)).toEqual([
      "src/store/store-contract.ts imports vitest, a test library (move it to test/support/)",
    ]);
  });

  it("refuse a folder that has no layer", () => {
    const graph = graphOf({ "newfolder/a.ts": ["model/states.ts"], "model/states.ts": [] });
    expect(() => upwardImports(graph)).toThrow(/src\/newfolder\/ has no place in CORE_LAYERS/);
  });
});
