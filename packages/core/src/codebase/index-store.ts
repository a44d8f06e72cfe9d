import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { PRIVATE_FILE_MODE } from "../model/private-files.js";
import { type FileRecord, splitList } from "./file-record.js";
import { workspaceFile, writeFileAtomic } from "./workspace-file.js";

// The persisted index of one workspace: <dir>/<name>-<sha1 of the workspace path>.idx, one file
// holding a base snapshot followed by deltas appended as files change, so a one-file change costs
// a write of that file's record, not of the whole index. When the deltas grow past half the base
// (or at the next open), the whole index is written anew, atomically (temporary file + rename).
// A missing, unreadable or older-format file reads as empty, so the next scan rebuilds it; a
// delta cut short (a crash mid-append) ends the reading there, and the files it held are seen as
// changed (size or mtime) at the next open.
//
// A chunk (little-endian): "ARBI", u32 format, u32 header bytes, u32 count of numbers, the header
// (UTF-8 JSON: the root, the string-table entries the chunk adds from id `from` on "\n"-joined,
// the paths it removes and its records without their typed arrays, each with the offset of its
// numbers), zero padding to a multiple of 4, then the numbers: each record's termIds, termCounts,
// identIds, identStarts and identLines back to back. Loading is one JSON.parse per chunk and views
// into its numbers: no per-entry objects, which is what keeps a warm restart of a large tree
// under a second.

const MAGIC = 0x49425241; // "ARBI"
const FORMAT = 4;
const PREFIX_BYTES = 16;
/** deltas are compacted into a new base past this share of the base's size (and 1 MiB) */
const COMPACT_RATIO = 0.5;
const COMPACT_MIN_BYTES = 1024 * 1024;

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

interface ChunkHeader {
  root: string;
  /** id of the first string this chunk adds */
  from: number;
  strings: string;
  removed: string[];
  files: StoredRecord[];
  /** the binary or generated files skipped as of this chunk (the last chunk's list holds) */
  skipped: SkippedFile[];
}

/** A file skipped as binary or generated, with the size and mtime it had. */
export type SkippedFile = readonly [path: string, size: number, mtimeMs: number];

export interface StoredIndex {
  strings: string[];
  files: FileRecord[];
  skipped: SkippedFile[];
}

/** What changed since the last write, for a delta. */
export interface StoreDelta {
  /** id of the first string added since */
  from: number;
  strings: readonly string[];
  removed: readonly string[];
  /** new, changed and touched records (whole) */
  files: readonly FileRecord[];
  skipped: readonly SkippedFile[];
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function encodeChunk(
  root: string,
  from: number,
  strings: readonly string[],
  removed: readonly string[],
  files: readonly FileRecord[],
  skipped: readonly SkippedFile[],
): Buffer {
  let total = 0;
  for (const r of files) {
    total += 2 * r.termIds.length + r.identIds.length + r.identStarts.length + r.identLines.length;
  }
  const numbers = new Uint32Array(total);
  const stored: StoredRecord[] = [];
  let at = 0;
  for (const r of files) {
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
      root,
      from,
      strings: strings.join("\n"),
      removed: [...removed],
      files: stored,
      skipped: [...skipped],
    } satisfies ChunkHeader),
  );
  const prefix = Buffer.alloc(align4(PREFIX_BYTES + header.length));
  prefix.writeUInt32LE(MAGIC, 0);
  prefix.writeUInt32LE(FORMAT, 4);
  prefix.writeUInt32LE(header.length, 8);
  prefix.writeUInt32LE(total, 12);
  header.copy(prefix, PREFIX_BYTES);
  return Buffer.concat([
    prefix,
    Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength),
  ]);
}

/** The chunk at `offset`, or undefined when there is none whole there. */
function decodeChunk(
  buffer: Buffer,
  offset: number,
): { header: ChunkHeader; files: FileRecord[]; end: number } | undefined {
  if (buffer.length < offset + PREFIX_BYTES) return undefined;
  if (buffer.readUInt32LE(offset) !== MAGIC || buffer.readUInt32LE(offset + 4) !== FORMAT) {
    return undefined;
  }
  const headerBytes = buffer.readUInt32LE(offset + 8);
  const count = buffer.readUInt32LE(offset + 12);
  const dataStart = offset + align4(PREFIX_BYTES + headerBytes);
  const end = dataStart + count * 4;
  if (end > buffer.length) return undefined;
  const header = JSON.parse(
    buffer.toString("utf8", offset + PREFIX_BYTES, offset + PREFIX_BYTES + headerBytes),
  ) as ChunkHeader;
  // a copy, aligned and owned: the records' views keep it alive, not the file's buffer
  const numbers = new Uint32Array(
    buffer.buffer.slice(buffer.byteOffset + dataStart, buffer.byteOffset + end),
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
  return { header, files, end };
}

export class IndexStore {
  readonly file: string;
  /** bytes of the base snapshot and of the deltas after it, as last read or written */
  private baseBytes = 0;
  private deltaBytes = 0;
  private valid = false;

  constructor(
    dir: string,
    private readonly root: string,
  ) {
    this.file = workspaceFile(dir, root, "idx");
  }

  load(): StoredIndex | undefined {
    this.valid = false;
    let buffer: Buffer;
    try {
      buffer = readFileSync(this.file);
    } catch {
      return undefined;
    }
    try {
      const strings: string[] = [];
      const files = new Map<string, FileRecord>();
      let skipped: SkippedFile[] = [];
      let offset = 0;
      for (;;) {
        const chunk = decodeChunk(buffer, offset);
        if (chunk === undefined || chunk.header.root !== this.root) break;
        if (chunk.header.from !== strings.length) break;
        for (const s of splitList(chunk.header.strings)) strings.push(s);
        for (const p of chunk.header.removed) files.delete(p);
        for (const r of chunk.files) files.set(r.path, r);
        skipped = chunk.header.skipped ?? [];
        if (offset === 0) this.baseBytes = chunk.end;
        offset = chunk.end;
      }
      if (offset === 0) return undefined;
      this.deltaBytes = offset - this.baseBytes;
      // anything after the last whole chunk is cut off, so the next delta follows a whole one
      if (offset < buffer.length) {
        writeFileSync(this.file, buffer.subarray(0, offset), { mode: PRIVATE_FILE_MODE });
      }
      this.valid = true;
      return { strings, files: [...files.values()], skipped };
    } catch {
      return undefined;
    }
  }

  /** True when the next write should be the whole index (no base yet, or deltas grown large). */
  get wantsWhole(): boolean {
    return (
      !this.valid ||
      (this.deltaBytes > COMPACT_MIN_BYTES && this.deltaBytes > this.baseBytes * COMPACT_RATIO)
    );
  }

  /** Writes the whole index as a new base. */
  save(
    strings: readonly string[],
    files: Iterable<FileRecord>,
    skipped: readonly SkippedFile[] = [],
  ): void {
    const chunk = encodeChunk(this.root, 0, strings, [], [...files], skipped);
    writeFileAtomic(this.file, chunk);
    this.baseBytes = chunk.length;
    this.deltaBytes = 0;
    this.valid = true;
    // the JSON store of format 1, replaced by this one
    rmSync(this.file.replace(/\.idx$/, ".json"), { force: true });
  }

  /** Appends what changed since the last write (the base must exist: see wantsWhole). */
  append(delta: StoreDelta): void {
    const chunk = encodeChunk(
      this.root,
      delta.from,
      delta.strings,
      delta.removed,
      delta.files,
      delta.skipped,
    );
    appendFileSync(this.file, chunk, { mode: PRIVATE_FILE_MODE });
    this.deltaBytes += chunk.length;
  }

  /** Size of the file on disk (for tests and benches). */
  bytes(): number {
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }
}
