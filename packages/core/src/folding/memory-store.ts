import { randomUUID } from "node:crypto";
import { renameSync } from "node:fs";
import path from "node:path";
import { estimateTextTokens } from "../agent/token-count.js";
import {
  FOLD_MEMORY_LIMIT,
  type FoldMemoryEntry,
  type FoldMemoryFile,
  type FoldMemorySource,
  type RankedFoldMemory,
  rankByDescription,
} from "./memory.js";

// Fold memories kept in a store (issue #26): the web server's are in the database, so a lesson
// kept through one instance is offered by every other. The core defines what it needs of the
// store (FoldMemoryRecords; @arbor/db's FoldMemoryTable is one) and ranks as FoldMemoryFile does
// (BM25 over the descriptions). `importFoldMemoryFile` brings an older file's lessons over once.

/** A store of fold memories, per workspace (the workspace's absolute path). */
export interface FoldMemoryRecords {
  /** Every memory of the workspace, oldest first. */
  list(workspace: string): Promise<FoldMemoryEntry[]>;
  /**
   * Keeps `entry` unless the workspace holds a memory with the same description and text (that
   * one is returned, even when two instances add it at once), then drops the oldest beyond
   * `limit`.
   */
  add(workspace: string, entry: FoldMemoryEntry, limit: number): Promise<FoldMemoryEntry>;
  /** true when there was one */
  forget(workspace: string, id: string): Promise<boolean>;
}

export interface FoldMemoriesOptions {
  records: FoldMemoryRecords;
  /** the workspace's absolute path */
  workspace: string;
  countTokens?: (text: string) => number;
  now?: () => number;
  limit?: number;
}

/** A workspace's fold memories in a FoldMemoryRecords store. */
export class FoldMemories implements FoldMemorySource {
  readonly workspace: string;
  readonly #records: FoldMemoryRecords;
  readonly #count: (text: string) => number;
  readonly #now: () => number;
  readonly #limit: number;

  constructor(options: FoldMemoriesOptions) {
    this.workspace = path.resolve(options.workspace);
    this.#records = options.records;
    this.#count = options.countTokens ?? estimateTextTokens;
    this.#now = options.now ?? Date.now;
    this.#limit = options.limit ?? FOLD_MEMORY_LIMIT;
  }

  list(): Promise<FoldMemoryEntry[]> {
    return this.#records.list(this.workspace);
  }

  /** Keeps a lesson; the same text kept again for the same description is not doubled. */
  remember(description: string, text: string): Promise<FoldMemoryEntry> {
    const entry: FoldMemoryEntry = { id: randomUUID(), description, text, createdAt: this.#now() };
    return this.#records.add(this.workspace, entry, this.#limit);
  }

  /** Keeps a memory as it is (its id and time): an import. */
  keep(entry: FoldMemoryEntry): Promise<FoldMemoryEntry> {
    return this.#records.add(this.workspace, entry, this.#limit);
  }

  forget(id: string): Promise<boolean> {
    return this.#records.forget(this.workspace, id);
  }

  /** Memories whose description shares terms with `description`, best first (BM25). */
  async rank(description: string): Promise<RankedFoldMemory[]> {
    return rankByDescription(await this.list(), description);
  }

  /** The most relevant memories that fit together in `tokenBudget`, as FoldMemoryFile.recall. */
  async recall(description: string, tokenBudget: number): Promise<RankedFoldMemory[]> {
    return fitInBudget(await this.rank(description), tokenBudget, this.#count);
  }
}

/** Taken greedily best first: one too large is passed over for smaller ones after it. */
export function fitInBudget(
  ranked: readonly RankedFoldMemory[],
  tokenBudget: number,
  count: (text: string) => number,
): RankedFoldMemory[] {
  const chosen: RankedFoldMemory[] = [];
  let used = 0;
  for (const memory of ranked) {
    const cost = count(memory.text);
    if (used + cost > tokenBudget) continue;
    chosen.push(memory);
    used += cost;
  }
  return chosen;
}

/**
 * Moves the lessons of an older version's file (FoldMemoryFile) into `into`, each with its id and
 * time, then renames the file `<name>.imported` so it is read once. How many it brought over; 0
 * when there is no file. Safe to run on every start, on every instance.
 */
export async function importFoldMemoryFile(
  file: FoldMemoryFile,
  into: FoldMemories,
): Promise<number> {
  const entries = file.list();
  for (const entry of entries) await into.keep(entry);
  try {
    renameSync(file.file, `${file.file}.imported`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return entries.length;
}

/** Fold memories in this process's memory (tests, a library user without a database). */
export class InMemoryFoldMemoryRecords implements FoldMemoryRecords {
  readonly #byWorkspace = new Map<string, FoldMemoryEntry[]>();

  async list(workspace: string) {
    return [...(this.#byWorkspace.get(workspace) ?? [])].sort(
      (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id),
    );
  }

  async add(workspace: string, entry: FoldMemoryEntry, limit: number) {
    const memories = this.#byWorkspace.get(workspace) ?? [];
    const same = memories.find(
      (m) => m.id === entry.id || (m.description === entry.description && m.text === entry.text),
    );
    if (same !== undefined) return { ...same };
    memories.push({ ...entry });
    memories.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    this.#byWorkspace.set(workspace, memories.slice(-limit));
    return { ...entry };
  }

  async forget(workspace: string, id: string) {
    const memories = this.#byWorkspace.get(workspace) ?? [];
    const kept = memories.filter((m) => m.id !== id);
    this.#byWorkspace.set(workspace, kept);
    return kept.length !== memories.length;
  }
}
