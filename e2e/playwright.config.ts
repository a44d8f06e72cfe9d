import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineConfig } from "@playwright/test";
import { E2E_TOKEN } from "./tests/e2e-token.js";
import { FIXTURE_WORKSPACE, LANE, lane, OFFLINE_APP_PORT } from "./tests/lane.js";

// The e2e suite starts the app as a user would (the production build, `next start`), once pointed
// at the runtime's fake LLM server over HTTP (Anthropic wire format) and once with no provider
// configured (the offline model). Chromium is Debian's (/usr/bin/chromium): Playwright's own
// browser download cannot be fetched on these machines.

// Ports can be moved (E2E_FAKE_LLM_PORT, E2E_APP_PORT, E2E_OFFLINE_APP_PORT) so two runs, or a run
// and a developer's own servers, can share a machine: tests/lane.ts reads the same variables.
// One worker per core, four at most (each worker's lane is an app of its own); E2E_WORKERS=N sets N.
const requestedWorkers = Number(process.env.E2E_WORKERS);
const E2E_WORKERS =
  Number.isInteger(requestedWorkers) && requestedWorkers > 0
    ? requestedWorkers
    : Math.min(availableParallelism(), 4);
// one lane (fake LLM server + app + workspace copy) per worker: tests/lane.ts
const LANES = Array.from({ length: E2E_WORKERS }, (_, index) => lane(index));

const root = resolve(import.meta.dirname, "..");
const fakeLlmCli = join(root, "packages", "core", "dist", "testing", "fake-llm-server", "cli.js");

// Each run gets fresh databases and fresh workspace copies so tests start from nothing. Playwright
// loads this file again in each worker (to find its lane): only the runner makes them.
const isRunner = process.env.TEST_WORKER_INDEX === undefined;
const freshDir = (prefix: string) => (isRunner ? mkdtempSync(join(tmpdir(), prefix)) : "");
const offlineDataDir = freshDir("arbor-e2e-offline-");
if (isRunner) {
  for (const { workspace, mcpConfig } of LANES) {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(mcpConfig, { force: true });
    cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  }
}

// The security suite (security/) starts servers of its own in each spec file: a run of that
// project alone (`--project=security`) does not start the shared ones below.
const securityOnly = /(?:^|\s)--project[= ](?:security|multi)(?:\s|$)/.test(process.argv.join(" "));

const onCi = Boolean(process.env.CI) && process.env.CI !== "false";

const withToken = { authorization: `Bearer ${E2E_TOKEN}` };

/** Only what the app needs: no provider keys leak in from the developer's shell. */
function appEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    ARBOR_TOKEN: E2E_TOKEN,
    // the model's title request would take a scripted answer (chat-ux.spec turns it on itself)
    ARBOR_TITLES: "first_message",
    ...extra,
  };
}

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // E2E_WORKERS workers (default: one per core, four at most), each fake-llm file on its worker's
  // own lane (tests/lane.ts); the offline app and the multi-instance specs take one worker at most; the security specs start
  // servers of their own on free ports and fill whatever worker is free (docs/decisions/0079).
  fullyParallel: false,
  workers: E2E_WORKERS,
  // on CI a failed test runs once more; one that passes then is listed as flaky by name with its
  // first error, and a skipped one still fails the run (no-skips.mjs, docs/decisions/0072)
  retries: onCi ? 1 : 0,
  // a skipped test fails the run where CI is set (docs/decisions/0070)
  reporter: [["list"], ["../scripts/no-skips.mjs"]],
  use: {
    // A screenshot and a trace only for a test that failed (on CI: a trace of its second try).
    // Recording them for every test cost a quarter of the suite's time on a 2-core machine, where
    // the e2e suite is bound by CPU (docs/decisions/0079).
    screenshot: "only-on-failure",
    trace: onCi ? "on-first-retry" : "retain-on-failure",
    // The pages are seen as by a person who asked for reduced motion: the UI's pulsing dots
    // (motion-safe:animate-pulse) then stand still. Each one that pulses costs Chromium about a
    // tenth of a core while it is on screen (docs/decisions/0082).
    reducedMotion: "reduce",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [
    {
      name: "fake-llm",
      testIgnore: /offline\.spec\.ts/,
      // each worker's files script the fake LLM server of the worker's own lane (tests/lane.ts)
      use: { baseURL: `http://127.0.0.1:${LANE.appPort}`, extraHTTPHeaders: withToken },
    },
    {
      name: "offline",
      testMatch: /offline\.spec\.ts/,
      workers: 1,
      use: { baseURL: `http://127.0.0.1:${OFFLINE_APP_PORT}`, extraHTTPHeaders: withToken },
    },
    {
      // issue #17's multi-instance suite: two servers on one PostgreSQL, started by the spec
      name: "multi",
      testDir: "./multi",
      // each spec runs two or three apps on a PostgreSQL cluster of its own: one spec at a time
      workers: 1,
      timeout: 180_000,
      use: { screenshot: "off", trace: "off" },
    },
    {
      // issue #9's security suite: plain HTTP against servers each spec starts (security/README.md)
      name: "security",
      testDir: "./security",
      // a spec's beforeAll starts its own servers (two tries of 45 s at most, harness.ts)
      timeout: 180_000,
      use: { screenshot: "off", trace: "off" },
    },
  ],
  webServer: securityOnly
    ? []
    : [
        ...LANES.flatMap((l) => [
          {
            command: `node ${fakeLlmCli} --port ${l.fakeLlmPort}`,
            url: `http://127.0.0.1:${l.fakeLlmPort}/__fake/requests`,
            reuseExistingServer: false,
            timeout: 30_000,
          },
          {
            command: "pnpm --dir ../apps/web start",
            url: `http://127.0.0.1:${l.appPort}`,
            reuseExistingServer: false,
            timeout: 120_000,
            env: appEnv({
              PORT: String(l.appPort),
              ARBOR_DATA_DIR: freshDir(`arbor-e2e-${l.index}-`),
              WORKSPACE_DIR: l.workspace,
              ARBOR_PROVIDER: "anthropic",
              ARBOR_MODEL: "claude-e2e",
              ANTHROPIC_BASE_URL: `http://127.0.0.1:${l.fakeLlmPort}`,
              ANTHROPIC_API_KEY: "e2e-key",
              // absent until mcp.spec.ts writes it
              ARBOR_MCP_CONFIG: l.mcpConfig,
            }),
          },
        ]),
        {
          command: "pnpm --dir ../apps/web start",
          url: `http://127.0.0.1:${OFFLINE_APP_PORT}`,
          reuseExistingServer: false,
          timeout: 120_000,
          env: appEnv({
            PORT: String(OFFLINE_APP_PORT),
            ARBOR_DATA_DIR: offlineDataDir,
            WORKSPACE_DIR: FIXTURE_WORKSPACE,
          }),
        },
      ],
});
