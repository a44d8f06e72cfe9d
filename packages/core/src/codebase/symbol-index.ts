import { bm25Idf, bm25TermScore } from "./bm25.js";
import type { Definition, FileRecord } from "./file-record.js";
import type { IndexChanges } from "./indexer.js";
import { identifierTerms, queryTerms } from "./tokens.js";

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
  private readonly defsByName = new Map<string, DefinitionHit[]>();
  private readonly defNamesLower = new Map<string, Set<string>>();
  private readonly identFiles = new Map<string, Set<string>>();
  private readonly termFiles = new Map<string, Map<string, number>>();
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
  }

  private add(record: FileRecord): void {
    this.files.set(record.path, record);
    for (const def of record.defs) {
      const hit: DefinitionHit = { ...def, path: record.path };
      const list = this.defsByName.get(def.name);
      if (list === undefined) this.defsByName.set(def.name, [hit]);
      else list.push(hit);
      const lower = def.name.toLowerCase();
      getOrCreate(this.defNamesLower, lower, () => new Set<string>()).add(def.name);
    }
    for (const [name] of record.idents) {
      getOrCreate(this.identFiles, name, () => new Set<string>()).add(record.path);
    }
    for (const [term, count] of record.terms) {
      getOrCreate(this.termFiles, term, () => new Map<string, number>()).set(record.path, count);
    }
    this.totalTerms += record.termCount;
  }

  private remove(path: string): void {
    const record = this.files.get(path);
    if (record === undefined) return;
    this.files.delete(path);
    for (const def of record.defs) {
      const list = this.defsByName.get(def.name);
      if (list === undefined) continue;
      const kept = list.filter((hit) => hit.path !== path);
      if (kept.length > 0) {
        this.defsByName.set(def.name, kept);
        continue;
      }
      this.defsByName.delete(def.name);
      const lower = def.name.toLowerCase();
      const names = this.defNamesLower.get(lower);
      names?.delete(def.name);
      if (names?.size === 0) this.defNamesLower.delete(lower);
    }
    for (const [name] of record.idents) {
      const set = this.identFiles.get(name);
      set?.delete(path);
      if (set?.size === 0) this.identFiles.delete(name);
    }
    for (const [term] of record.terms) {
      const postings = this.termFiles.get(term);
      postings?.delete(path);
      if (postings?.size === 0) this.termFiles.delete(term);
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
    let hits = this.defsByName.get(name) ?? [];
    if (hits.length === 0) {
      hits = [...(this.defNamesLower.get(name.toLowerCase()) ?? [])].flatMap(
        (other) => this.defsByName.get(other) ?? [],
      );
    }
    if (container !== undefined) {
      const narrowed = hits.filter((hit) => hit.container === container);
      if (narrowed.length > 0) hits = narrowed;
    }
    return [...hits].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  }

  /**
   * Defined names nearest to `symbol` (for "did you mean"), at most `limit`: edit distance
   * relative to length, less for a name containing the other or sharing its parts.
   */
  similarNames(symbol: string, limit = 5): string[] {
    const wanted = symbol.trim().toLowerCase();
    const wantedTerms = identifierTerms(symbol.trim());
    const scored: Array<{ name: string; score: number }> = [];
    for (const [lower, names] of this.defNamesLower) {
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
    const files = [...(this.identFiles.get(name) ?? [])].sort();
    const out: ReferenceFile[] = [];
    for (const path of files) {
      const record = this.files.get(path);
      const lines = record?.idents.find(([ident]) => ident === name)?.[1];
      if (record === undefined || lines === undefined) continue;
      const definitionLines = record.defs.filter((def) => def.name === name).map((def) => def.line);
      out.push({ path, lines, definitionLines });
    }
    return out;
  }

  /** Files ranked by BM25 over the query's terms, plus a boost for matching definitions. */
  rank(query: string, limit: number): RankedFile[] {
    const terms = queryTerms(query);
    if (terms.length === 0 || this.files.size === 0) return [];
    const n = this.files.size;
    const avgLength = this.totalTerms / n || 1;
    const scores = new Map<string, number>();
    for (const term of terms) {
      const postings = this.termFiles.get(term);
      if (postings === undefined) continue;
      const idf = bm25Idf(n, postings.size);
      for (const [path, tf] of postings) {
        const length = this.files.get(path)?.termCount ?? avgLength;
        scores.set(path, (scores.get(path) ?? 0) + bm25TermScore(tf, idf, length, avgLength));
      }
    }
    const queryText = query.trim().toLowerCase();
    // definitions are weighed only in the files BM25 ranks high, plus those defining the query's
    // exact name: on a large tree a common term's postings run into thousands of files
    const candidates = [...scores].sort((a, b) => b[1] - a[1]).slice(0, Math.max(limit * 4, 100));
    const seen = new Set(candidates.map(([path]) => path));
    for (const name of this.defNamesLower.get(queryText) ?? []) {
      for (const hit of this.defsByName.get(name) ?? []) {
        if (!seen.has(hit.path)) {
          seen.add(hit.path);
          candidates.push([hit.path, scores.get(hit.path) ?? 0]);
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
