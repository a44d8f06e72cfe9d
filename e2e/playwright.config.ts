import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineConfig } from "@playwright/test";
import { E2E_TOKEN } from "./tests/e2e-token.js";
import { MCP_CONFIG } from "./tests/mcp-config.js";

// The e2e suite starts the app as a user would (the production build, `next start`), once pointed
// at the runtime's fake LLM server over HTTP (Anthropic wire format) and once with no provider
// configured (the offline model). Chromium is Debian's (/usr/bin/chromium): Playwright's own
// browser download cannot be fetched on these machines.

// Ports can be moved (E2E_FAKE_LLM_PORT, E2E_APP_PORT, E2E_OFFLINE_APP_PORT) so two runs, or a run
// and a developer's own servers, can share a machine. tests/fake-llm.ts reads the same variable.
function port(variable: string, fallback: number): number {
  const value = Number(process.env[variable]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
export const FAKE_LLM_PORT = port("E2E_FAKE_LLM_PORT", 8787);
export const APP_PORT = port("E2E_APP_PORT", 3100);
export const OFFLINE_APP_PORT = port("E2E_OFFLINE_APP_PORT", 3101);
const E2E_WORKERS = port("E2E_WORKERS", 1);

const root = resolve(import.meta.dirname, "..");
const workspace = join(import.meta.dirname, "fixtures", "workspace");
const fakeLlmCli = join(root, "packages", "core", "dist", "testing", "fake-llm-server", "cli.js");

// Each run gets fresh databases so tests start from nothing.
const dataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-"));
const offlineDataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-offline-"));

// The security suite (security/) starts servers of its own in each spec file: a run of that
// project alone (`--project=security`) does not start the shared ones below.
const securityOnly = /(?:^|\s)--project[= ](?:security|multi)(?:\s|$)/.test(process.argv.join(" "));

const withToken = { authorization: `Bearer ${E2E_TOKEN}` };

/** Only what the app needs: no provider keys leak in from the developer's shell. */
function appEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    WORKSPACE_DIR: workspace,
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
  // One worker by default; E2E_WORKERS=2 runs two: the projects that share one fake LLM server or
  // one app (fake-llm, offline) and the multi-instance specs take one worker each at most, so
  // their files still run one after another; the security specs start servers of their own on free
  // ports and fill whatever worker is free. Two are not the default yet: under them a few tests
  // that act mid-stream lost their race on a fresh clone (docs/decisions/0078).
  fullyParallel: false,
  workers: E2E_WORKERS,
  // on CI a failed test runs once more; one that passes then is listed as flaky by name with its
  // first error, and a skipped one still fails the run (no-skips.mjs, docs/decisions/0072)
  retries: process.env.CI && process.env.CI !== "false" ? 1 : 0,
  // a skipped test fails the run where CI is set (docs/decisions/0070)
  reporter: [["list"], ["../scripts/no-skips.mjs"]],
  use: {
    screenshot: "on",
    trace: "retain-on-failure",
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
      // every file scripts the one fake LLM server's answers: one file at a time
      workers: 1,
      use: { baseURL: `http://127.0.0.1:${APP_PORT}`, extraHTTPHeaders: withToken },
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
        {
          command: `node ${fakeLlmCli} --port ${FAKE_LLM_PORT}`,
          url: `http://127.0.0.1:${FAKE_LLM_PORT}/__fake/requests`,
          reuseExistingServer: false,
          timeout: 30_000,
        },
        {
          command: "pnpm --dir ../apps/web start",
          url: `http://127.0.0.1:${APP_PORT}`,
          reuseExistingServer: false,
          timeout: 120_000,
          env: appEnv({
            PORT: String(APP_PORT),
            ARBOR_DATA_DIR: dataDir,
            ARBOR_PROVIDER: "anthropic",
            ARBOR_MODEL: "claude-e2e",
            ANTHROPIC_BASE_URL: `http://127.0.0.1:${FAKE_LLM_PORT}`,
            ANTHROPIC_API_KEY: "e2e-key",
            // absent until mcp.spec.ts writes it
            ARBOR_MCP_CONFIG: MCP_CONFIG,
          }),
        },
        {
          command: "pnpm --dir ../apps/web start",
          url: `http://127.0.0.1:${OFFLINE_APP_PORT}`,
          reuseExistingServer: false,
          timeout: 120_000,
          env: appEnv({ PORT: String(OFFLINE_APP_PORT), ARBOR_DATA_DIR: offlineDataDir }),
        },
      ],
});
