// Reads the import graph of core's sources (every relative import, `import type` included:
// a type-only import creates no runtime cycle but it does tie two modules' designs together).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface ImportGraph {
  /** Source files, relative to the root, with forward slashes. */
  readonly files: readonly string[];
  /** file → the files it imports (relative imports only, resolved to files). */
  readonly edges: ReadonlyMap<string, readonly string[]>;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, join(base, "index.ts")];
  return candidates.find((c) => c.endsWith(".ts") && existsSync(c));
}

/** Builds the graph of `root` (a source folder). Test files are left out: they sit on top. */
export function readImportGraph(root: string): ImportGraph {
  const files = sourceFiles(root)
    .filter((f) => !f.endsWith(".test.ts"))
    .sort();
  const rel = (f: string) => relative(root, f).split("\\").join("/");
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith(".")) continue;
      // data (a JSON import such as llm/prices.json) is no module of the graph
      if (fileName.endsWith(".json")) continue;
      const target = resolveSpecifier(file, fileName);
      if (target === undefined) throw new Error(`${rel(file)}: cannot resolve "${fileName}"`);
      targets.add(rel(target));
    }
    edges.set(rel(file), [...targets].sort());
  }
  return { files: files.map(rel), edges };
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
