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
import {
  bubblewrapArgs,
  detectSandbox,
  probeBubblewrap,
  type Sandbox,
  type SandboxExposure,
  sandboxGate,
  sandboxSettings,
} from "./sandbox.js";
import { toolEnvironment } from "./tool-env.js";

// These tests run the real bwrap (Debian's bubblewrap package; scripts/arbor.mjs installs it
// for the test run). Without it they fail, saying why: a sandbox test that skips itself cannot
// notice the sandbox is gone.

const bwrap = await probeBubblewrap();

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

describe("sandboxGate", () => {
  const bubblewrap: Sandbox = {
    mode: "bubblewrap",
    command: "bwrap",
    network: false,
    hiddenPaths: [],
  };
  const optedOut: Sandbox = { mode: "none", cause: "opted_out", reason: "ARBOR_SANDBOX=off" };
  const notWorking: Sandbox = {
    mode: "none",
    cause: "not_working",
    reason: "bwrap is not installed",
  };
  const unavailable: Sandbox = {
    mode: "unavailable",
    reason: "ARBOR_SANDBOX=bubblewrap, but bwrap is not installed",
  };
  const exposures: Array<[string, SandboxExposure]> = [
    ["loopback, a person approves", { servingBeyondLoopback: false, personApproves: true }],
    ["loopback, nobody approves", { servingBeyondLoopback: false, personApproves: false }],
    ["beyond loopback, a person approves", { servingBeyondLoopback: true, personApproves: true }],
    ["beyond loopback, nobody approves", { servingBeyondLoopback: true, personApproves: false }],
  ];
  const verdicts = (sandbox: Sandbox) =>
    exposures.map(([name, exposure]) => [name, sandboxGate({ sandbox, ...exposure }).type]);

  it("confines everything when bubblewrap works", () => {
    expect(verdicts(bubblewrap)).toEqual(exposures.map(([name]) => [name, "confined"]));
  });

  it("runs everything unconfined after an explicit opt-out", () => {
    expect(verdicts(optedOut)).toEqual(exposures.map(([name]) => [name, "unconfined"]));
  });

  it("refuses everything when a required bubblewrap does not work", () => {
    expect(verdicts(unavailable)).toEqual(exposures.map(([name]) => [name, "refused"]));
  });

  it("without a working sandbox under auto, runs only what a person approves on loopback", () => {
    expect(verdicts(notWorking)).toEqual([
      ["loopback, a person approves", "unconfined"],
      ["loopback, nobody approves", "refused"],
      ["beyond loopback, a person approves", "refused"],
      ["beyond loopback, nobody approves", "refused"],
    ]);
  });

  it("says why it refuses and how to fix it", () => {
    const beyond = sandboxGate({
      sandbox: notWorking,
      servingBeyondLoopback: true,
      personApproves: true,
    });
    expect(beyond).toEqual({
      type: "refused",
      reason:
        "there is no working sandbox (bwrap is not installed) and this server is reachable beyond loopback; " +
        "install bubblewrap (apt-get install bubblewrap) and restart Arbor, or set ARBOR_SANDBOX=off to run tool processes unconfined",
    });
    const unattended = sandboxGate({
      sandbox: notWorking,
      servingBeyondLoopback: false,
      personApproves: false,
    });
    expect(unattended).toMatchObject({
      type: "refused",
      reason: expect.stringMatching(/^there is no working sandbox .* no person approves this run/),
    });
    expect(
      sandboxGate({ sandbox: unavailable, servingBeyondLoopback: false, personApproves: true }),
    ).toMatchObject({
      type: "refused",
      reason: expect.stringMatching(/^ARBOR_SANDBOX=bubblewrap, but .*apt-get install bubblewrap/),
    });
  });

  it("the settings say what is refused", () => {
    expect(sandboxSettings(notWorking)).toEqual({
      mode: "none",
      network: true,
      reason: "bwrap is not installed",
      refused: "unattended",
      fix: expect.stringMatching(/apt-get install bubblewrap.*ARBOR_SANDBOX=off/),
    });
    expect(sandboxSettings(notWorking, true).refused).toBe("all");
    expect(sandboxSettings(optedOut, true).refused).toBe("none");
    expect(sandboxSettings(bubblewrap, true)).toEqual({
      mode: "bubblewrap",
      network: false,
      refused: "none",
    });
  });
});

describe("bubblewrapArgs", () => {
  it("a program installed under /tmp is seen read-only; the rest of the host's /tmp is not", async () => {
    const installed = await realpath(await mkdtemp(path.join("/tmp", "arbor-installed-")));
    const script = path.join(installed, "node_modules", "server", "index.js");
    await mkdir(path.dirname(script), { recursive: true });
    await writeFile(script, "process.stdout.write('seen')");
    const workspace = await realpath(await mkdtemp(path.join(tmpdir(), "arbor-ws-")));
    const sandbox = {
      mode: "bubblewrap",
      command: "bwrap",
      network: false,
      hiddenPaths: [],
    } as const;
    try {
      const args = bubblewrapArgs(sandbox, {
        workspace,
        cwd: workspace,
        command: process.execPath,
        args: [script],
      });
      const at = args.indexOf(installed);
      expect(args.slice(at - 1, at + 2)).toEqual(["--ro-bind", installed, installed]);
      // the private /tmp comes first, the program's folder over it, the workspace after
      expect(args.indexOf("--tmpfs")).toBeLessThan(at);
      expect(args.lastIndexOf(workspace)).toBeGreaterThan(at);
      expect(args.filter((a) => a === "/tmp")).toEqual(["/tmp"]);
      // and it runs from there, in the real sandbox
      const { execFileSync } = await import("node:child_process");
      expect(execFileSync("bwrap", args, { encoding: "utf8" })).toBe("seen");
    } finally {
      await rm(installed, { recursive: true, force: true });
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe("detectSandbox", () => {
  it("finds a working bubblewrap here (apt-get install bubblewrap)", () => {
    expect(bwrap).toEqual({ ok: true });
  });

  it("ARBOR_SANDBOX=off runs without a sandbox and says why", async () => {
    const sandbox = await detectSandbox({ env: { ARBOR_SANDBOX: "off" } });
    expect(sandboxSettings(sandbox)).toEqual({
      mode: "none",
      network: true,
      reason: "ARBOR_SANDBOX=off",
      refused: "none",
      fix: expect.stringContaining("apt-get install bubblewrap"),
    });
  });

  it("a required bubblewrap that does not exist refuses every command", async () => {
    const sandbox = await detectSandbox({
      env: { ARBOR_SANDBOX: "bubblewrap" },
      command: path.join(tmpdir(), "no-such-bwrap"),
    });
    expect(sandbox.mode).toBe("unavailable");
    expect(sandboxSettings(sandbox)).toMatchObject({
      mode: "unavailable",
      network: false,
      refused: "all",
    });
    const tool = createBashTool({ workspaceRoot: tmpdir(), sandbox });
    await expect(tool.execute({ command: "true" }, createRecordingContext())).rejects.toThrow(
      /^Command refused: ARBOR_SANDBOX=bubblewrap, but .*no-such-bwrap is not installed/,
    );
  });

  it("auto without bwrap runs unconfined only what a person approves, and says why", async () => {
    const sandbox = await detectSandbox({
      env: {},
      command: path.join(tmpdir(), "no-such-bwrap"),
    });
    expect(sandbox).toMatchObject({
      mode: "none",
      cause: "not_working",
      reason: expect.stringMatching(/not installed/),
    });
    expect(sandboxSettings(sandbox)).toMatchObject({ mode: "none", refused: "unattended" });
    expect(sandboxSettings(sandbox, true)).toMatchObject({ mode: "none", refused: "all" });
    const attended = createBashTool({ workspaceRoot: workspace, sandbox });
    expect(
      (await attended.execute({ command: "echo ran" }, createRecordingContext())).content,
    ).toEqual([{ type: "text", text: "Exit code: 0\nran\n" }]);
    const unattended = createBashTool({
      workspaceRoot: workspace,
      sandbox,
      exposure: { servingBeyondLoopback: false, personApproves: false },
    });
    expect(unattended.description).toContain("Commands cannot run");
    await expect(
      unattended.execute({ command: "touch ran" }, createRecordingContext()),
    ).rejects.toThrow(
      /^Command refused: there is no working sandbox \(.*no-such-bwrap is not installed\) and no person approves this run .*apt-get install bubblewrap.*ARBOR_SANDBOX=off/,
    );
    expect(existsSync(path.join(workspace, "ran"))).toBe(false);
    // a command a scoped allow rule lets through (issue #27) is unattended; the others are not
    const ruled = createBashTool({
      workspaceRoot: workspace,
      sandbox,
      exposure: {
        servingBeyondLoopback: false,
        personApproves: true,
        unattended: (command) => command.startsWith("touch"),
      },
    });
    await expect(
      ruled.execute({ command: "touch ruled" }, createRecordingContext()),
    ).rejects.toThrow(/^Command refused: .* no person approves this run/);
    expect(existsSync(path.join(workspace, "ruled"))).toBe(false);
    expect(
      (await ruled.execute({ command: "echo asked" }, createRecordingContext())).content,
    ).toEqual([{ type: "text", text: "Exit code: 0\nasked\n" }]);
  });
});

describe("bash in bubblewrap", () => {
  it("auto picks bubblewrap, without network unless ARBOR_SANDBOX_NETWORK=1", async () => {
    expect(sandboxSettings(await detectSandbox({ env: {} }))).toEqual({
      mode: "bubblewrap",
      network: false,
      refused: "none",
    });
    expect(sandboxSettings(await detectSandbox({ env: { ARBOR_SANDBOX_NETWORK: "1" } }))).toEqual({
      mode: "bubblewrap",
      network: true,
      refused: "none",
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
