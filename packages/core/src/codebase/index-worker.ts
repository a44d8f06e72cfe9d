import { parentPort } from "node:worker_threads";
import { Grammars } from "./file-analysis.js";
import { IndexState } from "./index-state.js";
import { runTask } from "./run-task.js";
import type { WorkerRequest, WorkerResponse } from "./worker-protocol.js";

// The indexing worker thread: walks, reads, parses and persists so the server's event loop never
// does. One request at a time, in order; each answered with its id.

const port = parentPort;
if (port === null) throw new Error("index-worker must run as a worker thread");
const state = new IndexState(new Grammars());

let queue: Promise<void> = Promise.resolve();
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
