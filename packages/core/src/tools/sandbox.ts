import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import type { SandboxSettingsView } from "../protocol/settings.js";
import { asProcessEnv } from "./tool-processes.js";
import { isInside } from "./workspace.js";

// The sandbox of every process Arbor starts for a tool: bash's commands and stdio MCP servers.
// With bubblewrap (Debian's `bubblewrap` package), a process sees `/` read-only, the workspace
// read-write, a /tmp of its own, a new PID namespace (the server's /proc/PID/environ is out of
// sight), no network unless allowed (bash: ARBOR_SANDBOX_NETWORK=1; an MCP server: unless its entry
// says `"network": false`), and Arbor's data directory (database, install token) hidden under an
// empty tmpfs. It dies with the server.
//
// ARBOR_SANDBOX: auto (default) uses bubblewrap when `bwrap` is on PATH and works here, and
// otherwise runs processes unconfined only where that is safe enough (sandboxGate); bubblewrap
// requires it (when it does not work, every process is refused); off runs processes as the
// server's user, confined only by their working directory, with a warning in the UI.

type Env = Readonly<Record<string, string | undefined>>;

export type Sandbox =
  | {
      mode: "bubblewrap";
      /** the bwrap executable */
      command: string;
      network: boolean;
      /** hidden from commands (the data dir); those that do not exist are skipped */
      hiddenPaths: readonly string[];
    }
  /**
   * processes run unconfined; reason says why. `opted_out`: someone chose it (ARBOR_SANDBOX=off,
   * or a caller that passed no sandbox); `not_working`: auto found no working bubblewrap, and
   * sandboxGate refuses what no person watches over
   */
  | { mode: "none"; cause: "opted_out" | "not_working"; reason: string }
  /** bubblewrap was required and does not work: every process is refused */
  | { mode: "unavailable"; reason: string };

/** What the settings API and the UI show (GET /api/settings `sandbox`). */
export type SandboxSettings = SandboxSettingsView;

/**
 * What sandboxGate weighs besides the sandbox: who can reach this server, and whether a person
 * approves the run before it happens.
 */
export interface SandboxExposure {
  /** the server answers beyond loopback (HOST not a loopback address, or ARBOR_ALLOWED_HOSTS set) */
  servingBeyondLoopback: boolean;
  /**
   * a person approves each run before it starts; false when an auto-approve policy, a tool on
   * the session's white list ("always allow") or a config file starts it
   */
  personApproves: boolean;
  /**
   * a command that runs without a person although the policy asks: one of the session's scoped
   * allow rules (`Bash(npm test:*)`) lets it through, so it counts as unattended
   */
  unattended?: (command: string) => boolean;
}

/** A process on a loopback-only server that a person approves: the least exposed case. */
export const ATTENDED_LOOPBACK: SandboxExposure = Object.freeze({
  servingBeyondLoopback: false,
  personApproves: true,
});

export type SandboxVerdict =
  /** it runs in the sandbox */
  | { type: "confined" }
  /** it runs as the server's user (the sandbox was opted out of, or nothing exposes it) */
  | { type: "unconfined" }
  /** it must not run; reason says why and how to fix it (a sentence, no trailing period) */
  | { type: "refused"; reason: string };

/** How to get a working sandbox, or to opt out of one. */
export const SANDBOX_FIX =
  "install bubblewrap (apt-get install bubblewrap) and restart Arbor, or set ARBOR_SANDBOX=off to run tool processes unconfined";
const OPTED_OUT_FIX =
  "to confine tool processes, install bubblewrap (apt-get install bubblewrap) and unset ARBOR_SANDBOX";

/**
 * Whether a process may start (bash's command, a stdio MCP server), fail closed: without a
 * working sandbox it is refused when the server is reachable beyond loopback or when no person
 * approves it, unless the sandbox was opted out of (ARBOR_SANDBOX=off). Pure.
 */
export function sandboxGate(input: { sandbox: Sandbox } & SandboxExposure): SandboxVerdict {
  const { sandbox } = input;
  switch (sandbox.mode) {
    case "bubblewrap":
      return { type: "confined" };
    case "unavailable":
      return refused(sandbox.reason);
    case "none": {
      if (sandbox.cause === "opted_out") return { type: "unconfined" };
      const why = `there is no working sandbox (${sandbox.reason})`;
      if (input.servingBeyondLoopback) {
        return refused(`${why} and this server is reachable beyond loopback`);
      }
      if (!input.personApproves) {
        return refused(
          `${why} and no person approves this run (an auto-approve policy, an always-allowed tool or a config file starts it)`,
        );
      }
      return { type: "unconfined" };
    }
    default:
      return sandbox satisfies never;
  }
}

function refused(why: string): SandboxVerdict {
  return { type: "refused", reason: `${why}; ${SANDBOX_FIX}` };
}

export interface DetectSandboxOptions {
  /** ARBOR_SANDBOX and ARBOR_SANDBOX_NETWORK are read from it */
  env: Env;
  /** hidden inside the sandbox: the data dir */
  hiddenPaths?: readonly string[];
  /** the bwrap executable ("bwrap", found on PATH) */
  command?: string;
}

/** Picks the sandbox from the environment, probing bubblewrap once per executable. */
export async function detectSandbox(options: DetectSandboxOptions): Promise<Sandbox> {
  const requested = (options.env.ARBOR_SANDBOX ?? "auto").trim().toLowerCase() || "auto";
  const network = /^(?:1|true|yes|on)$/i.test(options.env.ARBOR_SANDBOX_NETWORK?.trim() ?? "");
  const command = options.command ?? "bwrap";
  if (requested === "off" || requested === "none") {
    return { mode: "none", cause: "opted_out", reason: `ARBOR_SANDBOX=${requested}` };
  }
  const probe = await probeBubblewrap(command);
  if (probe.ok) {
    return { mode: "bubblewrap", command, network, hiddenPaths: options.hiddenPaths ?? [] };
  }
  if (requested === "bubblewrap") {
    return { mode: "unavailable", reason: `ARBOR_SANDBOX=bubblewrap, but ${probe.reason}` };
  }
  const unknown =
    requested === "auto" ? "" : ` (ARBOR_SANDBOX=${requested} is not a mode; auto used)`;
  return { mode: "none", cause: "not_working", reason: `${probe.reason}${unknown}` };
}

/** The settings' view; `servingBeyondLoopback` decides what is refused without a sandbox. */
export function sandboxSettings(sandbox: Sandbox, servingBeyondLoopback = false): SandboxSettings {
  const verdict = (personApproves: boolean) =>
    sandboxGate({ sandbox, servingBeyondLoopback, personApproves }).type;
  const refused =
    verdict(true) === "refused" ? "all" : verdict(false) === "refused" ? "unattended" : "none";
  switch (sandbox.mode) {
    case "bubblewrap":
      return { mode: "bubblewrap", network: sandbox.network, refused };
    case "none":
      return {
        mode: "none",
        network: true,
        reason: sandbox.reason,
        refused,
        fix: sandbox.cause === "opted_out" ? OPTED_OUT_FIX : SANDBOX_FIX,
      };
    case "unavailable":
      return {
        mode: "unavailable",
        network: false,
        reason: sandbox.reason,
        refused,
        fix: SANDBOX_FIX,
      };
    default:
      return sandbox satisfies never;
  }
}

/** One sentence for the bash tool's description: what the model may expect of its commands. */
export function describeSandbox(
  sandbox: Sandbox,
  exposure: SandboxExposure = ATTENDED_LOOPBACK,
): string {
  const verdict = sandboxGate({ sandbox, ...exposure });
  if (verdict.type === "refused") return `Commands cannot run: ${verdict.reason}.`;
  switch (sandbox.mode) {
    case "bubblewrap":
      return (
        "Commands run in a bubblewrap sandbox: the workspace is writable, the rest of the file system is read-only, /tmp is private and empty, " +
        (sandbox.network ? "and the network is reachable." : "and there is no network.")
      );
    case "none":
    case "unavailable":
      return "Commands run without a sandbox, as the server's user.";
    default:
      return sandbox satisfies never;
  }
}

const FIXED_ARGS = ["--die-with-parent", "--unshare-all"];
const MOUNTS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];

/**
 * The bwrap command line that runs `command args` in the sandbox, in `cwd`, with `workspace`
 * writable. Pass real paths (symlinks resolved): the mounts are made on them.
 */
export function bubblewrapArgs(
  sandbox: Extract<Sandbox, { mode: "bubblewrap" }>,
  run: { workspace: string; cwd: string; command: string; args: readonly string[] },
): string[] {
  const hidden: string[] = [];
  for (const hiddenPath of sandbox.hiddenPaths) {
    const absolute = path.resolve(hiddenPath);
    // hiding a directory that holds the workspace would hide the workspace too
    if (isInside(absolute, run.workspace)) continue;
    const kind = pathKind(absolute);
    if (kind === "dir") hidden.push("--tmpfs", absolute);
    else if (kind === "file") hidden.push("--ro-bind", "/dev/null", absolute);
  }
  return [
    ...FIXED_ARGS,
    ...(sandbox.network ? ["--share-net"] : []),
    ...MOUNTS,
    ...programsUnderTmp([process.cwd(), run.command, ...run.args]),
    "--bind",
    run.workspace,
    run.workspace,
    ...hidden,
    "--chdir",
    run.cwd,
    "--",
    run.command,
    ...run.args,
  ];
}

/**
 * /tmp is the sandbox's own and empty, but the program may be installed under it (Arbor checked
 * out in /tmp, an MCP server's script in its node_modules): the top folder under /tmp of the
 * server's directory and of each absolute path in the command line is seen again, read-only.
 * Everything else of the host's /tmp stays out of sight.
 */
function programsUnderTmp(paths: readonly string[]): string[] {
  const tops = new Set<string>();
  for (const candidate of paths) {
    if (!path.isAbsolute(candidate)) continue;
    const [first] = path.relative("/tmp", path.resolve(candidate)).split(path.sep);
    if (first === undefined || first === "" || first === "..") continue;
    const top = path.join("/tmp", first);
    if (pathKind(top) !== undefined) tops.add(top);
  }
  return [...tops].flatMap((top) => ["--ro-bind", top, top]);
}

function pathKind(p: string): "dir" | "file" | undefined {
  try {
    const stats = statSync(p);
    return stats.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

type Probe = { ok: true } | { ok: false; reason: string };
const probes = new Map<string, Promise<Probe>>();

/** Whether `bwrap` runs a command with the mounts and namespaces the sandbox uses. Cached. */
export function probeBubblewrap(command = "bwrap"): Promise<Probe> {
  let probe = probes.get(command);
  if (probe === undefined) {
    probe = runProbe(command);
    probes.set(command, probe);
  }
  return probe;
}

function runProbe(command: string): Promise<Probe> {
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(command, [...FIXED_ARGS, ...MOUNTS, "--", "true"], {
      stdio: ["ignore", "ignore", "pipe"],
      env: asProcessEnv({ PATH: process.env.PATH ?? "/usr/bin:/bin" }),
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ ok: false, reason: `${command} did not answer within 5 s` });
    }, 5000);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({
        ok: false,
        reason:
          err.code === "ENOENT"
            ? `${command} is not installed`
            : `${command} cannot be started: ${err.message}`,
      });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ok: true });
      else
        resolve({
          ok: false,
          reason: `${command} does not work here (exit ${code}${stderr.trim() ? `: ${stderr.trim().split("\n")[0]}` : ""})`,
        });
    });
  });
}
