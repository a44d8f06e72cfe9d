import { createHash } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../model/private-files.js";

// Files kept per workspace under the data directory (the codebase index, fold memories): named
// for the workspace folder and a hash of its path, written whole or not at all, readable by the
// owner only (model/private-files.ts).

/** A workspace's own file in `dir`: `<folder name>-<sha1 of its path>.<extension>`. */
export function workspaceFile(dir: string, root: string, extension: string): string {
  const key = createHash("sha1").update(root).digest("hex").slice(0, 16);
  return path.join(dir, `${path.basename(root) || "root"}-${key}.${extension}`);
}

/**
 * Writes `data` to `file` whole or not at all: a temporary file beside it, flushed to disk, then
 * renamed over it, so a crash leaves the old file or the new one, never half of one.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w", PRIVATE_FILE_MODE);
  try {
    if (typeof data === "string") writeSync(fd, data);
    else writeSync(fd, data, 0, data.length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}
