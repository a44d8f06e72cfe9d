import { createHash } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { FileRecord } from "./file-record.js";

// The persisted index of one workspace: <dir>/<sha1 of the workspace path>.json. Written whole,
// atomically (temporary file + rename); a missing, unreadable or older-format file reads as
// empty, so the next scan simply rebuilds it.

const FORMAT = 1;

interface Stored {
  format: number;
  root: string;
  files: FileRecord[];
}

/** A workspace's own file in `dir`: `<folder name>-<sha1 of its path>.json`. */
export function workspaceFile(dir: string, root: string): string {
  const key = createHash("sha1").update(root).digest("hex").slice(0, 16);
  return path.join(dir, `${path.basename(root) || "root"}-${key}.json`);
}

/**
 * Writes `text` to `file` whole or not at all: a temporary file beside it, flushed to disk, then
 * renamed over it, so a crash leaves the old file or the new one, never half of one.
 */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

export class IndexStore {
  readonly file: string;
  constructor(
    dir: string,
    private readonly root: string,
  ) {
    this.file = workspaceFile(dir, root);
  }

  load(): FileRecord[] {
    try {
      const stored = JSON.parse(readFileSync(this.file, "utf8")) as Stored;
      if (stored.format !== FORMAT || stored.root !== this.root || !Array.isArray(stored.files)) {
        return [];
      }
      return stored.files;
    } catch {
      return [];
    }
  }

  save(files: Iterable<FileRecord>): void {
    const stored: Stored = { format: FORMAT, root: this.root, files: [...files] };
    writeFileAtomic(this.file, JSON.stringify(stored));
  }
}
