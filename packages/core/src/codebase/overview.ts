import type { FileRecord } from "./file-record.js";
import { languageSpec } from "./languages.js";
import { type Manifest, readManifests } from "./manifests.js";

// get_project_overview's content: the project's shape in a few hundred words for a model —
// a summarised directory tree, entry points, key dependencies, languages and size.

export interface OverviewTreeNode {
  name: string;
  /** relative path ("" for the root) */
  path: string;
  files: number;
  lines: number;
  children?: OverviewTreeNode[];
  /** subdirectories not shown */
  moreDirs?: number;
}

export interface LanguageShare {
  language: string;
  files: number;
  lines: number;
  /** share of all indexed lines, percent (one decimal) */
  percent: number;
}

export interface ProjectOverview {
  files: number;
  lines: number;
  languages: LanguageShare[];
  entryPoints: string[];
  manifests: Manifest[];
  tree: OverviewTreeNode;
}

const TREE_DEPTH = 3;
const CHILDREN_SHOWN = 8;
const ENTRY_POINTS_MAX = 12;

const CONVENTIONAL_ENTRY =
  /(^|\/)(index|main|app|server|cli)\.(ts|tsx|js|mjs|cjs|py|go|rs|rb|php|java|cs|cpp|c)$|(^|\/)(__main__|manage|wsgi|asgi)\.py$|(^|\/)Program\.cs$|(^|\/)app\/(page|layout)\.(tsx|jsx|ts|js)$/;

interface MutableNode {
  name: string;
  path: string;
  files: number;
  lines: number;
  dirs: Map<string, MutableNode>;
}

function buildTree(files: readonly FileRecord[]): MutableNode {
  const root: MutableNode = { name: ".", path: "", files: 0, lines: 0, dirs: new Map() };
  for (const file of files) {
    const parts = file.path.split("/");
    let node = root;
    node.files++;
    node.lines += file.lines;
    for (const part of parts.slice(0, -1)) {
      let child = node.dirs.get(part);
      if (child === undefined) {
        child = {
          name: part,
          path: node.path === "" ? part : `${node.path}/${part}`,
          files: 0,
          lines: 0,
          dirs: new Map(),
        };
        node.dirs.set(part, child);
      }
      child.files++;
      child.lines += file.lines;
      node = child;
    }
  }
  return root;
}

function summarise(node: MutableNode, depth: number): OverviewTreeNode {
  const out: OverviewTreeNode = {
    name: node.name,
    path: node.path,
    files: node.files,
    lines: node.lines,
  };
  if (depth >= TREE_DEPTH || node.dirs.size === 0) {
    if (node.dirs.size > 0) out.moreDirs = node.dirs.size;
    return out;
  }
  const dirs = [...node.dirs.values()].sort(
    (a, b) => b.files - a.files || a.name.localeCompare(b.name),
  );
  out.children = dirs.slice(0, CHILDREN_SHOWN).map((dir) => summarise(dir, depth + 1));
  if (dirs.length > CHILDREN_SHOWN) out.moreDirs = dirs.length - CHILDREN_SHOWN;
  return out;
}

export async function projectOverview(
  root: string,
  files: readonly FileRecord[],
): Promise<ProjectOverview> {
  const byLanguage = new Map<string, { files: number; lines: number }>();
  let lines = 0;
  for (const file of files) {
    const name = languageSpec(file.language).name;
    const entry = byLanguage.get(name) ?? { files: 0, lines: 0 };
    entry.files++;
    entry.lines += file.lines;
    byLanguage.set(name, entry);
    lines += file.lines;
  }
  const languages = [...byLanguage]
    .map(([language, count]) => ({
      language,
      ...count,
      percent: lines === 0 ? 0 : Math.round((count.lines / lines) * 1000) / 10,
    }))
    .sort((a, b) => b.lines - a.lines);

  const tree = buildTree(files);
  const manifestDirs = [""];
  for (const dir of tree.dirs.values()) {
    manifestDirs.push(dir.path);
    for (const sub of dir.dirs.values()) manifestDirs.push(sub.path);
  }
  const manifests = await readManifests(root, manifestDirs.slice(0, 80));

  const known = new Set(files.map((file) => file.path));
  const entryPoints: string[] = [];
  const addEntry = (entry: string): void => {
    if (!entryPoints.includes(entry) && entryPoints.length < ENTRY_POINTS_MAX)
      entryPoints.push(entry);
  };
  for (const manifest of manifests) {
    for (const entry of manifest.entryPoints) addEntry(entry);
  }
  const byDepth = [...files].sort(
    (a, b) => a.path.split("/").length - b.path.split("/").length || a.path.localeCompare(b.path),
  );
  for (const file of byDepth) {
    if (file.path.split("/").length <= 3 && CONVENTIONAL_ENTRY.test(file.path)) addEntry(file.path);
  }
  for (const file of byDepth) {
    if (file.defs.some((def) => def.name === "main" && def.kind === "function"))
      addEntry(file.path);
  }
  return {
    files: files.length,
    lines,
    languages,
    // declared entries that do not exist (a build output) are kept: the model learns the intent
    entryPoints: entryPoints.sort((a, b) => Number(known.has(b)) - Number(known.has(a))),
    manifests,
    tree: summarise(tree, 0),
  };
}

function treeLines(node: OverviewTreeNode, indent: string, out: string[]): void {
  for (const child of node.children ?? []) {
    const more =
      child.moreDirs !== undefined && child.children === undefined
        ? `, ${child.moreDirs} dirs`
        : "";
    out.push(
      `${indent}${child.name}/  (${plural(child.files, "file")}, ${plural(child.lines, "line")}${more})`,
    );
    treeLines(child, `${indent}  `, out);
  }
  if (node.moreDirs !== undefined && node.children !== undefined) {
    out.push(`${indent}… ${node.moreDirs} more director${node.moreDirs === 1 ? "y" : "ies"}`);
  }
}

const DEPENDENCIES_SHOWN = 25;

/** The overview as compact text for a model. */
export function overviewText(overview: ProjectOverview): string {
  const out: string[] = [];
  out.push(
    `Size: ${plural(overview.files, "file")}, ${plural(overview.lines, "line")} (indexed; dependencies, build output and ignored files excluded).`,
  );
  out.push(
    `Languages: ${overview.languages
      .slice(0, 10)
      .map((l) => `${l.language} ${l.percent}% (${plural(l.files, "file")})`)
      .join(", ")}`,
  );
  out.push(
    `Entry points: ${overview.entryPoints.length > 0 ? overview.entryPoints.join(", ") : "none found"}`,
  );
  if (overview.manifests.length > 0) {
    out.push("Dependencies:");
    for (const manifest of overview.manifests) {
      const list = (names: string[]): string =>
        names.length <= DEPENDENCIES_SHOWN
          ? names.join(", ")
          : `${names.slice(0, DEPENDENCIES_SHOWN).join(", ")} … ${names.length - DEPENDENCIES_SHOWN} more`;
      const dev =
        manifest.devDependencies.length > 0 ? `; dev: ${list(manifest.devDependencies)}` : "";
      out.push(
        `  ${manifest.path} (${manifest.ecosystem}): ${list(manifest.dependencies) || "none"}${dev}`,
      );
    }
  } else {
    out.push("Dependencies: no manifest found");
  }
  out.push("Structure:");
  const tree: string[] = [];
  treeLines(overview.tree, "  ", tree);
  const rootFiles =
    overview.tree.files - (overview.tree.children ?? []).reduce((n, c) => n + c.files, 0);
  out.push(...tree);
  if (rootFiles > 0) out.push(`  (${plural(rootFiles, "file")} at the top level)`);
  return out.join("\n");
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
