import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Code that runs in the browser (the app's client code and components, the UI package) takes
// only types from @arbor/core. A value import pulls the core's index into the browser bundle, and
// with it the MCP client's child_process: `next build` then fails (it did, for one constant).

const ROOTS = [
  fileURLToPath(new URL("../lib/client", import.meta.url)),
  fileURLToPath(new URL("../components", import.meta.url)),
  fileURLToPath(new URL("../../../packages/ui/src", import.meta.url)),
];
const REPO = fileURLToPath(new URL("../../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The names a file takes from @arbor/core as values (not types). */
function valueImports(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const from = statement.moduleSpecifier;
    if (from === undefined || !ts.isStringLiteral(from) || from.text !== "@arbor/core") continue;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause === undefined || clause.isTypeOnly) continue;
      if (clause.name) names.push(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push(`* as ${bindings.name.text}`);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (!element.isTypeOnly) names.push(element.name.text);
        }
      }
    } else if (!statement.isTypeOnly) {
      const clause = statement.exportClause;
      if (clause === undefined) names.push("*");
      else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          if (!element.isTypeOnly) names.push(element.name.text);
        }
      }
    }
  }
  return names;
}

describe("browser code", () => {
  it("takes only types from @arbor/core", () => {
    const offenders = ROOTS.flatMap(sources).flatMap((path) =>
      valueImports(path).map((name) => `${relative(REPO, path)}: ${name}`),
    );
    expect(offenders).toEqual([]);
  });
});
