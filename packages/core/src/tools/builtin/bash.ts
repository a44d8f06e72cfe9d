import { stat } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { z } from "zod";
import {
  ATTENDED_LOOPBACK,
  bubblewrapArgs,
  describeSandbox,
  type Sandbox,
  type SandboxExposure,
  sandboxGate,
} from "../sandbox.js";
import {
  type AgentTool,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../tool.js";
import { toolEnvironment } from "../tool-env.js";
import { defaultToolProcesses, type ToolProcess, type ToolProcesses } from "../tool-processes.js";
import { errorMessage, fsError, throwIfCancelled, Workspace } from "../workspace.js";
import { DEFAULT_DENY_PATTERNS, type DenyPattern, matchDenyPattern } from "./deny-patterns.js";
import { OutputBuffer } from "./output-buffer.js";

// REQ-047, 094–097, 137, 139: the bash tool.

export interface BashToolOptions {
  workspaceRoot: string;
  /** replaces the default list (DEFAULT_DENY_PATTERNS); pass [] to allow everything */
  denyPatterns?: readonly DenyPattern[];
  /** default timeout in seconds (120) */
  timeoutSeconds?: number;
  /** upper bound for the per-call `timeout` parameter, in seconds (600) */
  maxTimeoutSeconds?: number;
  /** stdout and stderr are each cut at this many bytes (256 KiB) */
  maxOutputBytes?: number;
  /** REQ-097: asked before each command that passed the deny list; false refuses it */
  confirm?: (command: string) => boolean | Promise<boolean>;
  /**
   * the whole environment of the command (default: toolEnvironment over this process's
   * environment: an allow-list, never the server's secrets)
   */
  env?: Record<string, string>;
  /** where commands run (default: no sandbox); see detectSandbox */
  sandbox?: Sandbox;
  /**
   * who can reach the server and whether a person approves each command: without a working
   * sandbox, sandboxGate refuses commands when either exposes them (default: a person approves,
   * loopback only)
   */
  exposure?: SandboxExposure;
  /** starts, records and ends the command's process group (default: one shared, unrecorded) */
  processes?: ToolProcesses;
  /** minimum interval between streamed partial results, in ms (250) */
  updateIntervalMs?: number;
  /**
   * After the shell exits, how long to wait for its output pipes to close (ms, 200). A
   * background process still holding them after that is killed with the group: a command's
   * background jobs do not outlive it unless their output is redirected away from the pipes.
   */
  exitGraceMs?: number;
}

export interface BashDetails {
  exit_code: number;
  success: boolean;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
const DEFAULT_MAX_TIMEOUT_SECONDS = 600;
export const DEFAULT_BASH_MAX_OUTPUT_BYTES = 256 * 1024;

const bashParameters = z.object({
  command: z.string().min(1).describe("The bash command to run (executed with `bash -c`)."),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(
      "Timeout in seconds. Defaults to 120; values above the configured maximum are capped.",
    ),
  cwd: z
    .string()
    .optional()
    .describe("Working directory, relative to the workspace root. Defaults to the workspace root."),
});

type BashParams = z.output<typeof bashParameters>;

export function createBashTool(
  options: BashToolOptions,
): AgentTool<typeof bashParameters, BashDetails> {
  const workspace = new Workspace(options.workspaceRoot);
  const denyPatterns = options.denyPatterns ?? DEFAULT_DENY_PATTERNS;
  const defaultTimeout = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const maxTimeout =
    options.maxTimeoutSeconds ?? Math.max(DEFAULT_MAX_TIMEOUT_SECONDS, defaultTimeout);
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_BASH_MAX_OUTPUT_BYTES;
  const sandbox: Sandbox = options.sandbox ?? {
    mode: "none",
    cause: "opted_out",
    reason: "no sandbox configured",
  };
  const exposure = options.exposure ?? ATTENDED_LOOPBACK;
  const processes = options.processes ?? defaultToolProcesses;
  const env = options.env ?? toolEnvironment({ env: process.env, workspaceRoot: workspace.root });

  return defineTool({
    name: "bash",
    label: "Bash",
    category: "execute",
    description:
      "Run a shell command with `bash -c` in the workspace root (or `cwd` inside it). Returns the exit code and output: " +
      "`Exit code: N` followed by stdout, or STDOUT:/STDERR: sections when stderr is not empty. " +
      `stdout and stderr are each truncated at ${maxOutputBytes} bytes. ` +
      `Times out after ${defaultTimeout}s by default (max ${maxTimeout}s via \`timeout\`); the command and every process it started are then killed. ` +
      "There is no stdin: interactive programs get end-of-file. " +
      "A command runs only when the session's approval policy allows it: the user may be asked to approve it first, and may deny it. " +
      "Commands that are obviously destructive (removing /, a system directory or the home directory, find / -delete, mkfs, shutdown, git push --force, piping a download into a shell) are refused before they run; " +
      "this is a guard rail that catches the obvious forms, not a guarantee, so do not try to get around it. " +
      `${describeSandbox(sandbox, exposure)} ` +
      "The environment holds PATH, HOME, locale settings, WORKSPACE_DIR and what the user allowed, never the server's keys or tokens. " +
      "Prefer read_file, edit_file, list_files and search for file work.",
    parameters: bashParameters,
    async execute(params: BashParams, ctx: ToolContext): Promise<ToolResult<BashDetails>> {
      throwIfCancelled(ctx.signal, "Command");
      // REQ-094: the deny list is checked before anything else, and certainly before spawning
      const blocked = matchDenyPattern(params.command, denyPatterns);
      if (blocked !== undefined) {
        throw ToolError.failed(`Command blocked: matches deny pattern '${blocked}'`);
      }
      // fail closed: no command runs unconfined where that is not allowed (sandbox.ts)
      const verdict = sandboxGate({
        sandbox,
        servingBeyondLoopback: exposure.servingBeyondLoopback,
        personApproves:
          exposure.personApproves && !(exposure.unattended?.(params.command) ?? false),
      });
      if (verdict.type === "refused") {
        throw ToolError.failed(`Command refused: ${verdict.reason}.`);
      }
      const cwd = await resolveCwd(workspace, params.cwd);
      if (options.confirm) {
        let confirmed: boolean;
        try {
          confirmed = await options.confirm(params.command);
        } catch (err) {
          throw ToolError.failed(`Command confirmation failed: ${errorMessage(err)}`);
        }
        if (!confirmed) throw ToolError.failed("Command was not confirmed by the user.");
      }
      throwIfCancelled(ctx.signal, "Command");
      const timeoutSeconds = Math.min(params.timeout ?? defaultTimeout, maxTimeout);
      const realRoot = await workspace.getRealRoot();
      const spawned =
        sandbox.mode === "bubblewrap"
          ? {
              command: sandbox.command,
              args: bubblewrapArgs(sandbox, {
                workspace: realRoot,
                cwd,
                command: "bash",
                args: ["-c", params.command],
              }),
              // /tmp inside is the sandbox's own; a TMPDIR elsewhere would be read-only
              env: { ...env, TMPDIR: "/tmp" },
            }
          : { command: "bash", args: ["-c", params.command], env };
      return runCommand(params.command, ctx, {
        spawn: () => processes.spawn(spawned.command, spawned.args, { cwd, env: spawned.env }),
        timeoutSeconds,
        maxOutputBytes,
        updateIntervalMs: options.updateIntervalMs ?? 250,
        exitGraceMs: options.exitGraceMs ?? 200,
      });
    },
  });
}

async function resolveCwd(workspace: Workspace, cwd: string | undefined): Promise<string> {
  if (cwd === undefined) return workspace.getRealRoot();
  const resolved = await workspace.resolve(cwd);
  try {
    const stats = await stat(resolved.absolute);
    if (!stats.isDirectory())
      throw ToolError.failed(`cwd is not a directory: ${resolved.relative}`);
  } catch (err) {
    throw fsError(err, resolved.relative);
  }
  return resolved.absolute;
}

interface RunOptions {
  spawn: () => ToolProcess;
  timeoutSeconds: number;
  maxOutputBytes: number;
  updateIntervalMs: number;
  exitGraceMs: number;
}

/** How a run ended. */
type Outcome =
  | { type: "closed"; code: number | null; signal: NodeJS.Signals | null }
  | { type: "timedOut" }
  | { type: "cancelled" }
  | { type: "shutdown" }
  | { type: "spawnFailed"; error: Error };

function runCommand(
  command: string,
  ctx: ToolContext,
  run: RunOptions,
): Promise<ToolResult<BashDetails>> {
  return new Promise((resolve, reject) => {
    const stdout = new OutputBuffer(run.maxOutputBytes);
    const stderr = new OutputBuffer(run.maxOutputBytes);
    // interleaved view for streamed partial results only
    const combined = new OutputBuffer(run.maxOutputBytes);
    const group = run.spawn();
    const child = group.child;
    ctx.onProgress(`Running: ${shorten(command, 200)}`);

    let settled = false;
    let updateTimer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let lastProgress = "";

    const emitUpdate = (): void => {
      updateTimer = undefined;
      if (settled) return;
      ctx.onUpdate({ content: [{ type: "text", text: combined.text() }] });
      const line = combined.lastLine(200);
      if (line !== "" && line !== lastProgress) {
        lastProgress = line;
        ctx.onProgress(line);
      }
    };
    const onData = (target: OutputBuffer) => (chunk: Buffer) => {
      target.append(chunk);
      combined.append(chunk);
      updateTimer ??= setTimeout(emitUpdate, run.updateIntervalMs);
    };
    child.stdout?.on("data", onData(stdout));
    child.stderr?.on("data", onData(stderr));

    const onAbort = (): void => finish({ type: "cancelled" });
    const onShutdown = (): void => finish({ type: "shutdown" });
    // setTimeout fires at once for delays beyond 2^31-1 ms, so clamp (about 24 days)
    const timeoutMs = Math.min(run.timeoutSeconds * 1000, 2 ** 31 - 1);
    const timeoutTimer = setTimeout(() => finish({ type: "timedOut" }), timeoutMs);
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    group.shutdown.addEventListener("abort", onShutdown, { once: true });

    function finish(outcome: Outcome): void {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(updateTimer);
      clearTimeout(graceTimer);
      ctx.signal.removeEventListener("abort", onAbort);
      group.shutdown.removeEventListener("abort", onShutdown);
      // After a normal close, group members that redirected their output away from our pipes
      // are left running (a deliberately started server); on timeout or cancellation the whole
      // group is ended (SIGTERM, SIGKILL after a grace period) and the call returns at once.
      switch (outcome.type) {
        case "closed": {
          const exitCode = exitCodeOf(outcome.code, outcome.signal);
          resolve({
            content: [{ type: "text", text: formatOutput(exitCode, stdout, stderr) }],
            details: { exit_code: exitCode, success: exitCode === 0 },
          });
          return;
        }
        case "timedOut": {
          group.terminate();
          const partial = combined.text();
          reject(
            ToolError.failed(
              `Command timed out after ${run.timeoutSeconds}s` +
                (partial === "" ? "" : `\n\nOutput before the timeout:\n${partial}`),
            ),
          );
          return;
        }
        case "cancelled":
          group.terminate();
          reject(ToolError.cancelled("Command cancelled."));
          return;
        case "shutdown":
          // the registry has signalled the group already
          reject(ToolError.cancelled("Command cancelled: the server is shutting down."));
          return;
        case "spawnFailed":
          group.kill();
          reject(ToolError.failed(`Failed to start bash: ${outcome.error.message}`));
          return;
        default:
          outcome satisfies never;
      }
    }

    child.on("error", (error) => finish({ type: "spawnFailed", error }));
    // `exit` comes when the shell ends; `close` only once every holder of its pipes is gone.
    child.on("exit", () => {
      graceTimer = setTimeout(() => group.kill(), run.exitGraceMs);
    });
    child.on("close", (code, signal) => finish({ type: "closed", code, signal }));
    if (ctx.signal.aborted) finish({ type: "cancelled" });
  });
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal !== null) return 128 + (osConstants.signals[signal] ?? 0);
  return -1;
}

/** REQ-047 output format. */
export function formatOutput(exitCode: number, stdout: OutputBuffer, stderr: OutputBuffer): string {
  const out = stdout.text();
  const err = stderr.text();
  if (err === "") return `Exit code: ${exitCode}\n${out}`;
  return `Exit code: ${exitCode}\nSTDOUT:\n${out}\nSTDERR:\n${err}`;
}

function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
