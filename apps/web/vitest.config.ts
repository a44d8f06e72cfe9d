import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { VitestNoSkips } from "../../scripts/no-skips.mjs";

export default defineConfig({
  // the workspace packages' TypeScript sources (no build needed, never a stale dist). The tests
  // run in Vite's SSR environment, which takes its conditions from ssr.resolve.
  resolve: {
    conditions: ["@arbor/source"],
    alias: { "@/": fileURLToPath(new URL("./", import.meta.url)) },
  },
  ssr: { resolve: { conditions: ["@arbor/source", "node", "development|production"] } },
  test: {
    // a skipped test fails the run where CI is set (docs/decisions/0070)
    reporters: ["default", new VitestNoSkips()],
    include: ["**/*.test.ts"],
    exclude: ["node_modules", ".next"],
    testTimeout: 20_000,
    setupFiles: ["./test/setup.ts"],
    pool: "forks",
    // every core (Vitest leaves one free by default: one worker on a 2-core machine), 0078
    maxWorkers: availableParallelism(),
    // test files share a worker process and its module cache instead of each re-importing
    // everything (docs/decisions/0077)
    isolate: false,
  },
});
