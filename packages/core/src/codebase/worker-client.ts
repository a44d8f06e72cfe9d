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
 * Where the worker's entry is. Written so bundlers leave it alone (no `new URL("…", import.meta.url)`
 * or literal require): Next bundles core into its server chunks, where this module's URL is a
 * chunk's, so there the entry is core's own built file, found through the package's
 * `./codebase-worker` export from the app's directory.
 * - from TypeScript sources (tests, benches): index-worker.ts beside this file, loaded through tsx
 *   (a loader given by --import does not reach worker threads on Node 20);
 * - from core's build: index-worker.js beside this file.
 */
function workerEntry(): { url: URL; typescript: boolean } {
  const here = import.meta.url;
  if (/\/codebase\/worker-client\.ts$/.test(here)) {
    return {
      url: new URL(here.replace(/worker-client\.ts$/, "index-worker.ts")),
      typescript: true,
    };
  }
  if (/\/codebase\/worker-client\.js$/.test(here)) {
    return {
      url: new URL(here.replace(/worker-client\.js$/, "index-worker.js")),
      typescript: false,
    };
  }
  const specifier = ["@arbor", "core", "codebase-worker"].join("/");
  const resolved = createRequire(path.join(process.cwd(), "index.js")).resolve(specifier);
  return { url: pathToFileURL(resolved), typescript: false };
}

/** The eval'd bootstrap of a TypeScript worker: tsx from the working directory, then the entry. */
function typescriptBootstrap(entry: URL): string {
  return `import("tsx/esm/api").then((tsx) => tsx.tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(entry.href)}))`;
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
    const entry = workerEntry();
    const worker = entry.typescript
      ? new Worker(typescriptBootstrap(entry.url), { eval: true })
      : new Worker(entry.url);
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
