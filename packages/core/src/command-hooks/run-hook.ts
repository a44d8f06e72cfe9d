import { realpathSync } from "node:fs";
import {
  ATTENDED_LOOPBACK,
  bubblewrapArgs,
  type Sandbox,
  type SandboxExposure,
  sandboxGate,
} from "../tools/sandbox.js";
import { defaultToolProcesses, type ToolProcesses } from "../tools/tool-processes.js";
import type { HookDefinition } from "./settings.js";

// One hook command, run as bash runs a command (tools/builtin/bash.ts): `bash -c` in the
// workspace root, in the sandbox, with the scrubbed tool environment, as a process group the
// server ends on shutdown. The hook's JSON input goes to its stdin; its exit code, stdout and
// stderr come back. A config file starts it, not a person's approval of this run: without a
// working sandbox, sandboxGate refuses it unless the sandbox was opted out of.

export interface HookRunnerOptions {
  /** the workspace's root: the command's working directory and the sandbox's writable part */
  workspace: string;
  /** the tool processes' environment (toolEnvironment): never the server's keys */
  env: Record<string, string>;
  sandbox: Sandbox;
  /** who can reach the server; a hook is never approved run by run (personApproves is false) */
  exposure?: Pick<SandboxExposure, "servingBeyondLoopback">;
  processes?: ToolProcesses;
}

/** How a hook command ended. */
export type HookRun =
  | { type: "exited"; code: number; stdout: string; stderr: string }
  | { type: "timed_out"; timeoutSeconds: number }
  /** it never started: the sandbox gate refused it, or bash could not be started */
  | { type: "not_started"; reason: string }
  | { type: "cancelled" };

/**
 * stdin is a socket (Node's pipes are socket pairs), so Debian's bash would take itself for an
 * ssh session and read ~/.bashrc: --norc keeps the hook's shell as plain as bash's tool's.
 */
const BASH_ARGS = ["--norc", "--noprofile", "-c"];

/** Output kept of each stream: a hook's answer is a line of JSON or a message, not a log. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/** Runs `hook` with `input` on its stdin. Never throws. */
export function runHookCommand(
  hook: HookDefinition,
  input: object,
  options: HookRunnerOptions,
  signal?: AbortSignal,
): Promise<HookRun> {
  const verdict = sandboxGate({
    sandbox: options.sandbox,
    servingBeyondLoopback: (options.exposure ?? ATTENDED_LOOPBACK).servingBeyondLoopback,
    personApproves: false,
  });
  if (verdict.type === "refused") {
    return Promise.resolve({ type: "not_started", reason: verdict.reason });
  }
  if (signal?.aborted) return Promise.resolve({ type: "cancelled" });
  let root: string;
  try {
    root = realpathSync(options.workspace);
  } catch (error) {
    return Promise.resolve({ type: "not_started", reason: messageOf(error) });
  }
  // Claude Code's variable for scripts kept in the project (`$CLAUDE_PROJECT_DIR/.claude/x.sh`)
  const env = { ...options.env, CLAUDE_PROJECT_DIR: root };
  const { sandbox } = options;
  const spawned =
    sandbox.mode === "bubblewrap"
      ? {
          command: sandbox.command,
          args: bubblewrapArgs(sandbox, {
            workspace: root,
            cwd: root,
            command: "bash",
            args: [...BASH_ARGS, hook.command],
          }),
          env: { ...env, TMPDIR: "/tmp" },
        }
      : { command: "bash", args: [...BASH_ARGS, hook.command], env };
  const processes = options.processes ?? defaultToolProcesses;
  return new Promise((resolve) => {
    const group = processes.spawn(spawned.command, spawned.args, {
      cwd: root,
      env: spawned.env,
      stdin: "pipe",
    });
    const { child } = group;
    let stdout = "";
    let stderr = "";
    let settled = false;
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      if (stdout.length < MAX_OUTPUT_CHARS)
        stdout += chunk.slice(0, MAX_OUTPUT_CHARS - stdout.length);
    });
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS)
        stderr += chunk.slice(0, MAX_OUTPUT_CHARS - stderr.length);
    });
    const timer = setTimeout(
      () => finish({ type: "timed_out", timeoutSeconds: hook.timeoutSeconds }),
      Math.min(hook.timeoutSeconds * 1000, 2 ** 31 - 1),
    );
    const onAbort = (): void => finish({ type: "cancelled" });
    signal?.addEventListener("abort", onAbort, { once: true });
    group.shutdown.addEventListener("abort", onAbort, { once: true });
    function finish(run: HookRun): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      group.shutdown.removeEventListener("abort", onAbort);
      if (run.type !== "exited") group.terminate();
      resolve(run);
    }
    child.on("error", (error) => {
      group.kill();
      finish({ type: "not_started", reason: `bash could not be started: ${error.message}` });
    });
    child.on("close", (code, sig) =>
      finish({ type: "exited", code: code ?? (sig !== null ? 128 : -1), stdout, stderr }),
    );
    // a hook that never reads its input must not fail the write
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(`${JSON.stringify(input)}\n`);
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
