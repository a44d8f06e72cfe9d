// Reads the import graph of a source folder (core's src/, packages/ui/src, apps/web): every
// relative (or aliased) import resolved to a file, `import type` included (a type-only import
// creates no runtime cycle but it does tie two modules' designs together), and every package
// import by its specifier. The layering tests of core, ui and web share it through the
// source-only entry `@arbor/core/import-graph` (package.json; there is no built copy).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface ImportGraph {
  /** Source files, relative to the root, with forward slashes. */
  readonly files: readonly string[];
  /** file → the files it imports (relative imports only, resolved to files). */
  readonly edges: ReadonlyMap<string, readonly string[]>;
}

/** One import of a source file. */
export interface SourceImport {
  /** as written: "./a.js", "@/lib/client/api", "@arbor/core/browser", "node:fs" */
  readonly specifier: string;
  /** erased from the emitted code: `import type`, `export type`, `import("x").T` in a type */
  readonly typeOnly: boolean;
  /** an `import("x")` or `require("x")` call: loaded when it runs, not with the module (absent:
   * a static import) */
  readonly dynamic?: boolean;
  /** the file it resolves to, relative to the root; undefined for a package */
  readonly file: string | undefined;
}

export interface SourceImports {
  readonly files: readonly string[];
  /** file → its imports, in source order */
  readonly imports: ReadonlyMap<string, readonly SourceImport[]>;
  /** file → its source text starts with the "use client" directive */
  readonly useClient: ReadonlySet<string>;
}

export interface ReadOptions {
  /** file name endings read as sources (default: .ts) */
  readonly extensions?: readonly string[];
  /** specifier prefix → folder it stands for, relative to the root (web: { "@/": "" }) */
  readonly aliases?: Readonly<Record<string, string>>;
  /** folder or file names never read (default: node_modules, .next, dist) */
  readonly skip?: readonly string[];
  /** leave test files (*.test.ts, *.test.tsx) out (default: true) */
  readonly skipTests?: boolean;
}

const DEFAULT_SKIP = ["node_modules", ".next", "dist"];

function sourceFiles(
  dir: string,
  extensions: readonly string[],
  skip: readonly string[],
): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (skip.includes(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full, extensions, skip));
    else if (extensions.some((e) => name.endsWith(e)) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function resolveFile(base: string, extensions: readonly string[]): string | undefined {
  const stem = base.replace(/\.(m?js|jsx)$/, "");
  const candidates = [
    ...extensions.map((e) => `${stem}${e}`),
    base,
    ...extensions.map((e) => join(base, `index${e}`)),
  ];
  return candidates.find(
    (c) => extensions.some((e) => c.endsWith(e)) && existsSync(c) && statSync(c).isFile(),
  );
}

/** `import { type A }` keeps a side-effect import under verbatimModuleSyntax: only a clause-level
 * `type` (or `export type`) erases the import. */
function declarationIsTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) return node.importClause?.isTypeOnly === true;
  return node.isTypeOnly;
}

/** Every module specifier of a source text, with whether the emitted code keeps it. */
export function importsOf(
  fileName: string,
  text: string,
): { specifier: string; typeOnly: boolean; dynamic: boolean }[] {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const out: { specifier: string; typeOnly: boolean; dynamic: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: declarationIsTypeOnly(node),
        dynamic: false,
      });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      out.push({
        specifier: node.moduleReference.expression.text,
        typeOnly: node.isTypeOnly,
        dynamic: false,
      });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push({ specifier: node.argument.literal.text, typeOnly: true, dynamic: false });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0]!)
    ) {
      out.push({
        specifier: (node.arguments[0] as ts.StringLiteralLike).text,
        typeOnly: false,
        dynamic: true,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every import of every source file under `root`, resolved where it names a file. */
export function readSourceImports(root: string, options: ReadOptions = {}): SourceImports {
  const extensions = options.extensions ?? [".ts"];
  const aliases = Object.entries(options.aliases ?? {});
  const skipTests = options.skipTests ?? true;
  const files = sourceFiles(root, extensions, options.skip ?? DEFAULT_SKIP)
    .filter((f) => !skipTests || !/\.test\.tsx?$/.test(f))
    .sort();
  const rel = (f: string) => relative(root, f).split("\\").join("/");
  const imports = new Map<string, SourceImport[]>();
  const useClient = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    if (/^\s*(\/\/[^\n]*\n\s*)*["']use client["']/.test(text)) useClient.add(rel(file));
    const list: SourceImport[] = [];
    for (const { specifier, typeOnly, dynamic } of importsOf(file, text)) {
      // data (a JSON import such as llm/prices.json, a stylesheet) is no module of the graph
      if (/\.(json|css)$/.test(specifier)) continue;
      const alias = aliases.find(([prefix]) => specifier.startsWith(prefix));
      let base: string | undefined;
      if (specifier.startsWith(".")) base = resolve(dirname(file), specifier);
      else if (alias) base = resolve(root, alias[1], specifier.slice(alias[0].length));
      // a file outside the folder read (a shared script a config imports) is no node of its graph
      const outside = base !== undefined && relative(root, base).startsWith("..");
      if (base === undefined || outside) {
        list.push({ specifier, typeOnly, dynamic, file: undefined });
        continue;
      }
      const target = resolveFile(base, extensions);
      if (target === undefined) throw new Error(`${rel(file)}: cannot resolve "${specifier}"`);
      list.push({ specifier, typeOnly, dynamic, file: rel(target) });
    }
    imports.set(rel(file), list);
  }
  return { files: files.map(rel), imports, useClient };
}

/** The graph of file → file edges; `runtimeOnly` leaves out the imports the emitted code drops. */
export function graphOf(sources: SourceImports, runtimeOnly = false): ImportGraph {
  const edges = new Map<string, string[]>();
  for (const [file, list] of sources.imports) {
    const targets = new Set<string>();
    for (const i of list)
      if (i.file !== undefined && !(runtimeOnly && i.typeOnly)) targets.add(i.file);
    edges.set(file, [...targets].sort());
  }
  return { files: sources.files, edges };
}

/** Builds the graph of `root` (a source folder). Test files are left out: they sit on top. */
export function readImportGraph(root: string): ImportGraph {
  return graphOf(readSourceImports(root));
}

/** The files reachable from `starts` (themselves included), following `edges`. */
export function reachable(
  edges: ReadonlyMap<string, readonly string[]>,
  starts: Iterable<string>,
): Set<string> {
  const seen = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const node = queue.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    queue.push(...(edges.get(node) ?? []));
  }
  return seen;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function findCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) {
        cycles.push(component.sort());
      }
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

/** One concrete loop through a component, for a readable message: a → b → … → a. */
export function cyclePath(
  edges: ReadonlyMap<string, readonly string[]>,
  component: readonly string[],
): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of edges.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [...component];
}

/** Each cycle of `graph` as "a → b → a (files in the cycle: a, b)", paths prefixed by `prefix`. */
export function describeCycles(graph: ImportGraph, prefix = ""): string[] {
  return findCycles(graph.edges).map(
    (component) =>
      `${cyclePath(graph.edges, component)
        .map((f) => `${prefix}${f}`)
        .join(" → ")} (files in the cycle: ${component.join(", ")})`,
  );
}

/** What a module that runs in a browser may not import, and why (packages/ui, web's client code). */
function browserRefusal(specifier: string): string | undefined {
  if (specifier.startsWith("node:") || isBuiltin(specifier)) return "a Node module";
  if (specifier === "@arbor/core" || specifier.startsWith("@arbor/core/")) {
    return specifier === "@arbor/core/browser"
      ? undefined
      : "not core's browser entry (take @arbor/core/browser)";
  }
  if (specifier === "@arbor/db" || specifier.startsWith("@arbor/db/"))
    return "the database package";
  return undefined;
}

/** Each import of `files` that browser code may not make (type-only ones too: a server entry's
 * types belong to the server), as "prefix+file imports X: why". */
export function browserImportProblems(
  sources: SourceImports,
  files: Iterable<string>,
  prefix = "",
): string[] {
  const problems: string[] = [];
  for (const file of [...files].sort()) {
    for (const { specifier } of sources.imports.get(file) ?? []) {
      const why = browserRefusal(specifier);
      if (why !== undefined) problems.push(`${prefix}${file} imports ${specifier}: ${why}`);
    }
  }
  return problems;
}

/** What an entry's runtime closure may reach (test/browser-entry.test.ts, storage-entry.test.ts). */
export interface EntryAllowance {
  /** folders of src/ (with their trailing slash) whose modules it may reach */
  folders: readonly string[];
  /** single files of src/ outside those folders it may reach */
  files?: readonly string[];
  /** packages its modules may import at run time */
  packages: ReadonlySet<string>;
  /** whether its modules may import Node's own modules (node:fs, …) */
  nodeModules: boolean;
}

/** Every reason the runtime closure of `entry` goes beyond `allowed`, as readable lines. */
export function entryClosureProblems(
  sources: SourceImports,
  entry: string,
  allowed: EntryAllowance,
): string[] {
  const runtime = graphOf(sources, true);
  const problems: string[] = [];
  for (const file of [...reachable(runtime.edges, [entry])].sort()) {
    const inside =
      file === entry ||
      allowed.folders.some((folder) => file.startsWith(folder)) ||
      (allowed.files ?? []).includes(file);
    if (!inside) {
      problems.push(
        `src/${file} is reached at run time and is not in ${allowed.folders.join(", ")}`,
      );
    }
    for (const { specifier, typeOnly, file: target } of sources.imports.get(file) ?? []) {
      if (target !== undefined || typeOnly || allowed.packages.has(specifier)) continue;
      if (allowed.nodeModules && (specifier.startsWith("node:") || isBuiltin(specifier))) continue;
      problems.push(`src/${file} imports ${specifier}, which the entry may not load`);
    }
  }
  return problems;
}
