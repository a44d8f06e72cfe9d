import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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

export class IndexStore {
  readonly file: string;
  constructor(
    dir: string,
    private readonly root: string,
  ) {
    const key = createHash("sha1").update(root).digest("hex").slice(0, 16);
    this.file = path.join(dir, `${path.basename(root) || "root"}-${key}.json`);
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
    mkdirSync(path.dirname(this.file), { recursive: true });
    const stored: Stored = { format: FORMAT, root: this.root, files: [...files] };
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(stored));
    renameSync(temporary, this.file);
  }
}
