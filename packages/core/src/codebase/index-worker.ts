import { parentPort, workerData } from "node:worker_threads";
import { type AnalyseBatch, type AnalyseReply, analysisWorkers } from "./analysis-pool.js";
import { Grammars } from "./file-analysis.js";
import { type Outcome, readOne } from "./file-reader.js";
import { IndexState } from "./index-state.js";
import { runTask } from "./run-task.js";
import type { WorkerRole } from "./worker-entry.js";
import type { WorkerRequest, WorkerResponse } from "./worker-protocol.js";

// A codebase worker thread. As the indexing worker (role "index"): walks, reads, parses and
// persists so the server's event loop never does; one request at a time, in order, each answered
// with its id. As an analysis worker (role "analyse", started by the indexing worker for a large
// scan): reads and parses the batches of files it is given.

const port = parentPort;
if (port === null) throw new Error("index-worker must run as a worker thread");
const role = (workerData as WorkerRole | undefined)?.role ?? "index";
const grammars = new Grammars();

let queue: Promise<void> = Promise.resolve();
if (role === "analyse") {
  port.on("message", (batch: AnalyseBatch) => {
    queue = queue.then(async () => {
      let reply: AnalyseReply;
      try {
        const outcomes: Outcome[] = [];
        for (const [stat, hash] of batch.items) {
          outcomes.push(await readOne(grammars, batch.root, stat, hash));
        }
        reply = { id: batch.id, ok: true, outcomes };
      } catch (err) {
        reply = {
          id: batch.id,
          ok: false,
          error: err instanceof Error ? err.message : String(err),
        };
      }
      port.postMessage(reply);
    });
  });
} else {
  const state = new IndexState(grammars, { workers: analysisWorkers() });
  port.on("message", (request: WorkerRequest) => {
    queue = queue.then(async () => {
      let response: WorkerResponse;
      try {
        response = { id: request.id, ok: true, result: await runTask(state, request) };
      } catch (err) {
        response = {
          id: request.id,
          ok: false,
          error: err instanceof Error ? err.message : String(err),
        };
      }
      port.postMessage(response);
    });
  });
}
