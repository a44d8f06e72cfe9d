import type { DefinitionKind, LanguageId } from "./languages.js";

// What the index keeps of one file. Plain data: made in the indexing worker, sent to the main
// thread by structured clone and persisted (index-store.ts), so a restart re-reads only what
// changed. Compact on purpose: a large tree has about a million (term, file) pairs, so a record
// names its terms and identifiers by number (ids into one string table the indexing side keeps and
// sends along, see StringTable) and holds numbers in typed arrays: one copy each when cloned or
// stored instead of one object per entry, and postings built without hashing a string.

export interface Definition {
  name: string;
  kind: DefinitionKind;
  /** name of the enclosing class, interface, impl, namespace or function, if any */
  container?: string;
  /** the declaration up to its body, whitespace collapsed, at most SIGNATURE_MAX chars */
  signature: string;
  /** 1-based */
  line: number;
  endLine: number;
}

interface FileInfo {
  /** `/`-separated, relative to the workspace root */
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the content: a file touched but not changed is not parsed again */
  hash: string;
  language: LanguageId;
  lines: number;
  defs: Definition[];
  /**
   * identifier i's 1-based lines (ascending, one entry per line) are
   * identLines[identStarts[i] … identStarts[i + 1]); identStarts has one entry more than idents
   */
  identStarts: Uint32Array;
  identLines: Uint32Array;
  /** how often term i occurs */
  termCounts: Uint32Array;
  /** number of terms in the file (BM25's document length) */
  termCount: number;
}

/** One file as analysed (file-analysis.ts): its words as text. */
export interface AnalysedFile extends FileInfo {
  /** distinct identifiers occurring in code, "\n"-joined, in the order of identStarts */
  idents: string;
  /** distinct search terms, "\n"-joined (identifiers split, comments and strings included) */
  terms: string;
}

/** One file as the index keeps it: its words as ids into the string table. */
export interface FileRecord extends FileInfo {
  identIds: Uint32Array;
  termIds: Uint32Array;
}

/** A file the walk found, with what decides whether it must be read again. */
export interface FileStat {
  path: string;
  size: number;
  mtimeMs: number;
}

export const SIGNATURE_MAX = 160;

/** The parts of a "\n"-joined list ("" is the empty list). */
export function splitList(joined: string): string[] {
  return joined === "" ? [] : joined.split("\n");
}

/** The lines identifier number `i` of the record occurs on. */
export function identLinesAt(record: FileRecord, i: number): Uint32Array {
  return record.identLines.subarray(record.identStarts[i], record.identStarts[i + 1]);
}

/**
 * Strings (terms and identifiers) by number, append-only while the index runs. The indexing side
 * assigns the ids; each of its answers carries the strings added since the last, and the main
 * thread appends them to its own copy, so both name every word by the same id.
 */
export class StringTable {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  get size(): number {
    return this.strings.length;
  }

  idOf(s: string): number | undefined {
    return this.ids.get(s);
  }

  intern(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  internAll(joined: string): Uint32Array {
    const parts = splitList(joined);
    const out = new Uint32Array(parts.length);
    for (let i = 0; i < parts.length; i++) out[i] = this.intern(parts[i] as string);
    return out;
  }

  /** Appends strings another table assigned from id `from` on. */
  append(from: number, added: readonly string[]): void {
    if (from !== this.strings.length) {
      throw new Error(`string table out of step: ${from} given, ${this.strings.length} held`);
    }
    for (const s of added) {
      this.ids.set(s, this.strings.length);
      this.strings.push(s);
    }
  }

  /** The record of an analysed file, its words interned. */
  record(file: AnalysedFile): FileRecord {
    const { idents, terms, ...info } = file;
    return { ...info, identIds: this.internAll(idents), termIds: this.internAll(terms) };
  }
}
