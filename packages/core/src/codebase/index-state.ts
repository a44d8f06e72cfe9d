import type { Grammars } from "./file-analysis.js";
import { type AnalysedFile, type FileRecord, StringTable } from "./file-record.js";
import { IndexStore } from "./index-store.js";
import {
  type IndexChanges,
  type IndexerOptions,
  type KnownFile,
  scanWorkspace,
  updatePaths,
} from "./indexer.js";

// The indexing side's own copy of the records: it decides what changed, and persists. Lives in
// the worker thread, so reading and writing the store never runs on the server's event loop. It
// owns the string table: ids are assigned here, and every answer carries the strings that are new.

const SAVE_DELAY_MS = 1_000;

export interface OpenRequest {
  root: string;
  /** directory of persisted indexes; undefined = not persisted */
  storeDir?: string;
  options?: IndexerOptions;
}

/** The stored index as loaded (the scan against the tree follows as a rescan). */
export interface OpenResult {
  records: FileRecord[];
  /** the whole string table the records' ids point into */
  strings: string[];
}

export class IndexState {
  private readonly records = new Map<string, FileRecord>();
  private table = new StringTable();
  private store: IndexStore | undefined;
  private root = "";
  private options: IndexerOptions = {};
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** paths changed since the last write, and the string table's size then */
  private unsaved = new Set<string>();
  private savedStrings = 0;
  /** binary or generated files of the last scan (not read again while unchanged) */
  private skippedFiles = new Map<string, readonly [number, number]>();
  private skippedUnsaved = false;

  /** `defaults`: indexer options a request's own override (the indexing worker sets `workers`) */
  constructor(
    private readonly grammars: Grammars,
    private readonly defaults: IndexerOptions = {},
  ) {}

  private known(paths?: Iterable<string>): KnownFile[] {
    const out: KnownFile[] = [];
    const pick = (r: FileRecord | undefined): void => {
      if (r !== undefined) out.push([r.path, r.size, r.mtimeMs, r.hash]);
    };
    if (paths === undefined) for (const r of this.records.values()) pick(r);
    else for (const p of paths) pick(this.records.get(p));
    return out;
  }

  /** Interns the analysed files' words; the changes then carry the strings that are new. */
  private interned(changes: IndexChanges<AnalysedFile>): IndexChanges {
    const from = this.table.size;
    const records = changes.records.map((file) => this.table.record(file));
    return { ...changes, records, strings: { from, added: this.table.strings.slice(from) } };
  }

  private apply(changes: IndexChanges): void {
    for (const p of changes.removed) this.records.delete(p);
    for (const [p, size, mtimeMs] of changes.touched) {
      const r = this.records.get(p);
      if (r !== undefined) {
        r.size = size;
        r.mtimeMs = mtimeMs;
      }
    }
    for (const r of changes.records) this.records.set(r.path, r);
    if (this.store === undefined) return;
    for (const p of changes.removed) this.unsaved.add(p);
    for (const [p] of changes.touched) this.unsaved.add(p);
    for (const r of changes.records) this.unsaved.add(r.path);
    if (this.unsaved.size > 0) this.scheduleSave();
  }

  private scheduleSave(): void {
    if (this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  /**
   * Writes what changed since the last write, now: a delta of the changed files' records, or the
   * whole index when the store has no base yet or its deltas have grown large.
   */
  flush(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const store = this.store;
    if (store === undefined || (this.unsaved.size === 0 && !this.skippedUnsaved)) return;
    const skipped = [...this.skippedFiles].map(
      ([p, [size, mtimeMs]]) => [p, size, mtimeMs] as const,
    );
    if (store.wantsWhole) {
      store.save(this.table.strings, this.records.values(), skipped);
    } else {
      const removed: string[] = [];
      const files: FileRecord[] = [];
      for (const p of this.unsaved) {
        const record = this.records.get(p);
        if (record === undefined) removed.push(p);
        else files.push(record);
      }
      store.append({
        from: this.savedStrings,
        strings: this.table.strings.slice(this.savedStrings),
        removed,
        files,
        skipped,
      });
    }
    this.unsaved.clear();
    this.skippedUnsaved = false;
    this.savedStrings = this.table.size;
  }

  /**
   * Loads the stored index (no scan: the caller asks for a rescan next, and applies these records
   * while the rescan walks the tree).
   */
  open(request: OpenRequest): OpenResult {
    this.root = request.root;
    this.options = { ...this.defaults, ...request.options };
    this.records.clear();
    this.store =
      request.storeDir !== undefined ? new IndexStore(request.storeDir, request.root) : undefined;
    const stored = this.store?.load();
    this.table = new StringTable();
    this.table.append(0, stored?.strings ?? []);
    this.unsaved.clear();
    this.savedStrings = this.table.size;
    for (const r of stored?.files ?? []) this.records.set(r.path, r);
    this.skippedFiles = new Map(
      (stored?.skipped ?? []).map(([p, size, mtimeMs]) => [p, [size, mtimeMs]]),
    );
    this.skippedUnsaved = false;
    return { records: [...this.records.values()], strings: this.table.strings };
  }

  async update(paths: readonly string[]): Promise<IndexChanges> {
    const changes = this.interned(
      await updatePaths(this.grammars, this.root, paths, this.known(paths), this.options),
    );
    this.apply(changes);
    return changes;
  }

  async rescan(): Promise<IndexChanges> {
    const changes = this.interned(
      await scanWorkspace(this.grammars, this.root, this.known(), this.options, this.skippedFiles),
    );
    this.rememberSkipped(changes.skippedFiles ?? []);
    this.apply(changes);
    return changes;
  }

  private rememberSkipped(files: ReadonlyArray<readonly [string, number, number]>): void {
    const next = new Map(files.map(([p, size, mtimeMs]) => [p, [size, mtimeMs] as const]));
    const same =
      next.size === this.skippedFiles.size &&
      [...next].every(([p, [size, mtimeMs]]) => {
        const before = this.skippedFiles.get(p);
        return before?.[0] === size && before[1] === mtimeMs;
      });
    this.skippedFiles = next;
    if (!same && this.store !== undefined) {
      this.skippedUnsaved = true;
      this.scheduleSave();
    }
  }
}
