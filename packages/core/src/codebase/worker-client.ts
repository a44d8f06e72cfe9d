import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { Grammars } from "./file-analysis.js";
import { IndexState } from "./index-state.js";
import { runTask } from "./run-task.js";
import type { IndexTask, TaskResults, WorkerRequest, WorkerResponse } from "./worker-protocol.js";

// The main thread's side of the indexing worker. Tasks are answered in order. The worker starts
// on first use and ends with close(). From TypeScript sources (tests, benches) the worker loads
// its .ts entry through tsx; from the build, the compiled .js beside this file.

/**
 * tsx's ESM API, found from this file through its package.json exports (Vite's module runner,
 * which runs the web tests, has no import.meta.resolve, and require.resolve picks the CJS build).
 */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const exports = (
    require(manifest) as { exports: Record<string, { import: { default: string } }> }
  ).exports;
  const entry = exports["./esm/api"]?.import.default ?? "./dist/esm/api/index.mjs";
  return pathToFileURL(path.join(path.dirname(manifest), entry)).href;
}

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
    const worker = import.meta.url.endsWith(".ts")
      ? // from sources: tsx loads the worker's TypeScript (a loader given by --import does not
        // reach worker threads on Node 20)
        new Worker(
          `import(${JSON.stringify(tsxApiUrl())}).then((tsx) => tsx.tsImport(${JSON.stringify(new URL("./index-worker.ts", import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`,
          { eval: true },
        )
      : new Worker(new URL("./index-worker.js", import.meta.url));
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
