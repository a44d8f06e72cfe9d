import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { DEFAULT_EXCLUDED_DIRS } from "../tools/builtin/workspace-files.js";
import type { FileStat } from "./file-record.js";
import { languageOf } from "./languages.js";

// Which files of a workspace the index reads: those of a known language, not ignored by a
// .gitignore (at any depth, each applying below its own directory), outside dependency and build
// directories, and at most `maxFileBytes` large. Synchronous: it runs in the indexing worker.

/** Directories never indexed, whatever .gitignore says (the list_files ones and more builds). */
export const INDEX_EXCLUDED_DIRS: readonly string[] = Object.freeze([
  ...DEFAULT_EXCLUDED_DIRS,
  "build",
  "out",
  "coverage",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".gradle",
  ".idea",
  ".vscode",
  "bower_components",
]);

/** Files above this size are skipped as generated or data (1 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

interface Rules {
  /** directory the rules apply below, relative to the root ("" for the root) */
  base: string;
  matcher: Ignore;
}

export interface WalkOptions {
  maxFileBytes?: number;
  /** absolute directories never entered (Arbor's data directory) */
  excludedDirs?: readonly string[];
}

/** Whether `absolute` is one of `dirs` or lies below one. */
function inExcluded(dirs: readonly string[], absolute: string): boolean {
  return dirs.some((dir) => {
    const rel = path.relative(dir, absolute);
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  });
}

export interface WalkResult {
  files: FileStat[];
  /** files skipped for their size */
  tooLarge: number;
}

function rulesIn(root: string, rel: string): Rules | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(root, rel, ".gitignore"), "utf8");
  } catch {
    return undefined;
  }
  return { base: rel, matcher: ignore().add(text) };
}

function ignoredBy(stack: readonly Rules[], rel: string, isDir: boolean): boolean {
  for (const rules of stack) {
    const local = rules.base === "" ? rel : rel.slice(rules.base.length + 1);
    if (rules.matcher.ignores(isDir ? `${local}/` : local)) return true;
  }
  return false;
}

/** The gitignore rules that apply to `rel` (its ancestors' .gitignore files), for single paths. */
export class IgnoreRules {
  private readonly cache = new Map<string, Rules | undefined>();
  constructor(
    private readonly root: string,
    private readonly excludedDirs: readonly string[] = [],
  ) {}

  ignores(rel: string): boolean {
    if (inExcluded(this.excludedDirs, path.join(this.root, rel))) return true;
    const parts = rel.split("/");
    const stack: Rules[] = [];
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (i > 0 && INDEX_EXCLUDED_DIRS.includes(parts[i - 1] as string)) return true;
      let rules = this.cache.get(dir);
      if (!this.cache.has(dir)) {
        rules = rulesIn(this.root, dir);
        this.cache.set(dir, rules);
      }
      if (rules !== undefined) stack.push(rules);
      const sub = parts.slice(0, i + 1).join("/");
      if (ignoredBy(stack, sub, i < parts.length - 1)) return true;
    }
    return false;
  }
}

/** Every indexable file below `root`, in name order. */
export function walkWorkspace(root: string, options: WalkOptions = {}): WalkResult {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const excluded = new Set(INDEX_EXCLUDED_DIRS);
  const excludedDirs = options.excludedDirs ?? [];
  const files: FileStat[] = [];
  let tooLarge = 0;
  const visit = (rel: string, inherited: readonly Rules[]): void => {
    const own = rulesIn(root, rel);
    const stack = own === undefined ? inherited : [...inherited, own];
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (excluded.has(entry.name) || ignoredBy(stack, childRel, true)) continue;
        if (inExcluded(excludedDirs, path.join(root, childRel))) continue;
        visit(childRel, stack);
      } else if (entry.isFile()) {
        if (languageOf(entry.name) === undefined || ignoredBy(stack, childRel, false)) continue;
        let stat: import("node:fs").Stats;
        try {
          stat = statSync(path.join(root, childRel));
        } catch {
          continue;
        }
        if (stat.size > maxBytes) {
          tooLarge++;
          continue;
        }
        files.push({ path: childRel, size: stat.size, mtimeMs: stat.mtimeMs });
      }
    }
  };
  visit("", []);
  return { files, tooLarge };
}

/** Minified or generated-looking text: not worth parsing (very long lines). */
export function looksGenerated(content: string): boolean {
  if (content.length < 20_000) return false;
  let lines = 1;
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1)) lines++;
  return content.length / lines > 300;
}

/** Content with a NUL byte in its first 8 KiB is binary. */
export function looksBinary(content: Buffer): boolean {
  return content.subarray(0, 8192).includes(0);
}
