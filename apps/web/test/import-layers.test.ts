import { fileURLToPath } from "node:url";
import {
  browserImportProblems,
  describeCycles,
  graphOf,
  reachable,
  readSourceImports,
  type SourceImports,
} from "@arbor/core/import-graph";
import { describe, expect, it } from "vitest";

// apps/web's own layering (docs/decisions/0069-core-entries.md). No two files import each other,
// directly or around a loop (`import type` counts). Browser code is every client component (a
// file that starts with "use client"), lib/client/, and every file they import at run time
// (through relative or "@/" imports): it takes from core only @arbor/core/browser (type-only
// imports too), imports no Node module and not the database package, and reaches nothing under
// lib/server/. Generated output (.next) and node_modules are not read; test files sit on top.

const WEB = fileURLToPath(new URL("..", import.meta.url));
const READ = {
  extensions: [".ts", ".tsx"],
  aliases: { "@/": "" },
  skip: ["node_modules", ".next", "dist"],
};

/** Browser code: the client components and lib/client/, and what they import at run time. */
function browserFiles(sources: SourceImports): Set<string> {
  const starts = sources.files.filter(
    (f) => sources.useClient.has(f) || f.startsWith("lib/client/"),
  );
  return reachable(graphOf(sources, true).edges, starts);
}

/** Browser files under lib/server/ (what the server alone may run), with one importer each. */
function serverFilesReached(sources: SourceImports, browser: ReadonlySet<string>): string[] {
  const wrong: string[] = [];
  for (const from of [...browser].sort()) {
    for (const { file, typeOnly } of sources.imports.get(from) ?? []) {
      if (file?.startsWith("lib/server/") && !typeOnly) wrong.push(`${from} imports ${file}`);
    }
  }
  return wrong;
}

describe("apps/web's import graph", () => {
  const sources = readSourceImports(WEB, READ);
  const browser = browserFiles(sources);

  it("reads the real sources, client components and what they import", () => {
    expect(sources.files).toContain("components/chat/chat-view.tsx");
    expect(sources.files.some((f) => f.startsWith(".next/"))).toBe(false);
    expect(browser.has("components/chat/chat-view.tsx")).toBe(true);
    // not a client component itself, imported by one
    expect(sources.useClient.has("lib/client/sse.ts")).toBe(false);
    expect(browser.has("lib/client/sse.ts")).toBe(true);
    expect(browser.has("app/api/sessions/route.ts")).toBe(false);
  });

  it("has no import cycle between files", () => {
    expect(describeCycles(graphOf(sources))).toEqual([]);
  });

  it("browser code takes from core only its browser entry, and nothing of Node or the database", () => {
    expect(browserImportProblems(sources, browser)).toEqual([]);
  });

  it("browser code reaches nothing under lib/server/", () => {
    expect(serverFilesReached(sources, browser)).toEqual([]);
  });
});

describe("the checks themselves", () => {
  const sourcesOf = (
    imports: Record<string, { specifier: string; typeOnly?: boolean; file?: string }[]>,
    useClient: string[],
  ): SourceImports => ({
    files: Object.keys(imports),
    imports: new Map(
      Object.entries(imports).map(([file, list]) => [
        file,
        list.map((i) => ({ specifier: i.specifier, typeOnly: i.typeOnly ?? false, file: i.file })),
      ]),
    ),
    useClient: new Set(useClient),
  });
  const planted = sourcesOf(
    {
      "components/view.tsx": [{ specifier: "./helper", file: "components/helper.ts" }],
      "components/helper.ts": [
        { specifier: "@/lib/server/runtime", file: "lib/server/runtime.ts" },
        { specifier: "@arbor/core", typeOnly: true },
        { specifier: "./view", typeOnly: true, file: "components/view.tsx" },
      ],
      "lib/server/runtime.ts": [{ specifier: "node:fs" }],
      "app/api/route.ts": [{ specifier: "@/lib/server/runtime", file: "lib/server/runtime.ts" }],
    },
    ["components/view.tsx"],
  );

  it("follow a client component's runtime imports, not a route's", () => {
    expect([...browserFiles(planted)].sort()).toEqual([
      "components/helper.ts",
      "components/view.tsx",
      "lib/server/runtime.ts",
    ]);
  });

  it("report a cycle, core's server entry, a Node module and server code in browser code", () => {
    expect(describeCycles(graphOf(planted))).toEqual([
      "components/helper.ts → components/view.tsx → components/helper.ts" +
        " (files in the cycle: components/helper.ts, components/view.tsx)",
    ]);
    expect(browserImportProblems(planted, browserFiles(planted))).toEqual([
      "components/helper.ts imports @arbor/core: not core's browser entry (take @arbor/core/browser)",
      "lib/server/runtime.ts imports node:fs: a Node module",
    ]);
    expect(serverFilesReached(planted, browserFiles(planted))).toEqual([
      "components/helper.ts imports lib/server/runtime.ts",
    ]);
  });
});
