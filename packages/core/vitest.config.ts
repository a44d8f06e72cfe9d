import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { VitestNoSkips } from "../../scripts/no-skips.mjs";

// Test files that register OpenTelemetry's process-wide globals (an SDK, or none on purpose) and
// count every span or metric point: each runs in a process of its own.
const OWN_PROCESS = [
  "src/telemetry/**/*.test.ts",
  "src/context/session/session-telemetry.test.ts",
  "src/context/session/optimization-per-message.test.ts",
];

export default defineConfig({
  resolve: { conditions: ["@arbor/source"] },
  test: {
    // a skipped test fails the run where CI is set (docs/decisions/0070)
    reporters: ["default", new VitestNoSkips()],
    testTimeout: 20_000,
    pool: "forks",
    // every core (Vitest leaves one free by default: one worker on a 2-core machine), 0078
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        // the other files share a worker process and its module cache instead of each
        // re-importing the runtime (docs/decisions/0077)
        test: {
          name: "core",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          isolate: false,
        },
      },
      { extends: true, test: { name: "core-telemetry", include: OWN_PROCESS } },
    ],
  },
});
