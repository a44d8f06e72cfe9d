import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../test/support/tool-test-context.js";
import { createBashTool } from "./builtin/bash.js";
import { createDefaultTools } from "./builtin/default-tools.js";
import { detectSandbox, probeBubblewrap, type Sandbox, sandboxSettings } from "./sandbox.js";
import { toolEnvironment } from "./tool-env.js";

// These tests run the real bwrap (Debian's bubblewrap package; scripts/arbor.mjs installs it
// for the test run). Without it they are skipped, and the probe test says why.

const bwrap = await probeBubblewrap();
const withBwrap = describe.skipIf(!bwrap.ok);

let base: string;
let workspace: string;
let dataDir: string;
const SECRET = "sk-ant-test-secret-0123456789";
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-sandbox-")));
  workspace = path.join(base, "ws");
  dataDir = path.join(base, "data");
  await mkdir(workspace);
  await mkdir(dataDir);
  await writeFile(path.join(dataDir, "token"), "install-token-abcdef\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end("reachable"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const serverEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/root",
  ANTHROPIC_API_KEY: SECRET,
  ARBOR_TOKEN: "install-token-abcdef",
};

async function sandboxed(network = false): Promise<Extract<Sandbox, { mode: "bubblewrap" }>> {
  const sandbox = await detectSandbox({
    env: { ARBOR_SANDBOX: "bubblewrap", ARBOR_SANDBOX_NETWORK: network ? "1" : undefined },
    hiddenPaths: [dataDir],
  });
  if (sandbox.mode !== "bubblewrap") throw new Error(`no sandbox: ${JSON.stringify(sandbox)}`);
  return sandbox;
}

async function run(command: string, sandbox: Sandbox): Promise<string> {
  const tool = createBashTool({
    workspaceRoot: workspace,
    sandbox,
    env: toolEnvironment({ env: serverEnv, workspaceRoot: workspace }),
  });
  const result = await tool.execute({ command }, createRecordingContext("bash"));
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

describe("detectSandbox", () => {
  it("reports how bubblewrap was found", () => {
    // a machine without bwrap must say so plainly (the sandbox tests below are then skipped)
    expect(bwrap.ok || /bwrap/.test((bwrap as { reason: string }).reason)).toBe(true);
  });

  it("ARBOR_SANDBOX=off runs without a sandbox and says why", async () => {
    const sandbox = await detectSandbox({ env: { ARBOR_SANDBOX: "off" } });
    expect(sandboxSettings(sandbox)).toEqual({
      mode: "none",
      network: true,
      reason: "ARBOR_SANDBOX=off",
    });
  });

  it("a required bubblewrap that does not exist refuses every command", async () => {
    const sandbox = await detectSandbox({
      env: { ARBOR_SANDBOX: "bubblewrap" },
      command: path.join(tmpdir(), "no-such-bwrap"),
    });
    expect(sandbox.mode).toBe("unavailable");
    expect(sandboxSettings(sandbox)).toMatchObject({ mode: "none", network: false });
    const tool = createBashTool({ workspaceRoot: tmpdir(), sandbox });
    await expect(tool.execute({ command: "true" }, createRecordingContext())).rejects.toThrow(
      /^Command refused: ARBOR_SANDBOX=bubblewrap, but .*no-such-bwrap is not installed/,
    );
  });

  it("auto without bwrap runs unconfined and says why", async () => {
    const sandbox = await detectSandbox({
      env: {},
      command: path.join(tmpdir(), "no-such-bwrap"),
    });
    expect(sandbox).toMatchObject({ mode: "none", reason: expect.stringMatching(/not installed/) });
  });
});

withBwrap("bash in bubblewrap", () => {
  it("auto picks bubblewrap, without network unless ARBOR_SANDBOX_NETWORK=1", async () => {
    expect(sandboxSettings(await detectSandbox({ env: {} }))).toEqual({
      mode: "bubblewrap",
      network: false,
    });
    expect(sandboxSettings(await detectSandbox({ env: { ARBOR_SANDBOX_NETWORK: "1" } }))).toEqual({
      mode: "bubblewrap",
      network: true,
    });
  });

  it("the environment holds no secret, and no process outside the sandbox is visible", async () => {
    const out = await run(
      "env; echo ---; cat /proc/1/environ | tr '\\0' '\\n'; echo ---; cat /proc/$PPID/environ | tr '\\0' '\\n'; echo ---; ls /proc | grep -cE '^[0-9]+$'",
      await sandboxed(),
    );
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain("install-token");
    expect(out).toContain(`WORKSPACE_DIR=${workspace}`);
    // only the sandbox's own few processes exist in its PID namespace
    const count = Number(out.trim().split("\n").at(-1));
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(6);
  });

  it("writes inside the workspace, nowhere else; /tmp is its own; the data dir is hidden", async () => {
    const hostTmpProbe = `/tmp/arbor-sandbox-probe-${process.pid}-${Date.now()}`;
    await writeFile(path.join(base, "outside.txt"), "original");
    const out = await run(
      [
        "echo made > inside.txt && echo inside-ok",
        // base is under /tmp: inside, that is the sandbox's own /tmp, so the real file is untouched
        `echo changed > ${path.join(base, "outside.txt")}`,
        "touch /etc/arbor-test || echo etc-refused",
        `echo t > ${hostTmpProbe} && echo tmp-ok`,
        `ls -A ${dataDir} | wc -l`,
        `cat ${path.join(dataDir, "token")} || echo token-hidden`,
      ].join("; "),
      await sandboxed(),
    );
    expect(out).toContain("inside-ok");
    expect(out).toContain("etc-refused");
    expect(out).toContain("tmp-ok");
    expect(out).toContain("token-hidden");
    expect(await readFile(path.join(workspace, "inside.txt"), "utf8")).toBe("made\n");
    expect(await readFile(path.join(base, "outside.txt"), "utf8")).toBe("original");
    // the sandbox's /tmp is its own: the host's /tmp never saw the file
    expect(existsSync(hostTmpProbe)).toBe(false);
  });

  it("has no network unless allowed", async () => {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 || echo no-network`;
    expect(await run(probe, await sandboxed(false))).toContain("no-network");
    expect(await run(probe, await sandboxed(true))).toContain("reachable");
  });

  it("interrupting a sandboxed `sleep 20` ends the call at once and kills everything inside", async () => {
    const tool = createBashTool({ workspaceRoot: workspace, sandbox: await sandboxed() });
    const ctx = createRecordingContext("bash");
    const marker = path.join(workspace, "late");
    const running = tool.execute({ command: `(sleep 1; touch ${marker}) & sleep 20` }, ctx);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    ctx.controller.abort();
    await expect(running).rejects.toMatchObject({ kind: "cancelled" });
    expect(Date.now() - t0).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 1200));
    expect(existsSync(marker)).toBe(false);
  });

  it("the default tools redact secret values from what a command prints", async () => {
    const tools = createDefaultTools({
      workspaceRoot: workspace,
      env: { ...serverEnv, ARBOR_TOOL_ENV: "ANTHROPIC_API_KEY,MY_TOKEN", MY_TOKEN: "abcdef123456" },
      sandbox: await sandboxed(),
    });
    const bash = tools.find((tool) => tool.name === "bash");
    const result = await bash?.execute(
      { command: `echo "$MY_TOKEN ${SECRET}"; echo "key=[$ANTHROPIC_API_KEY]"` },
      createRecordingContext("bash"),
    );
    expect(result?.content).toEqual([
      { type: "text", text: "Exit code: 0\n[redacted] [redacted]\nkey=[]\n" },
    ]);
  });
});
