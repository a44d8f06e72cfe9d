import { defineConfig } from "vitest/config";
import { VitestNoSkips } from "../../scripts/no-skips.mjs";

export default defineConfig({
  resolve: { conditions: ["@arbor/source"] },
  test: {
    // a skipped test fails the run where CI is set (docs/decisions/0070)
    reporters: ["default", new VitestNoSkips()],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    pool: "forks",
  },
});
