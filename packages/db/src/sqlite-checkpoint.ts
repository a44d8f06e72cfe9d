import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// WAL checkpoints on a thread of their own (docs/decisions/0020). SQLite's automatic checkpoint
// runs inside the COMMIT that crosses 1,000 pages of WAL, and a checkpoint fsyncs the log and the
// database file: on this machine that stalled the event loop of every session for 2–100 ms a few
// times a second under load. The app's connection therefore turns the automatic checkpoint off
// and this worker, with a connection of its own that reads and writes no rows, runs a PASSIVE
// checkpoint every CHECKPOINT_MS: it never blocks the writer or the readers, copies what the log
// holds into the database file, and lets the next writer restart the log from its beginning.
// Durability is unchanged: a commit is in the WAL when it returns, checkpointed or not.

export const CHECKPOINT_MS = 250;

// CommonJS, evaluated as the worker's whole program (no file to find next to a bundle)
const PROGRAM = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 5000 });
const checkpoint = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** a last checkpoint, then the worker's connection closes */
  close(): Promise<void>;
}

/** Starts checkpointing `file` on a worker thread; `onError` hears a checkpoint that failed. */
export function startCheckpointer(
  file: string,
  onError: (message: string) => void,
  intervalMs = CHECKPOINT_MS,
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(PROGRAM, { eval: true, workerData: { driver, file, intervalMs } });
  worker.unref();
  worker.on("message", (message: { error?: string }) => {
    if (message.error !== undefined) onError(message.error);
  });
  worker.on("error", (error) => onError(String(error)));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    async close() {
      // held open until its last checkpoint is done (unref'd, the process could end meanwhile)
      worker.ref();
      worker.postMessage("close");
      await exited;
    },
  };
}
