import type { OpenRequest, OpenResult } from "./index-state.js";
import type { IndexChanges } from "./indexer.js";

// Messages between the index (main thread) and its indexing worker.

export type IndexTask =
  | ({ type: "open" } & OpenRequest)
  | { type: "update"; paths: string[] }
  | { type: "rescan" }
  | { type: "flush" };

export interface TaskResults {
  open: OpenResult;
  update: IndexChanges;
  rescan: IndexChanges;
  flush: null;
}

export type WorkerRequest = IndexTask & { id: number };

export type WorkerResponse =
  | { id: number; ok: true; result: TaskResults[keyof TaskResults] }
  | { id: number; ok: false; error: string };
