#!/usr/bin/env node
// The README's commands. Needs only Node 20 and npm: it fetches pnpm into .tools/ (corepack's
// signature check fails on these machines), installs the workspace, then runs the task.
//   node scripts/arbor.mjs start   build and start the app
//   node scripts/arbor.mjs test    every test in the repo (lint, types, unit, integration, e2e)
//   node scripts/arbor.mjs bench   the benchmarks; figures go to bench-results/
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pnpmVersion = pkg.packageManager.split("@")[1];
const toolsDir = join(root, ".tools");
const pnpmBin = join(toolsDir, "node_modules", "pnpm", "bin", "pnpm.cjs");

const env = {
  ...process.env,
  // turbo runs each package's scripts with the package manager it finds on PATH
  PATH: `${join(toolsDir, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`,
  NEXT_TELEMETRY_DISABLED: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
};

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function ensurePnpm() {
  if (existsSync(pnpmBin)) {
    const v = JSON.parse(
      readFileSync(join(toolsDir, "node_modules", "pnpm", "package.json"), "utf8"),
    );
    if (v.version === pnpmVersion) return;
  }
  console.log(`[arbor] fetching pnpm ${pnpmVersion} into .tools/`);
  run("npm", [
    "install",
    "--prefix",
    toolsDir,
    "--no-save",
    "--no-audit",
    "--no-fund",
    `pnpm@${pnpmVersion}`,
  ]);
}

function pnpm(...args) {
  run(process.execPath, [pnpmBin, ...args]);
}

/**
 * System tools the tests use, from Debian's packages when missing and we may install them (root
 * with apt-get, as on CI and our machines): Chromium for the e2e suite (Playwright's own browser
 * download cannot be fetched), ripgrep for the search tool's rg path (grep is the fallback),
 * PostgreSQL 15 for the PostgreSQL half of the store's tests and the multi-instance e2e suite (they
 * start throwaway clusters from its binaries; none is left running). A test never skips for a
 * missing tool: without it, it fails and says which.
 */
function ensureSystemTools() {
  const missing = [];
  if (!existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium")) missing.push("chromium");
  if (spawnSync("sh", ["-c", "command -v rg"], { stdio: "ignore" }).status !== 0)
    missing.push("ripgrep");
  // the sandbox of bash and stdio MCP servers (ARBOR_SANDBOX=auto uses it when present); the
  // sandbox tests fail without it
  if (spawnSync("sh", ["-c", "command -v bwrap"], { stdio: "ignore" }).status !== 0)
    missing.push("bubblewrap");
  const pgBin = process.env.ARBOR_PG_BIN ?? "/usr/lib/postgresql/15/bin";
  if (!existsSync(`${pgBin}/initdb`) || !existsSync(`${pgBin}/pg_ctl`)) missing.push("postgresql");
  if (missing.length === 0) return;
  const canInstall =
    process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0;
  if (!canInstall) {
    console.warn(
      `[arbor] missing ${missing.join(", ")}: install them (e.g. apt-get install ${missing.join(" ")})`,
    );
    return;
  }
  console.log(`[arbor] installing ${missing.join(", ")} from Debian's packages`);
  run("sh", ["-c", `apt-get update -qq && apt-get install -y -qq ${missing.join(" ")} >/dev/null`]);
}

const task = process.argv[2];
ensurePnpm();
pnpm("install", `--frozen-lockfile=${process.env.CI ? "true" : "false"}`);

switch (task) {
  case "start":
    // the file tools work in the directory the user started the app from (npm sets INIT_CWD),
    // not in apps/web where pnpm runs the start script
    env.WORKSPACE_DIR ??= process.env.INIT_CWD ?? process.cwd();
    pnpm("turbo", "run", "build", "--filter=@arbor/web...");
    pnpm("--filter", "@arbor/web", "start");
    break;
  case "test":
    ensureSystemTools();
    pnpm("exec", "biome", "check", ".");
    // test results are never replayed from turbo's cache (turbo.json: test has cache off); on CI
    // nothing is (--force), so every check runs on the commit under test (docs/decisions/0070)
    // Builds and type checks first, two at a time: tsc uses one core, so a package's check runs
    // beside the next package's build. Then the tests one package at a time (--only: their builds
    // are done), since Vitest and the e2e suite each use every core (docs/decisions/0082).
    pnpm(
      "turbo",
      "run",
      "build",
      "typecheck",
      "--concurrency=2",
      ...(process.env.CI ? ["--force"] : []),
    );
    pnpm(
      "turbo",
      "run",
      "test",
      "--only",
      "--concurrency=1",
      ...(process.env.CI ? ["--force"] : []),
    );
    break;
  case "bench":
    pnpm("turbo", "run", "bench", "--concurrency=1");
    break;
  default:
    console.error("usage: node scripts/arbor.mjs start|test|bench");
    process.exit(2);
}
