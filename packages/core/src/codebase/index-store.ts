import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type FileRecord, splitList } from "./file-record.js";

// The persisted index of one workspace: <dir>/<name>-<sha1 of the workspace path>.idx, one file
// written whole, atomically (temporary file + rename). A missing, unreadable or older-format file
// reads as empty, so the next scan simply rebuilds it.
//
// Layout (little-endian): "ARBI", u32 format, u32 header bytes, the header (UTF-8 JSON: the root,
// the string table "\n"-joined, and every record without its typed arrays, each with the offset
// of its numbers), zero padding to a multiple of 4, then one u32 array holding each record's
// termIds, termCounts, identIds, identStarts and identLines back to back. Loading is one
// JSON.parse of the header and views into that array: no per-entry objects, which is what keeps a
// warm restart of a large tree under a second.

const MAGIC = 0x49425241; // "ARBI"
const FORMAT = 3;

type StoredRecord = Omit<
  FileRecord,
  "termIds" | "termCounts" | "identIds" | "identStarts" | "identLines"
> & {
  /** offset (in u32s) of termIds; the other arrays follow */
  at: number;
  terms_n: number;
  idents_n: number;
  lines_n: number;
};

interface Header {
  root: string;
  strings: string;
  files: StoredRecord[];
}

export interface StoredIndex {
  strings: string[];
  files: FileRecord[];
}

export class IndexStore {
  readonly file: string;
  constructor(
    dir: string,
    private readonly root: string,
  ) {
    const key = createHash("sha1").update(root).digest("hex").slice(0, 16);
    this.file = path.join(dir, `${path.basename(root) || "root"}-${key}.idx`);
  }

  load(): StoredIndex | undefined {
    try {
      const buffer = readFileSync(this.file);
      if (buffer.readUInt32LE(0) !== MAGIC || buffer.readUInt32LE(4) !== FORMAT) return undefined;
      const headerBytes = buffer.readUInt32LE(8);
      const header = JSON.parse(buffer.toString("utf8", 12, 12 + headerBytes)) as Header;
      if (header.root !== this.root || !Array.isArray(header.files)) return undefined;
      const dataStart = align4(12 + headerBytes);
      // a copy, aligned and owned: the records' views keep it alive, not the file's buffer
      const numbers = new Uint32Array(
        buffer.buffer.slice(buffer.byteOffset + dataStart, buffer.byteOffset + buffer.length),
      );
      const files = header.files.map((stored): FileRecord => {
        const { at, terms_n, idents_n, lines_n, ...rest } = stored;
        const countsAt = at + terms_n;
        const identAt = countsAt + terms_n;
        const startsAt = identAt + idents_n;
        const linesAt = startsAt + idents_n + 1;
        return {
          ...rest,
          termIds: numbers.subarray(at, countsAt),
          termCounts: numbers.subarray(countsAt, identAt),
          identIds: numbers.subarray(identAt, startsAt),
          identStarts: numbers.subarray(startsAt, linesAt),
          identLines: numbers.subarray(linesAt, linesAt + lines_n),
        };
      });
      return { strings: splitList(header.strings), files };
    } catch {
      return undefined;
    }
  }

  save(strings: readonly string[], files: Iterable<FileRecord>): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const records = [...files];
    let total = 0;
    for (const r of records) {
      total +=
        2 * r.termIds.length + r.identIds.length + r.identStarts.length + r.identLines.length;
    }
    const numbers = new Uint32Array(total);
    const stored: StoredRecord[] = [];
    let at = 0;
    for (const r of records) {
      const { termIds, termCounts, identIds, identStarts, identLines, ...rest } = r;
      stored.push({
        ...rest,
        at,
        terms_n: termIds.length,
        idents_n: identIds.length,
        lines_n: identLines.length,
      });
      for (const array of [termIds, termCounts, identIds, identStarts, identLines]) {
        numbers.set(array, at);
        at += array.length;
      }
    }
    const header = Buffer.from(
      JSON.stringify({
        root: this.root,
        strings: strings.join("\n"),
        files: stored,
      } satisfies Header),
    );
    const prefix = Buffer.alloc(align4(12 + header.length));
    prefix.writeUInt32LE(MAGIC, 0);
    prefix.writeUInt32LE(FORMAT, 4);
    prefix.writeUInt32LE(header.length, 8);
    header.copy(prefix, 12);
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.concat([prefix, Buffer.from(numbers.buffer)]));
    renameSync(temporary, this.file);
    // the JSON store of format 1, replaced by this one
    rmSync(this.file.replace(/\.idx$/, ".json"), { force: true });
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
