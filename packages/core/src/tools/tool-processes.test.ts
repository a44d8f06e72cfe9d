import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../test/support/tool-test-context.js";
import { createBashTool } from "./builtin/bash.js";
import { groupAlive, readStartTime } from "./proc-stat.js";
import { ToolError } from "./tool.js";
import { endGroupsOnShutdown, ToolProcesses } from "./tool-processes.js";

let root: string;
let records: string;
const started: number[] = [];
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "arbor-procs-"));
  records = path.join(root, ".data", "tool-processes");
  await mkdir(path.join(root, "ws"));
});
afterEach(async () => {
  for (const pgid of started.splice(0)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  await rm(root, { recursive: true, force: true });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("ToolProcesses", () => {
  it("records a running group and removes the record when it ends", async () => {
    const processes = new ToolProcesses({ recordDir: records });
    const group = processes.spawn("sh", ["-c", "sleep 0.3"], { cwd: root, env });
    const pgid = group.child.pid as number;
    started.push(pgid);
    const record = JSON.parse(readFileSync(path.join(records, String(pgid)), "utf8"));
    expect(record).toMatchObject({ pid: pgid, start_time: readStartTime(pgid), command: "sh" });
    expect(processes.runningGroups()).toEqual([pgid]);
    await waitFor(() => !existsSync(path.join(records, String(pgid))));
    expect(processes.runningGroups()).toEqual([]);
  });

  it("interrupting `sleep 20` ends the call within 1 s; the group is gone and its record removed", async () => {
    const processes = new ToolProcesses({ recordDir: records });
    const bash = createBashTool({ workspaceRoot: path.join(root, "ws"), processes, env });
    const ctx = createRecordingContext("bash");
    const run = bash.execute({ command: "sleep 20 & sleep 20" }, ctx);
    await waitFor(() => existsSync(records) && readdirSync(records).length > 0);
    const pgid = Number(readdirSync(records)[0]);
    started.push(pgid);
    expect(groupAlive(pgid)).toBe(true);
    const t0 = Date.now();
    ctx.controller.abort();
    const error = await run.catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe("cancelled");
    await waitFor(() => !groupAlive(pgid), 1000);
    await waitFor(() => !existsSync(path.join(records, String(pgid))), 2000);
  });

  it("a group that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const processes = new ToolProcesses({ killGraceMs: 300 });
    const group = processes.spawn("sh", ["-c", "trap '' TERM; sleep 20 & wait"], {
      cwd: root,
      env,
    });
    const pgid = group.child.pid as number;
    started.push(pgid);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    group.terminate();
    await new Promise((r) => setTimeout(r, 150));
    expect(groupAlive(pgid)).toBe(true);
    await waitFor(() => !groupAlive(pgid), 2000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it("at start, kills a group a previous server recorded and left running", async () => {
    // the orphan: a real group that no registry of this process knows about
    const orphan = spawn("sh", ["-c", "sleep 20 & sleep 20"], { detached: true, stdio: "ignore" });
    const pgid = orphan.pid as number;
    started.push(pgid);
    await waitFor(() => readStartTime(pgid) !== undefined);
    await mkdir(records, { recursive: true });
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    writeFileSync(
      path.join(records, String(pgid)),
      JSON.stringify({
        pid: pgid,
        start_time: readStartTime(pgid),
        boot_id: bootId,
        command: "sh",
      }),
    );
    const killed = new ToolProcesses({ recordDir: records }).killRecorded();
    expect(killed).toEqual([pgid]);
    await waitFor(() => !groupAlive(pgid), 2000);
    expect(readdirSync(records)).toEqual([]);
  });

  it("at start, leaves alone a pid that now belongs to another process (start time differs)", async () => {
    const other = spawn("sleep", ["20"], { detached: true, stdio: "ignore" });
    const pgid = other.pid as number;
    started.push(pgid);
    await waitFor(() => readStartTime(pgid) !== undefined);
    await mkdir(records, { recursive: true });
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    writeFileSync(
      path.join(records, String(pgid)),
      JSON.stringify({
        pid: pgid,
        start_time: (readStartTime(pgid) as number) - 1,
        boot_id: bootId,
        command: "sh",
      }),
    );
    writeFileSync(path.join(records, "garbage"), "not json");
    expect(new ToolProcesses({ recordDir: records }).killRecorded()).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(pgid)).toBe(true);
    expect(readdirSync(records)).toEqual([]);
  });

  it("at start, leaves alone the groups of a server that still runs (another instance, or this one)", async () => {
    const first = new ToolProcesses({ recordDir: records });
    const group = first.spawn("sh", ["-c", "sleep 20"], { cwd: root, env });
    const pgid = group.child.pid as number;
    started.push(pgid);
    expect(new ToolProcesses({ recordDir: records }).killRecorded()).toEqual([]);
    expect(groupAlive(pgid)).toBe(true);
    expect(readdirSync(records)).toEqual([String(pgid)]);
    group.terminate();
    await waitFor(() => readdirSync(records).length === 0, 2000);
  });

  it("shutdown ends a running bash call at once as cancelled", async () => {
    const processes = new ToolProcesses({ recordDir: records });
    const bash = createBashTool({ workspaceRoot: path.join(root, "ws"), processes, env });
    const running = bash.execute({ command: "sleep 20" }, createRecordingContext("bash"));
    await waitFor(() => processes.runningGroups().length === 1);
    started.push(...processes.runningGroups());
    processes.shutdown();
    await expect(running).rejects.toMatchObject({
      kind: "cancelled",
      message: "Command cancelled: the server is shutting down.",
    });
  });

  it("shutdown sends SIGTERM to every running group", async () => {
    const processes = new ToolProcesses({ recordDir: records, killGraceMs: 200 });
    const a = processes.spawn("sh", ["-c", "sleep 20"], { cwd: root, env });
    const b = processes.spawn("sh", ["-c", "trap '' TERM; sleep 20 & wait"], { cwd: root, env });
    started.push(a.child.pid as number, b.child.pid as number);
    await new Promise((r) => setTimeout(r, 100));
    processes.shutdown();
    await waitFor(() => !groupAlive(a.child.pid as number), 1000);
    // the one ignoring SIGTERM is killed by the detached watchdog
    await waitFor(() => !groupAlive(b.child.pid as number), 3000);
    await waitFor(() => readdirSync(records).length === 0, 3000);
  });

  it("on SIGTERM of the server, every registered registry ends its groups", async () => {
    const processes = new ToolProcesses({ killGraceMs: 200 });
    const unregister = endGroupsOnShutdown(processes);
    // another handler keeps this test process alive through the signal
    const keepAlive = (): void => undefined;
    process.on("SIGTERM", keepAlive);
    try {
      const group = processes.spawn("sh", ["-c", "sleep 20"], { cwd: root, env });
      started.push(group.child.pid as number);
      await new Promise((r) => setTimeout(r, 100));
      process.kill(process.pid, "SIGTERM");
      await waitFor(() => !groupAlive(group.child.pid as number), 1000);
    } finally {
      process.removeListener("SIGTERM", keepAlive);
      unregister();
    }
  });
});
