import { opendir } from "node:fs/promises";
import path from "node:path";
import { refusedDirOf, Workspace } from "../workspace.js";

// The directory walk shared by the list_files tool and the web file picker's listing
// (`listWorkspaceFiles`, served through Session.listFiles): one walker, so both skip the
// same directories and order entries the same way. A refused directory (Arbor's data directory:
// workspace.ts) is never entered nor shown.

/** Directories skipped by list_files, search and the file picker (by name, at any depth). */
export const DEFAULT_EXCLUDED_DIRS: readonly string[] = Object.freeze([
  ".git",
  "node_modules",
  "target",
  "dist",
  ".next",
  // build and tool caches of the JS ecosystem: large, generated, never what the user means
  ".turbo",
  ".cache",
]);

export interface TreeEntry {
  name: string;
  /** absolute path */
  full: string;
  isDir: boolean;
  /** depth of the directory holding the entry (the start directory is 1) */
  depth: number;
}

export interface TreeVisitor {
  /** directory names never entered */
  excluded: ReadonlySet<string>;
  /** asked before each directory is read; false ends the walk (a deadline, a cancellation) */
  proceed(): boolean;
  /** each entry in name order: "descend" enters a directory, "stop" ends the walk */
  onEntry(entry: TreeEntry): "descend" | "skip" | "stop";
}

/** Walks `start` depth-first in name order. Unreadable directories are counted and skipped. */
export async function walkTree(
  start: string,
  visitor: TreeVisitor,
): Promise<{ unreadable: number }> {
  let unreadable = 0;
  let stopped = false;
  const visit = async (dir: string, depth: number): Promise<void> => {
    if (stopped || !visitor.proceed()) {
      stopped = true;
      return;
    }
    const names: Array<{ name: string; isDir: boolean }> = [];
    try {
      for await (const entry of await opendir(dir)) {
        names.push({ name: entry.name, isDir: entry.isDirectory() });
      }
    } catch {
      unreadable++;
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { name, isDir } of names) {
      if (stopped) return;
      if (isDir && visitor.excluded.has(name)) continue;
      const full = path.join(dir, name);
      if (refusedDirOf(full) !== undefined) continue;
      const next = visitor.onEntry({ name, full, isDir, depth });
      if (next === "stop") {
        stopped = true;
        return;
      }
      if (next === "descend" && isDir) await visit(full, depth + 1);
    }
  };
  await visit(start, 1);
  return { unreadable };
}

export interface ListWorkspaceFilesOptions {
  /** case-insensitive substring of the relative path; empty or absent matches every file */
  query?: string | undefined;
  /** files returned at most (200) */
  limit?: number | undefined;
  /** the walk stops after this long (5 000 ms): a picker must answer quickly */
  timeoutMs?: number;
}

export const DEFAULT_FILE_LIST_LIMIT = 200;

/**
 * The workspace's files (not directories), as `/`-separated paths relative to its root, in walk
 * order, skipping DEFAULT_EXCLUDED_DIRS. For the file picker; the model lists through list_files.
 */
export async function listWorkspaceFiles(
  workspaceRoot: string,
  options: ListWorkspaceFilesOptions = {},
): Promise<string[]> {
  const limit = options.limit ?? DEFAULT_FILE_LIST_LIMIT;
  if (limit <= 0) return [];
  const query = (options.query ?? "").toLowerCase();
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  // relative to the real root, like list_files, so a symlinked workspace gives the same paths
  const realRoot = await new Workspace(workspaceRoot).getRealRoot();
  const files: string[] = [];
  await walkTree(realRoot, {
    excluded: new Set(DEFAULT_EXCLUDED_DIRS),
    proceed: () => Date.now() < deadline,
    onEntry: (entry) => {
      if (entry.isDir) return "descend";
      const rel = path.relative(realRoot, entry.full).split(path.sep).join("/");
      if (query !== "" && !rel.toLowerCase().includes(query)) return "skip";
      files.push(rel);
      return files.length >= limit ? "stop" : "skip";
    },
  });
  return files;
}
