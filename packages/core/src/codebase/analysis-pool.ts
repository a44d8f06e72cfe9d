import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { Outcome } from "./file-reader.js";
import type { FileStat } from "./file-record.js";
import { startWorker } from "./worker-entry.js";

// A large scan's reading and parsing, spread over several worker threads (started from the
// indexing worker, ended when the scan is done): tree-sitter parsing is the bulk of a cold index
// and one thread uses one core. Files go out in small batches, each to the worker that is free
// first, so one slow file does not hold the rest back.

/** Files a scan must read before it is worth starting workers for (their grammars load anew). */
export const PARALLEL_MIN_FILES = 200;
const BATCH = 24;

/** One file to read: its stat and the content hash the index knows for it, if any. */
export type AnalyseItem = [stat: FileStat, knownHash: string | undefined];

export interface AnalyseBatch {
  id: number;
  root: string;
  items: AnalyseItem[];
}

export type AnalyseReply =
  | { id: number; ok: true; outcomes: Outcome[] }
  | { id: number; ok: false; error: string };

/** How many analysis workers a large scan uses: one per core the process may use, at most 4. */
export function analysisWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** Reads `items` in `workers` threads; outcomes in the order of the items. */
export async function analyseInWorkers(
  root: string,
  items: readonly AnalyseItem[],
  workers: number,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(items.length);
  let next = 0;
  let batchId = 0;
  const threads: Worker[] = [];
  const run = (worker: Worker): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const send = (): void => {
        if (next >= items.length) {
          resolve();
          return;
        }
        const from = next;
        next = Math.min(items.length, next + BATCH);
        const id = ++batchId;
        const onMessage = (reply: AnalyseReply): void => {
          if (reply.id !== id) return;
          worker.off("message", onMessage);
          if (!reply.ok) {
            reject(new Error(reply.error));
            return;
          }
          reply.outcomes.forEach((outcome, i) => {
            outcomes[from + i] = outcome;
          });
          send();
        };
        worker.on("message", onMessage);
        worker.postMessage({
          id,
          root,
          items: items.slice(from, next),
        } satisfies AnalyseBatch);
      };
      worker.once("error", reject);
      worker.once("exit", (code) => {
        if (next < items.length || code !== 0)
          reject(new Error(`analysis worker exited (${code})`));
      });
      send();
    });
  try {
    const count = Math.max(1, Math.min(workers, Math.ceil(items.length / BATCH)));
    for (let i = 0; i < count; i++) {
      const worker = startWorker({ role: "analyse" });
      threads.push(worker);
    }
    await Promise.all(threads.map(run));
  } finally {
    await Promise.all(threads.map((worker) => worker.terminate()));
  }
  return outcomes;
}
