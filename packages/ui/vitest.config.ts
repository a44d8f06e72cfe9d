import { availableParallelism } from "node:os";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import { VitestNoSkips } from "../../scripts/no-skips.mjs";

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ["@arbor/source"] },
  test: {
    // a skipped test fails the run where CI is set (docs/decisions/0070)
    reporters: ["default", new VitestNoSkips()],
    environment: "jsdom",
    setupFiles: ["./vitest.setup.ts"],
    // test files share a worker process and its module cache instead of each re-importing
    // everything (docs/decisions/0077)
    isolate: false,
    // every core (Vitest leaves one free by default: one worker on a 2-core machine), 0078
    maxWorkers: availableParallelism(),
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "test/**/*.test.ts"],
  },
});
