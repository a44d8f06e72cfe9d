import { readFileSync } from "node:fs";
import path from "node:path";
import { analyseFile, contentHash, type Grammars } from "./file-analysis.js";
import type { AnalysedFile, FileStat } from "./file-record.js";
import { languageOf } from "./languages.js";
import { looksBinary, looksGenerated } from "./walk.js";

// Reading one file for the index: hashed, compared with the hash the index knows, parsed when
// new or changed. Shared by a scan on the indexing worker and the analysis workers.

export type Outcome =
  | { kind: "record"; record: AnalysedFile }
  | { kind: "touched"; size: number; mtimeMs: number }
  | { kind: "skipped" };

/** Reads one file: parsed, unchanged (same hash as known) or skipped. */
export async function readOne(
  grammars: Grammars,
  root: string,
  stat: FileStat,
  knownHash: string | undefined,
): Promise<Outcome> {
  const language = languageOf(stat.path);
  if (language === undefined) return { kind: "skipped" };
  let buffer: Buffer;
  try {
    buffer = readFileSync(path.join(root, stat.path));
  } catch {
    return { kind: "skipped" };
  }
  const hash = contentHash(buffer);
  if (knownHash === hash) {
    return { kind: "touched", size: stat.size, mtimeMs: stat.mtimeMs };
  }
  if (looksBinary(buffer)) return { kind: "skipped" };
  const content = buffer.toString("utf8");
  if (looksGenerated(content)) return { kind: "skipped" };
  const record = await analyseFile(grammars, {
    path: stat.path,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    language,
    content,
    hash,
  });
  return { kind: "record", record };
}
