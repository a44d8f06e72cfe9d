import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // the workspace packages' TypeScript sources (no build needed, never a stale dist). The tests
  // run in Vite's SSR environment, which takes its conditions from ssr.resolve.
  resolve: {
    conditions: ["@arbor/source"],
    alias: { "@/": fileURLToPath(new URL("./", import.meta.url)) },
  },
  ssr: { resolve: { conditions: ["@arbor/source", "node", "development|production"] } },
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules", ".next"],
    testTimeout: 20_000,
    setupFiles: ["./test/setup.ts"],
    pool: "forks",
  },
});
