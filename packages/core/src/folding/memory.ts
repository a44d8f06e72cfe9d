import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { estimateTextTokens } from "../agent/token-count.js";
import { bm25Idf, bm25TermScore } from "../codebase/bm25.js";
import { queryTerms, termFrequencies } from "../codebase/search-terms.js";
import { workspaceFile, writeFileAtomic } from "../codebase/workspace-file.js";

// Fold memories (issue #13): short lessons a fold kept when it returned, stored per workspace
// with the fold's description, and offered to later folds whose description is alike. Here, one
// JSON file per workspace, `<data dir>/fold-memory/<folder>-<sha1 of the workspace path>.json`,
// written whole and atomically, for a library user without a database; the web server and
// `arbor-mcp` keep them in the database instead (memory-store.ts, issue #26) and import such a
// file once. Every change re-reads the file first, so two processes on one data dir do not drop
// each other's lessons except in the instant between a read and its write. Ranking is BM25 over
// the descriptions (codebase/bm25.ts, the codebase search's own), terms split as the codebase
// search splits them.

const FORMAT = 1;
/** the oldest lessons go beyond this many per workspace */
export const FOLD_MEMORY_LIMIT = 500;

/** What a fold needs of a memory store (FoldMemoryFile is one; tests pass their own). */
export interface FoldMemorySource {
  /** the most relevant memories for `description` that fit in `tokenBudget`, best first */
  recall(
    description: string,
    tokenBudget: number,
  ): Array<{ id: string; text: string }> | Promise<Array<{ id: string; text: string }>>;
  remember(description: string, text: string): unknown;
}

export interface FoldMemoryEntry {
  id: string;
  /** what the fold that kept it was for */
  description: string;
  text: string;
  createdAt: number;
}

export interface RankedFoldMemory extends FoldMemoryEntry {
  score: number;
}

interface Stored {
  format: number;
  workspace: string;
  memories: FoldMemoryEntry[];
}

export interface FoldMemoryStoreOptions {
  /** Arbor's data dir; the file goes in its `fold-memory/` */
  dataDir: string;
  /** the workspace's absolute path */
  workspace: string;
  countTokens?: (text: string) => number;
  now?: () => number;
  limit?: number;
}

export class FoldMemoryFile implements FoldMemorySource {
  readonly file: string;
  readonly #workspace: string;
  readonly #count: (text: string) => number;
  readonly #now: () => number;
  readonly #limit: number;

  constructor(options: FoldMemoryStoreOptions) {
    this.#workspace = path.resolve(options.workspace);
    this.file = workspaceFile(path.join(options.dataDir, "fold-memory"), this.#workspace, "json");
    this.#count = options.countTokens ?? estimateTextTokens;
    this.#now = options.now ?? Date.now;
    this.#limit = options.limit ?? FOLD_MEMORY_LIMIT;
  }

  /** Every memory of the workspace, oldest first. A missing or unreadable file holds none. */
  list(): FoldMemoryEntry[] {
    try {
      const stored = JSON.parse(readFileSync(this.file, "utf8")) as Stored;
      if (
        stored.format !== FORMAT ||
        stored.workspace !== this.#workspace ||
        !Array.isArray(stored.memories)
      )
        return [];
      return stored.memories;
    } catch {
      return [];
    }
  }

  /** Keeps a lesson; the same text kept again for the same description is not doubled. */
  remember(description: string, text: string): FoldMemoryEntry {
    const memories = this.list();
    const same = memories.find((m) => m.description === description && m.text === text);
    if (same !== undefined) return same;
    const entry: FoldMemoryEntry = { id: randomUUID(), description, text, createdAt: this.#now() };
    memories.push(entry);
    this.#write(memories.slice(-this.#limit));
    return entry;
  }

  forget(id: string): boolean {
    const memories = this.list();
    const kept = memories.filter((m) => m.id !== id);
    if (kept.length === memories.length) return false;
    this.#write(kept);
    return true;
  }

  /** Memories whose description shares terms with `description`, best first (BM25). */
  rank(description: string): RankedFoldMemory[] {
    return rankByDescription(this.list(), description);
  }

  /**
   * The most relevant memories that fit together in `tokenBudget` (their text counted), taken
   * greedily best first: one too large is passed over for smaller ones after it.
   */
  recall(description: string, tokenBudget: number): RankedFoldMemory[] {
    const chosen: RankedFoldMemory[] = [];
    let used = 0;
    for (const memory of this.rank(description)) {
      const cost = this.#count(memory.text);
      if (used + cost > tokenBudget) continue;
      chosen.push(memory);
      used += cost;
    }
    return chosen;
  }

  /** The ids `recall` picks. */
  select(description: string, tokenBudget: number): string[] {
    return this.recall(description, tokenBudget).map((m) => m.id);
  }

  #write(memories: FoldMemoryEntry[]): void {
    const stored: Stored = { format: FORMAT, workspace: this.#workspace, memories };
    writeFileAtomic(this.file, JSON.stringify(stored));
  }
}

/** BM25 over the memories' descriptions; only memories sharing a term score. Ties: newest first. */
export function rankByDescription(
  memories: readonly FoldMemoryEntry[],
  description: string,
): RankedFoldMemory[] {
  const terms = queryTerms(description);
  if (terms.length === 0 || memories.length === 0) return [];
  const docs = memories.map((m) => termFrequencies(m.description));
  const lengths = docs.map((tf) => [...tf.values()].reduce((a, b) => a + b, 0));
  const avgLength = lengths.reduce((a, b) => a + b, 0) / docs.length || 1;
  const scores = new Array<number>(memories.length).fill(0);
  for (const term of terms) {
    const holding = docs.filter((tf) => tf.has(term)).length;
    if (holding === 0) continue;
    const idf = bm25Idf(docs.length, holding);
    docs.forEach((tf, i) => {
      const count = tf.get(term);
      if (count !== undefined)
        scores[i] = (scores[i] ?? 0) + bm25TermScore(count, idf, lengths[i] ?? 0, avgLength);
    });
  }
  return memories
    .map((m, i) => ({ ...m, score: scores[i] ?? 0 }))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || b.createdAt - a.createdAt);
}
