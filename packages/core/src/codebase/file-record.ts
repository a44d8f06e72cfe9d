import type { DefinitionKind, LanguageId } from "./languages.js";

// What the index keeps of one file. Plain data: made in the indexing worker, sent to the main
// thread by structured clone and persisted as JSON, so a restart re-reads only what changed.

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
  /** identifier → the 1-based lines it occurs on (ascending, one entry per line) */
  idents: Array<[string, number[]]>;
  /** search term → how often it occurs (identifiers split, comments and strings included) */
  terms: Array<[string, number]>;
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
