import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRecordingContext } from "../../../test/support/tool-test-context.js";
import { ToolError } from "../tool.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { TRUNCATION_SUFFIX } from "./output-buffer.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "arbor-bash-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function bash(options: Omit<BashToolOptions, "workspaceRoot"> = {}) {
  return createBashTool({ workspaceRoot: root, ...options });
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? "").join("");
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("bash tool", () => {
  it("REQ-047 runs bash -c in the workspace root and formats exit code and stdout", async () => {
    const result = await bash().execute({ command: "pwd; echo hello" }, createRecordingContext());
    const realRoot = (await import("node:fs/promises")).realpath(root);
    expect(textOf(result)).toBe(`Exit code: 0\n${await realRoot}\nhello\n`);
    expect(result.details).toEqual({ exit_code: 0, success: true });
  });

  it("REQ-047 shows STDOUT/STDERR sections when stderr is not empty; non-zero exit is a result", async () => {
    const result = await bash().execute(
      { command: "echo out; echo err >&2; exit 3" },
      createRecordingContext(),
    );
    expect(textOf(result)).toBe("Exit code: 3\nSTDOUT:\nout\n\nSTDERR:\nerr\n");
    expect(result.details).toEqual({ exit_code: 3, success: false });
  });

  it("REQ-094 refuses a command matching a deny pattern before spawning", async () => {
    const marker = path.join(root, "spawned");
    const run = bash().execute(
      { command: `touch ${marker} && rm -rf /` },
      createRecordingContext(),
    );
    await expect(run).rejects.toMatchObject({
      kind: "failed",
      message: "Command blocked: matches deny pattern 'rm -rf /'",
    });
    expect(existsSync(marker)).toBe(false);
  });

  it("REQ-139 deny patterns are configurable and plain strings match case-insensitively", async () => {
    const tool = bash({ denyPatterns: ["npm   publish"] });
    await expect(
      tool.execute({ command: "NPM PUBLISH --tag x" }, createRecordingContext()),
    ).rejects.toThrow("Command blocked: matches deny pattern 'npm   publish'");
    // the default list is replaced, so this one is now allowed
    const ok = await tool.execute({ command: "echo shutdown" }, createRecordingContext());
    expect(ok.details?.exit_code).toBe(0);
  });

  it("REQ-095 times out, kills the process group and reports the timeout", async () => {
    const ctx = createRecordingContext();
    const started = Date.now();
    const run = bash({ updateIntervalMs: 10 }).execute(
      { command: "echo $$; sleep 300", timeout: 1 },
      ctx,
    );
    await expect(run).rejects.toMatchObject({
      kind: "failed",
      message: expect.stringMatching(/^Command timed out after 1s/),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    const pid = Number(textOf(ctx.updates[0]!).trim());
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !isRunning(pid));
  });

  it("REQ-095 per-call timeout is capped by the configured maximum", async () => {
    const run = bash({ maxTimeoutSeconds: 1 }).execute(
      { command: "sleep 300", timeout: 1000 },
      createRecordingContext(),
    );
    await expect(run).rejects.toThrow("Command timed out after 1s");
  });

  it("REQ-095 cancellation via the signal kills the command and its background children", async () => {
    const ctx = createRecordingContext();
    const run = bash({ updateIntervalMs: 10 }).execute(
      { command: "sleep 300 & echo $!; sleep 300" },
      ctx,
    );
    await waitFor(() => ctx.updates.length > 0);
    const backgroundPid = Number(textOf(ctx.updates[0]!).trim());
    expect(isRunning(backgroundPid)).toBe(true);
    ctx.controller.abort();
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe("cancelled");
    await waitFor(() => !isRunning(backgroundPid));
  });

  it("REQ-095 an already aborted signal never spawns", async () => {
    const ctx = createRecordingContext();
    ctx.controller.abort();
    const marker = path.join(root, "spawned");
    await expect(bash().execute({ command: `touch ${marker}` }, ctx)).rejects.toMatchObject({
      kind: "cancelled",
    });
    expect(existsSync(marker)).toBe(false);
  });

  it("REQ-096 truncates stdout and stderr independently at maxOutputBytes", async () => {
    const result = await bash().execute(
      { command: "head -c 300000 /dev/zero | tr '\\0' a; head -c 1000 /dev/zero | tr '\\0' b >&2" },
      createRecordingContext(),
    );
    const text = textOf(result);
    const stdout = text.slice(text.indexOf("STDOUT:\n") + 8, text.indexOf("\nSTDERR:\n"));
    expect(stdout).toBe("a".repeat(256 * 1024) + TRUNCATION_SUFFIX);
    expect(text.endsWith(`STDERR:\n${"b".repeat(1000)}`)).toBe(true);

    const small = await bash({ maxOutputBytes: 10 }).execute(
      { command: "echo 0123456789abcdef >&2" },
      createRecordingContext(),
    );
    expect(textOf(small)).toBe(`Exit code: 0\nSTDOUT:\n\nSTDERR:\n0123456789${TRUNCATION_SUFFIX}`);
  });

  it("REQ-097 refuses when the confirm callback says no, without spawning", async () => {
    const marker = path.join(root, "spawned");
    const asked: string[] = [];
    const tool = bash({
      confirm: (command) => {
        asked.push(command);
        return false;
      },
    });
    await expect(
      tool.execute({ command: `touch ${marker}` }, createRecordingContext()),
    ).rejects.toThrow("Command was not confirmed by the user.");
    expect(asked).toEqual([`touch ${marker}`]);
    expect(existsSync(marker)).toBe(false);
    const yes = bash({ confirm: async () => true });
    const result = await yes.execute({ command: "echo ok" }, createRecordingContext());
    expect(textOf(result)).toBe("Exit code: 0\nok\n");
  });

  it("REQ-142 REQ-143 streams partial output through onUpdate and onProgress while running", async () => {
    const ctx = createRecordingContext();
    const result = await bash({ updateIntervalMs: 20 }).execute(
      { command: "echo first; sleep 0.5; echo second" },
      ctx,
    );
    expect(textOf(result)).toBe("Exit code: 0\nfirst\nsecond\n");
    expect(ctx.updates.length).toBeGreaterThanOrEqual(1);
    expect(textOf(ctx.updates[0]!)).toBe("first\n");
    expect(ctx.progress[0]).toBe("Running: echo first; sleep 0.5; echo second");
    expect(ctx.progress).toContain("first");
  });

  it("returns promptly when a background job keeps the output pipe open, killing it", async () => {
    const started = Date.now();
    const result = await bash().execute(
      { command: "sleep 300 & echo $!" },
      createRecordingContext(),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    const pid = Number(textOf(result).split("\n")[1]);
    await waitFor(() => !isRunning(pid));
  });

  it("runs with the scrubbed environment by default: no key, token or database URL of the server", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: "sk-ant-from-server-env",
      ARBOR_ADMIN_TOKEN: "admin-from-server-env",
      DATABASE_URL: "postgres://u:pw-from-server-env@db/x",
      SOME_OTHER_VAR: "other-from-server-env",
    });
    try {
      const result = await bash().execute(
        { command: "env; cat /proc/$$/environ" },
        createRecordingContext(),
      );
      expect(textOf(result)).not.toMatch(/from-server-env/);
      expect(textOf(result)).toContain(`WORKSPACE_DIR=${root}`);
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    }
  });

  it("tells the model honestly what happens to its commands", () => {
    const description = bash().description;
    expect(description).toMatch(/runs only when the session's approval policy allows it/);
    expect(description).toMatch(/refused before they run/);
    expect(description).toMatch(/not a guarantee/);
    expect(description).toMatch(/without a sandbox/);
    expect(description).not.toMatch(/are blocked/);
  });

  it("confines cwd to the workspace", async () => {
    await expect(
      bash().execute({ command: "pwd", cwd: ".." }, createRecordingContext()),
    ).rejects.toThrow(/outside the workspace root/);
    await expect(
      bash().execute({ command: "pwd", cwd: "missing" }, createRecordingContext()),
    ).rejects.toThrow("File not found: missing");
  });
});

/**
 * True while the process exists and is not a zombie. Killed orphans are reaped by PID 1, which
 * can take seconds in a container; a zombie no longer runs, so it counts as gone.
 */
function isRunning(pid: number): boolean {
  if (!existsSync("/proc/self/stat")) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
