import { statSync } from "node:fs";
import path from "node:path";
import { type AnalyseItem, analyseInWorkers, PARALLEL_MIN_FILES } from "./analysis-pool.js";
import type { Grammars } from "./file-analysis.js";
import { type Outcome, readOne } from "./file-reader.js";
import type { AnalysedFile, FileRecord, FileStat } from "./file-record.js";
import { languageOf } from "./languages.js";
import { DEFAULT_MAX_FILE_BYTES, IgnoreRules, walkWorkspace } from "./walk.js";

// The indexing work proper: walk, compare with what the index knows (size + mtime, then content
// hash), read and parse what changed. Runs in the worker thread (index-worker.ts); plain
// functions so a test can run them in-process too.

/** What the index knows of a file: enough to tell whether it changed. */
export type KnownFile = [path: string, size: number, mtimeMs: number, hash: string];

export interface IndexChanges<R = FileRecord> {
  /** new or changed files, parsed */
  records: R[];
  /** strings the records name that the string table did not hold before (ids from `from` on) */
  strings?: { from: number; added: string[] };
  /** files whose content is unchanged but whose size/mtime moved: [path, size, mtimeMs] */
  touched: Array<[string, number, number]>;
  /** files gone (deleted, now ignored, grown too large, turned binary) */
  removed: string[];
  /** files skipped as too large, binary or generated (scan only) */
  skipped: number;
  /**
   * a scan's binary or generated files with their size and mtime: remembered (and stored) so the
   * next scan does not read them again while they stay as they are
   */
  skippedFiles?: Array<[path: string, size: number, mtimeMs: number]>;
}

export interface IndexerOptions {
  maxFileBytes?: number;
  /**
   * worker threads a scan with many files to read spreads them over (analysis-pool.ts); 1 or
   * undefined reads on the calling thread
   */
  workers?: number;
  /**
   * absolute directories never read (Arbor's data directory: tools/workspace.ts refusedDirs),
   * given here because the index runs in a worker thread, which has its own globals
   */
  excludedDirs?: readonly string[];
}

function unchanged(stat: FileStat, known: KnownFile | undefined): boolean {
  return known !== undefined && known[1] === stat.size && known[2] === stat.mtimeMs;
}

/** The whole workspace against what is known. */
export async function scanWorkspace(
  grammars: Grammars,
  root: string,
  known: readonly KnownFile[],
  options: IndexerOptions = {},
  knownSkipped: ReadonlyMap<string, readonly [size: number, mtimeMs: number]> = new Map(),
): Promise<IndexChanges<AnalysedFile>> {
  const byPath = new Map(known.map((file) => [file[0], file]));
  const walked = walkWorkspace(root, options);
  const changes: IndexChanges<AnalysedFile> = {
    records: [],
    touched: [],
    removed: [],
    skipped: walked.tooLarge,
    skippedFiles: [],
  };
  const skippedFiles = changes.skippedFiles as Array<[string, number, number]>;
  const seen = new Set<string>();
  const toRead: AnalyseItem[] = [];
  for (const stat of walked.files) {
    const previous = byPath.get(stat.path);
    const skippedBefore = knownSkipped.get(stat.path);
    if (unchanged(stat, previous)) seen.add(stat.path);
    else if (
      previous === undefined &&
      skippedBefore?.[0] === stat.size &&
      skippedBefore[1] === stat.mtimeMs
    ) {
      changes.skipped++;
      skippedFiles.push([stat.path, stat.size, stat.mtimeMs]);
    } else toRead.push([stat, previous?.[3]]);
  }
  const workers = options.workers ?? 1;
  let outcomes: Outcome[];
  if (workers > 1 && toRead.length >= PARALLEL_MIN_FILES) {
    outcomes = await analyseInWorkers(root, toRead, workers);
  } else {
    outcomes = [];
    for (const [stat, hash] of toRead) outcomes.push(await readOne(grammars, root, stat, hash));
  }
  for (const [i, outcome] of outcomes.entries()) {
    const stat = (toRead[i] as AnalyseItem)[0];
    if (outcome.kind === "skipped") {
      changes.skipped++;
      skippedFiles.push([stat.path, stat.size, stat.mtimeMs]);
      continue;
    }
    seen.add(stat.path);
    if (outcome.kind === "record") changes.records.push(outcome.record);
    else changes.touched.push([stat.path, outcome.size, outcome.mtimeMs]);
  }
  for (const file of known) if (!seen.has(file[0])) changes.removed.push(file[0]);
  return changes;
}

/** Only the given paths (from the watcher or Arbor's own writes) against what is known. */
export async function updatePaths(
  grammars: Grammars,
  root: string,
  paths: readonly string[],
  known: readonly KnownFile[],
  options: IndexerOptions = {},
): Promise<IndexChanges<AnalysedFile>> {
  const byPath = new Map(known.map((file) => [file[0], file]));
  const rules = new IgnoreRules(root, options.excludedDirs);
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const changes: IndexChanges<AnalysedFile> = { records: [], touched: [], removed: [], skipped: 0 };
  for (const rel of new Set(paths)) {
    const previous = byPath.get(rel);
    let stat: FileStat | undefined;
    if (languageOf(rel) !== undefined && !rules.ignores(rel)) {
      try {
        const st = statSync(path.join(root, rel));
        if (st.isFile() && st.size <= maxBytes) {
          stat = { path: rel, size: st.size, mtimeMs: st.mtimeMs };
        }
      } catch {
        stat = undefined;
      }
    }
    if (stat === undefined) {
      if (previous !== undefined) changes.removed.push(rel);
      continue;
    }
    if (unchanged(stat, previous)) continue;
    const outcome = await readOne(grammars, root, stat, previous?.[3]);
    if (outcome.kind === "record") changes.records.push(outcome.record);
    else if (outcome.kind === "touched") changes.touched.push([rel, outcome.size, outcome.mtimeMs]);
    else if (previous !== undefined) changes.removed.push(rel);
  }
  return changes;
}
