import { bm25Idf, bm25TermScore } from "./bm25.js";
import { type Definition, type FileRecord, identLinesAt, StringTable } from "./file-record.js";
import type { IndexChanges } from "./indexer.js";
import { identifierTerms, queryTerms } from "./search-terms.js";

// The in-memory index: files, definitions by name, identifier postings (for references) and term
// postings (for BM25). Applying a worker's changes is the only way it changes; lookups are
// synchronous and touch only maps.

export interface DefinitionHit extends Definition {
  path: string;
}

export interface ReferenceFile {
  path: string;
  /** 1-based lines the symbol occurs on */
  lines: number[];
  /** lines holding a definition of the symbol (also in `lines`) */
  definitionLines: number[];
}

export interface RankedFile {
  path: string;
  /** BM25 plus the best definition boost */
  score: number;
  /** BM25 of the file alone */
  base: number;
  /** definitions in the file whose name matches the query, best first, with their boost */
  definitions: Array<{ def: Definition; boost: number }>;
}

/** added per query term a definition's name holds; a name equal to the query gets more */
const DEFINITION_BOOST = 4;
const EXACT_NAME_BOOST = 10;

export class SymbolIndex {
  private readonly files = new Map<string, FileRecord>();
  private readonly strings = new StringTable();
  /** definition name → [record, index of the definition in it, record, index, …] */
  private readonly defsByName = new Map<string, Array<FileRecord | number>>();
  /** lower-cased name → names; built on first use (case-insensitive lookups, "did you mean") */
  private defNamesLower: Map<string, Set<string>> | undefined;
  // Postings are append-only arrays by string id and a file's slot: adding a file pushes its
  // entries, removing one only frees its slot (lookups skip free slots). A file changed gets a
  // new slot; once free slots outnumber the live ones the postings are rebuilt from the records.
  /** term id → [slot, count, slot, count, …] */
  private termPostings: Array<number[] | undefined> = [];
  /** identifier id → [slot, index of the identifier in the record, …] */
  private identPostings: Array<number[] | undefined> = [];
  private slots: Array<FileRecord | undefined> = [];
  private readonly slotOf = new Map<string, number>();
  private freeSlots = 0;
  private totalTerms = 0;

  get fileCount(): number {
    return this.files.size;
  }

  file(path: string): FileRecord | undefined {
    return this.files.get(path);
  }

  allFiles(): IterableIterator<FileRecord> {
    return this.files.values();
  }

  apply(changes: IndexChanges): void {
    if (changes.strings !== undefined) {
      this.strings.append(changes.strings.from, changes.strings.added);
      // postings arrays as long as the table: stores within bounds keep them fast arrays
      const size = this.strings.size;
      for (const postings of [this.termPostings, this.identPostings]) {
        while (postings.length < size) postings.push(undefined);
      }
    }
    for (const path of changes.removed) this.remove(path);
    for (const [path, size, mtimeMs] of changes.touched) {
      const record = this.files.get(path);
      if (record !== undefined) {
        record.size = size;
        record.mtimeMs = mtimeMs;
      }
    }
    for (const record of changes.records) {
      this.remove(record.path);
      this.add(record);
    }
    if (this.freeSlots > 1_000 && this.freeSlots > this.files.size) this.rebuildPostings();
  }

  private add(record: FileRecord): void {
    this.files.set(record.path, record);
    const defs = record.defs;
    for (let i = 0; i < defs.length; i++) {
      const name = (defs[i] as Definition).name;
      const list = this.defsByName.get(name);
      if (list === undefined) {
        this.defsByName.set(name, [record, i]);
        if (this.defNamesLower !== undefined) {
          getOrCreate(this.defNamesLower, name.toLowerCase(), () => new Set<string>()).add(name);
        }
      } else list.push(record, i);
    }
    this.post(record);
    this.totalTerms += record.termCount;
  }

  private post(record: FileRecord): void {
    const slot = this.slots.length;
    this.slots.push(record);
    this.slotOf.set(record.path, slot);
    const idents = record.identIds;
    const identPostings = this.identPostings;
    for (let i = 0; i < idents.length; i++) {
      const id = idents[i] as number;
      const list = identPostings[id];
      if (list === undefined) identPostings[id] = [slot, i];
      else list.push(slot, i);
    }
    const terms = record.termIds;
    const counts = record.termCounts;
    const termPostings = this.termPostings;
    for (let i = 0; i < terms.length; i++) {
      const id = terms[i] as number;
      const list = termPostings[id];
      if (list === undefined) termPostings[id] = [slot, counts[i] as number];
      else list.push(slot, counts[i] as number);
    }
  }

  private rebuildPostings(): void {
    this.termPostings = new Array<number[] | undefined>(this.strings.size).fill(undefined);
    this.identPostings = new Array<number[] | undefined>(this.strings.size).fill(undefined);
    this.slots = [];
    this.slotOf.clear();
    this.freeSlots = 0;
    for (const record of this.files.values()) this.post(record);
  }

  private remove(path: string): void {
    const record = this.files.get(path);
    if (record === undefined) return;
    this.files.delete(path);
    for (const def of record.defs) {
      const list = this.defsByName.get(def.name);
      if (list === undefined) continue;
      const kept: Array<FileRecord | number> = [];
      for (let k = 0; k < list.length; k += 2) {
        if (list[k] !== record) kept.push(list[k] as FileRecord, list[k + 1] as number);
      }
      if (kept.length > 0) {
        this.defsByName.set(def.name, kept);
        continue;
      }
      this.defsByName.delete(def.name);
      const lower = def.name.toLowerCase();
      const names = this.defNamesLower?.get(lower);
      names?.delete(def.name);
      if (names?.size === 0) this.defNamesLower?.delete(lower);
    }
    const slot = this.slotOf.get(path);
    if (slot !== undefined) {
      this.slots[slot] = undefined;
      this.slotOf.delete(path);
      this.freeSlots++;
    }
    this.totalTerms -= record.termCount;
  }

  /**
   * Definitions named `symbol`; `Container.name` / `Container::name` narrows to a container.
   * Exact case first; when none, names equal ignoring case.
   */
  definitions(symbol: string): DefinitionHit[] {
    const parts = symbol
      .trim()
      .split(/::|\.|#/)
      .filter((part) => part !== "");
    const name = parts[parts.length - 1] ?? "";
    const container = parts.length > 1 ? parts[parts.length - 2] : undefined;
    let hits = this.hitsNamed(name);
    if (hits.length === 0) {
      hits = [...(this.lowerNames().get(name.toLowerCase()) ?? [])].flatMap((other) =>
        this.hitsNamed(other),
      );
    }
    if (container !== undefined) {
      const narrowed = hits.filter((hit) => hit.container === container);
      if (narrowed.length > 0) hits = narrowed;
    }
    return [...hits].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  }

  private hitsNamed(name: string): DefinitionHit[] {
    const list = this.defsByName.get(name) ?? [];
    const hits: DefinitionHit[] = [];
    for (let k = 0; k < list.length; k += 2) {
      const record = list[k] as FileRecord;
      hits.push({ ...(record.defs[list[k + 1] as number] as Definition), path: record.path });
    }
    return hits;
  }

  private lowerNames(): Map<string, Set<string>> {
    if (this.defNamesLower === undefined) {
      const lower = new Map<string, Set<string>>();
      for (const name of this.defsByName.keys()) {
        getOrCreate(lower, name.toLowerCase(), () => new Set<string>()).add(name);
      }
      this.defNamesLower = lower;
    }
    return this.defNamesLower;
  }

  /**
   * Defined names nearest to `symbol` (for "did you mean"), at most `limit`: edit distance
   * relative to length, less for a name containing the other or sharing its parts.
   */
  similarNames(symbol: string, limit = 5): string[] {
    const wanted = symbol.trim().toLowerCase();
    const wantedTerms = identifierTerms(symbol.trim());
    const scored: Array<{ name: string; score: number }> = [];
    for (const [lower, names] of this.lowerNames()) {
      const contained = lower.includes(wanted) || wanted.includes(lower);
      const lengthGap = Math.abs(lower.length - wanted.length);
      const first = names.values().next().value as string;
      const nameTerms = identifierTerms(first);
      const shared = wantedTerms.filter((term) => nameTerms.includes(term)).length;
      if (!contained && shared === 0 && lengthGap > Math.max(3, wanted.length / 2)) continue;
      const distance = editDistance(lower, wanted) / Math.max(lower.length, wanted.length, 1);
      const score =
        distance - (contained ? 0.2 : 0) - (0.3 * shared) / Math.max(wantedTerms.length, 1);
      if (score > 0.6) continue;
      for (const name of names) scored.push({ name, score });
    }
    scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
    return scored.slice(0, limit).map((entry) => entry.name);
  }

  /** Files where the identifier `symbol` occurs, with the lines. Exact, case-sensitive. */
  references(symbol: string): ReferenceFile[] {
    const name =
      symbol
        .trim()
        .split(/::|\.|#/)
        .filter((part) => part !== "")
        .pop() ?? "";
    const id = this.strings.idOf(name);
    const postings = (id !== undefined ? this.identPostings[id] : undefined) ?? [];
    const out: ReferenceFile[] = [];
    for (let k = 0; k < postings.length; k += 2) {
      const record = this.slots[postings[k] as number];
      if (record === undefined) continue;
      const lines = [...identLinesAt(record, postings[k + 1] as number)];
      const definitionLines = record.defs.filter((def) => def.name === name).map((def) => def.line);
      out.push({ path: record.path, lines, definitionLines });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Files ranked by BM25 over the query's terms, plus a boost for matching definitions. */
  rank(query: string, limit: number): RankedFile[] {
    const terms = queryTerms(query);
    if (terms.length === 0 || this.files.size === 0) return [];
    const n = this.files.size;
    const avgLength = this.totalTerms / n || 1;
    const scores = new Map<string, number>();
    for (const term of terms) {
      const id = this.strings.idOf(term);
      const postings = id !== undefined ? this.termPostings[id] : undefined;
      if (postings === undefined) continue;
      let df = 0;
      for (let k = 0; k < postings.length; k += 2) {
        if (this.slots[postings[k] as number] !== undefined) df++;
      }
      const idf = bm25Idf(n, df);
      for (let k = 0; k < postings.length; k += 2) {
        const record = this.slots[postings[k] as number];
        if (record === undefined) continue;
        const tf = postings[k + 1] as number;
        const length = record.termCount;
        const score = bm25TermScore(tf, idf, length, avgLength);
        scores.set(record.path, (scores.get(record.path) ?? 0) + score);
      }
    }
    const queryText = query.trim().toLowerCase();
    // definitions are weighed only in the files BM25 ranks high, plus those defining the query's
    // exact name: on a large tree a common term's postings run into thousands of files
    const candidates = [...scores].sort((a, b) => b[1] - a[1]).slice(0, Math.max(limit * 4, 100));
    const seen = new Set(candidates.map(([path]) => path));
    for (const name of this.lowerNames().get(queryText) ?? []) {
      const list = this.defsByName.get(name) ?? [];
      for (let k = 0; k < list.length; k += 2) {
        const record = list[k] as FileRecord;
        if (!seen.has(record.path)) {
          seen.add(record.path);
          candidates.push([record.path, scores.get(record.path) ?? 0]);
        }
      }
    }
    const ranked: RankedFile[] = [];
    for (const [path, base] of candidates) {
      const record = this.files.get(path);
      if (record === undefined) continue;
      const definitions: Array<{ def: Definition; boost: number }> = [];
      for (const def of record.defs) {
        const nameTerms = identifierTerms(def.name);
        let boost = 0;
        for (const term of terms) if (nameTerms.includes(term)) boost += DEFINITION_BOOST;
        if (def.name.toLowerCase() === queryText) boost += EXACT_NAME_BOOST;
        if (boost > 0) definitions.push({ def, boost });
      }
      definitions.sort((a, b) => b.boost - a.boost || a.def.line - b.def.line);
      const best = definitions[0]?.boost ?? 0;
      ranked.push({ path, score: base + best, base, definitions });
    }
    ranked.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
    return ranked.slice(0, limit);
  }
}

/** Levenshtein distance (two rows). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
