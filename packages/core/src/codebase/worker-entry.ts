import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

// Starting a codebase worker thread: the indexing worker (worker-client.ts) and, from inside it,
// the analysis workers of a large scan (analysis-pool.ts). One entry serves both; `role` in the
// worker data says which. From TypeScript sources (tests, benches) the entry is loaded through
// tsx; from the build, the compiled .js beside this file.

export interface WorkerRole {
  role: "index" | "analyse";
}

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
  // tsx marks the modules it loads with a query: the file is what matters
  const here = import.meta.url.replace(/[?#].*$/, "");
  if (/\/codebase\/worker-entry\.ts$/.test(here)) {
    return {
      url: new URL(here.replace(/worker-entry\.ts$/, "index-worker.ts")),
      typescript: true,
    };
  }
  if (/\/codebase\/worker-entry\.js$/.test(here)) {
    return {
      url: new URL(here.replace(/worker-entry\.js$/, "index-worker.js")),
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

/** A codebase worker thread with the given role. */
export function startWorker(data: WorkerRole): Worker {
  const entry = workerEntry();
  return entry.typescript
    ? new Worker(typescriptBootstrap(entry.url), { eval: true, workerData: data })
    : new Worker(entry.url, { workerData: data });
}
