import type { Worker } from "node:worker_threads";
import { Grammars } from "./file-analysis.js";
import { IndexState } from "./index-state.js";
import { runTask } from "./run-task.js";
import { startWorker } from "./worker-entry.js";
import type { IndexTask, TaskResults, WorkerRequest, WorkerResponse } from "./worker-protocol.js";

// The main thread's side of the indexing worker. Tasks are answered in order. The worker starts
// on first use and ends with close() (worker-entry.ts finds its entry).

export interface IndexRunner {
  run<T extends IndexTask>(task: T): Promise<TaskResults[T["type"]]>;
  close(): Promise<void>;
}

/** Indexes on the calling thread: for unit tests only; the server uses WorkerRunner. */
export function inlineRunner(): IndexRunner {
  const state = new IndexState(new Grammars());
  return {
    run: async <T extends IndexTask>(task: T) =>
      (await runTask(state, task)) as TaskResults[T["type"]],
    close: async () => {
      state.flush();
    },
  };
}

export class WorkerRunner implements IndexRunner {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (err: Error) => void }
  >();

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startWorker({ role: "index" });
    worker.unref();
    worker.on("message", (response: WorkerResponse) => {
      const waiter = this.pending.get(response.id);
      if (waiter === undefined) return;
      this.pending.delete(response.id);
      if (response.ok) waiter.resolve(response.result);
      else waiter.reject(new Error(response.error));
    });
    const failAll = (err: Error): void => {
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on("error", failAll);
    worker.on("exit", (code) => failAll(new Error(`indexing worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  run<T extends IndexTask>(task: T): Promise<TaskResults[T["type"]]> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      worker.postMessage({ ...task, id } satisfies WorkerRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    // the last changes reach the disk before the thread ends
    await this.run({ type: "flush" }).catch(() => undefined);
    this.worker = undefined;
    await worker.terminate();
  }
}
