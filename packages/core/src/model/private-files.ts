import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";

// Arbor's data directory (the database, the install token, tool-process records, the codebase
// index, fold memories) is readable by its owner only: directories 0700, files 0600. Modes are
// given explicitly where a file or folder is made (the process umask can only take bits away) and
// set with chmod where another library makes the file (SQLite) or where it already existed.

/** The mode of every folder under the data directory. */
export const PRIVATE_DIR_MODE = 0o700;
/** The mode of every file under the data directory. */
export const PRIVATE_FILE_MODE = 0o600;

/** Whether the process owns `uid` (root owns everything it may chmod; Windows has no uids). */
function owned(uid: number): boolean {
  const own = process.getuid?.();
  return own === undefined || own === 0 || own === uid;
}

/**
 * Makes `dir` (and missing parents) and sets it to 0700. Parents that existed keep their mode:
 * only the folder itself is ours to tighten.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stat = lstatSync(dir);
  if (stat.isDirectory() && owned(stat.uid) && (stat.mode & 0o777) !== PRIVATE_DIR_MODE) {
    chmodSync(dir, PRIVATE_DIR_MODE);
  }
}

/** Sets `file` to 0600 when it exists, is a regular file and ours; false when there is none. */
export function tightenPrivateFile(file: string): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  if (stat.isFile() && owned(stat.uid) && (stat.mode & 0o777) !== PRIVATE_FILE_MODE) {
    chmodSync(file, PRIVATE_FILE_MODE);
  }
  return stat.isFile();
}

/** What securePrivateTree did: modes changed, and the paths it could not change (with why). */
export interface SecuredTree {
  changed: number;
  failed: Array<{ path: string; error: string }>;
}

/**
 * `dir` made or tightened to 0700, and everything we own under it to 0700 (folders) or 0600
 * (files), as a data directory left by an older version (0755 / 0644) is found at start.
 * Symbolic links are neither followed nor changed. Only making `dir` throws; a mode that cannot
 * be changed below it (a file system without modes) is reported, not thrown.
 */
export function securePrivateTree(dir: string): SecuredTree {
  const result: SecuredTree = { changed: 0, failed: [] };
  const failed = (p: string, error: unknown) =>
    result.failed.push({ path: p, error: error instanceof Error ? error.message : String(error) });
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const walk = (folder: string): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      failed(folder, error);
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) continue;
      const want = entry.isDirectory() ? PRIVATE_DIR_MODE : entry.isFile() ? PRIVATE_FILE_MODE : 0;
      if (want === 0) continue;
      if (tighten(full, want) && entry.isDirectory()) walk(full);
    }
  };
  /** false when `target` is not ours or could not be read or changed */
  const tighten = (target: string, want: number): boolean => {
    try {
      const stat = lstatSync(target);
      if (!owned(stat.uid)) return false;
      if ((stat.mode & 0o777) !== want) {
        chmodSync(target, want);
        result.changed++;
      }
      return true;
    } catch (error) {
      failed(target, error);
      return false;
    }
  };
  if (tighten(dir, PRIVATE_DIR_MODE)) walk(dir);
  return result;
}
