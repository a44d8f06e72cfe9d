import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AsyncSubscription } from "@parcel/watcher";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../model/private-files.js";
import { refusedDirOf, refusedDirs } from "../tools/workspace.js";
import type { OpenResult } from "./index-state.js";
import type { IndexerOptions } from "./indexer.js";
import { SymbolIndex } from "./symbol-index.js";
import { INDEX_EXCLUDED_DIRS } from "./walk.js";
import { type IndexRunner, WorkerRunner } from "./worker-client.js";

// One workspace's symbol index, kept fresh:
// - start(): the indexing worker loads the persisted index and re-reads only files whose size or
//   mtime moved (and whose content hash then differs), then the watcher is subscribed;
// - the watcher's events and Arbor's own writes (changed()) queue paths, which the worker
//   re-reads in the background;
// - ready() — what every codebase tool awaits — first makes sure the watcher has reported every
//   change made before the call (barrier files in a private directory, see barrier()), then waits
//   until every queued path is applied. No tool answers from an index older than its call.
// Where the watcher cannot vouch for that, the next call re-checks the whole tree (a rescan: sizes
// and mtimes, re-reading what moved) before it answers: when the watcher cannot start (no inotify
// watches left), reports an error (events may be lost), or does not deliver the barrier in time.
//
// One @parcel/watcher subscription per directory in a process: parcel shares the tree it read
// between subscriptions of one path, so another subscription of the workspace root that ignores
// its subdirectories blinds this one to everything below the root (issue #26: the MCP config
// watch did; it now uses fs.watch).

export interface CodebaseIndexOptions {
  workspaceRoot: string;
  /** directory of persisted indexes (one file per workspace); undefined = in memory only */
  storeDir?: string;
  /** watch the workspace for outside changes (default true) */
  watch?: boolean;
  /** default: a worker thread */
  runner?: IndexRunner;
  /** the watcher module (default @parcel/watcher; tests pass one that fails) */
  watcher?: () => Promise<Pick<Watcher, "subscribe">>;
  indexer?: IndexerOptions;
  /** called when background indexing fails (the index keeps its last good state) */
  onError?: (err: Error) => void;
}

export interface IndexStatus {
  files: number;
  /** of the last start: files re-read, stored records reused */
  reread: number;
  reused: number;
  startMs: number;
}

type Watcher = typeof import("@parcel/watcher");

const BARRIER_TIMEOUT_MS = 5_000;

export class CodebaseIndex {
  readonly root: string;
  readonly symbols = new SymbolIndex();
  private readonly runner: IndexRunner;
  private started: Promise<void> | undefined;
  private dirty = new Set<string>();
  private rescanWanted = false;
  private draining: Promise<void> | undefined;
  private subscriptions: AsyncSubscription[] = [];
  private barrierDir: string | undefined;
  private barrierSeq = 0;
  private readonly barrierWaiters = new Map<number, () => void>();
  private closed = false;
  /** the watcher could not start: every call rescans (see the header) */
  private unwatched = false;
  private lastStart: IndexStatus | undefined;

  constructor(private readonly options: CodebaseIndexOptions) {
    this.root = path.resolve(options.workspaceRoot);
    this.runner = options.runner ?? new WorkerRunner();
  }

  get status(): IndexStatus | undefined {
    return this.lastStart;
  }

  /** Loads or builds the index and starts watching. Idempotent; ready() calls it. */
  start(): Promise<void> {
    this.started ??= this.open().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async open(): Promise<void> {
    const began = performance.now();
    // subscribe before the scan: a change made during the scan is queued, not lost
    if (this.options.watch !== false) {
      try {
        await this.subscribe();
      } catch (err) {
        await this.unsubscribe();
        this.unwatched = true;
        const reason = err instanceof Error ? err.message : String(err);
        this.options.onError?.(
          new Error(
            `the file watcher could not start (${reason}); each codebase call re-checks the workspace`,
          ),
        );
      }
    }
    // both asked at once: the worker walks the tree for the rescan while this thread applies the
    // stored records
    // the refused directories (Arbor's data directory) go to the worker, which cannot see them
    const excludedDirs = [
      ...(this.options.indexer?.excludedDirs ?? []),
      ...refusedDirs().flatMap((d) => [d.lexical, d.real]),
    ];
    const indexer = {
      ...this.options.indexer,
      ...(excludedDirs.length > 0 ? { excludedDirs } : {}),
    };
    const opened = this.runner.run({
      type: "open",
      root: this.root,
      ...(this.options.storeDir !== undefined ? { storeDir: this.options.storeDir } : {}),
      ...(Object.keys(indexer).length > 0 ? { options: indexer } : {}),
    });
    const scanned = this.runner.run({ type: "rescan" });
    let stored: OpenResult;
    try {
      stored = await opened;
    } finally {
      // its failure follows the open's
      scanned.catch(() => undefined);
    }
    this.symbols.apply({
      records: stored.records,
      strings: { from: 0, added: stored.strings },
      touched: [],
      removed: [],
      skipped: 0,
    });
    const changes = await scanned;
    this.symbols.apply(changes);
    this.lastStart = {
      files: this.symbols.fileCount,
      reread: changes.records.length,
      reused: this.symbols.fileCount - changes.records.length,
      startMs: performance.now() - began,
    };
  }

  private async subscribe(): Promise<void> {
    const watcher = await (this.options.watcher?.() ?? import("@parcel/watcher"));
    const base = this.options.storeDir ?? tmpdir();
    mkdirSync(base, { recursive: true, mode: PRIVATE_DIR_MODE });
    // the barrier directory is subscribed first: its callback then runs before the workspace's in
    // the same batch, and ready() yields once more after it (see barrier())
    this.barrierDir = mkdtempSync(path.join(base, "barrier-"));
    this.subscriptions.push(
      await watcher.subscribe(this.barrierDir, (_err, events) => {
        for (const event of events) {
          if (event.type !== "create") continue;
          rmSync(event.path, { force: true });
          const seq = Number(path.basename(event.path));
          for (const [waiting, resolve] of this.barrierWaiters) {
            if (waiting <= seq) {
              this.barrierWaiters.delete(waiting);
              resolve();
            }
          }
        }
      }),
    );
    this.subscriptions.push(
      await watcher.subscribe(
        this.root,
        (err, events) => {
          if (err !== null) {
            // events may have been lost (an inotify queue overflow): the next call rescans
            this.rescanWanted = true;
            this.options.onError?.(err);
            return;
          }
          for (const event of events) {
            if (refusedDirOf(event.path) !== undefined) continue;
            const rel = path.relative(this.root, event.path).split(path.sep).join("/");
            if (rel === "" || rel.startsWith("..")) continue;
            if (rel === ".gitignore" || rel.endsWith("/.gitignore")) this.rescanWanted = true;
            // a directory created, moved in or deleted: its files are found by a rescan
            else if (event.type !== "update" && !/\.[A-Za-z0-9]+$/.test(rel))
              this.rescanWanted = true;
            else this.dirty.add(rel);
            if (event.type === "delete") {
              for (const record of this.symbols.allFiles()) {
                if (record.path.startsWith(`${rel}/`)) this.dirty.add(record.path);
              }
            }
          }
          void this.drain();
        },
        { ignore: INDEX_EXCLUDED_DIRS.map((dir) => `**/${dir}/**`) },
      ),
    );
  }

  /** Arbor's own file tools report the files they wrote: re-read at once, before the next call. */
  changed(paths: readonly string[]): void {
    for (const p of paths) {
      const rel = path.isAbsolute(p) ? path.relative(this.root, p) : p;
      this.dirty.add(rel.split(path.sep).join("/"));
    }
    if (this.started !== undefined) void this.drain();
  }

  private drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        await this.start();
        while (!this.closed && (this.dirty.size > 0 || this.rescanWanted)) {
          if (this.rescanWanted) {
            this.rescanWanted = false;
            this.dirty.clear();
            this.symbols.apply(await this.runner.run({ type: "rescan" }));
            continue;
          }
          const paths = [...this.dirty];
          this.dirty = new Set();
          this.symbols.apply(await this.runner.run({ type: "update", paths }));
        }
      } catch (err) {
        this.options.onError?.(err instanceof Error ? err : new Error(String(err)));
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }

  /**
   * Resolves once the watcher has reported every change made before this call. A watcher that
   * stops reporting must not hang every tool call: after BARRIER_TIMEOUT_MS the call rescans the
   * tree instead, and onError says so.
   *
   * Why two barrier files: inotify reads events in order, so the workspace's events are read
   * before the first barrier's. But @parcel/watcher hands each subscription its share of a batch
   * from its debounce thread, one after another in no set order, so under load the barrier's
   * callback can run here before the workspace's callback of the same batch is even queued
   * (CI of 28 Nov). The second file is written once the first has arrived: parcel delivers it in
   * a later batch, after it has queued every callback of the first one, and those run first.
   */
  private async barrier(): Promise<void> {
    if ((await this.barrierFile()) === "reached") await this.barrierFile();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Writes one barrier file and waits for its event (or the timeout, then asks for a rescan). */
  private barrierFile(): Promise<"reached" | "timed out" | "no watcher"> {
    const dir = this.barrierDir;
    if (dir === undefined || this.closed || this.subscriptions.length === 0)
      return Promise.resolve("no watcher");
    const seq = ++this.barrierSeq;
    const reached = new Promise<"reached" | "timed out">((resolve) => {
      const timer = setTimeout(() => {
        this.barrierWaiters.delete(seq);
        // the watcher cannot vouch for the tree: this call re-checks it
        this.rescanWanted = true;
        this.options.onError?.(new Error("the file watcher did not report within 5 s"));
        resolve("timed out");
      }, BARRIER_TIMEOUT_MS);
      timer.unref();
      this.barrierWaiters.set(seq, () => {
        clearTimeout(timer);
        resolve("reached");
      });
    });
    writeFileSync(path.join(dir, String(seq)), "", { mode: PRIVATE_FILE_MODE });
    return reached;
  }

  /**
   * The index with every change made before this call applied: what each codebase tool awaits.
   * Throws when the first indexing fails (the tool then reports the error).
   */
  async ready(): Promise<SymbolIndex> {
    await this.start();
    if (this.unwatched) this.rescanWanted = true;
    else await this.barrier();
    while (this.draining !== undefined || this.dirty.size > 0 || this.rescanWanted) {
      await this.drain();
    }
    return this.symbols;
  }

  private async unsubscribe(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.unsubscribe().catch(() => undefined)));
    this.subscriptions = [];
    if (this.barrierDir !== undefined) rmSync(this.barrierDir, { recursive: true, force: true });
    this.barrierDir = undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.barrierWaiters.values()) resolve();
    this.barrierWaiters.clear();
    await this.unsubscribe();
    await this.draining?.catch(() => undefined);
    await this.runner.close();
  }
}
