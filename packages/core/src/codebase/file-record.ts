import type { DefinitionKind, LanguageId } from "./languages.js";

// What the index keeps of one file. Plain data: made in the indexing worker, sent to the main
// thread by structured clone and persisted (index-store.ts), so a restart re-reads only what
// changed. Compact on purpose: a large tree has about a million (term, file) pairs, so terms and
// identifiers are one "\n"-joined string each and their numbers typed arrays (one copy each when
// cloned or stored, instead of one object per entry).

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

export interface FileRecord {
  /** `/`-separated, relative to the workspace root */
  path: string;
  size: number;
  mtimeMs: number;
  /** sha1 of the content: a file touched but not changed is not parsed again */
  hash: string;
  language: LanguageId;
  lines: number;
  defs: Definition[];
  /** distinct identifiers occurring in code, "\n"-joined (see identLines) */
  idents: string;
  /**
   * identifier i's 1-based lines (ascending, one entry per line) are
   * identLines[identStarts[i] … identStarts[i + 1]); identStarts has one entry more than idents
   */
  identStarts: Uint32Array;
  identLines: Uint32Array;
  /** distinct search terms, "\n"-joined (identifiers split, comments and strings included) */
  terms: string;
  /** how often term i occurs */
  termCounts: Uint32Array;
  /** number of terms in the file (BM25's document length) */
  termCount: number;
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
