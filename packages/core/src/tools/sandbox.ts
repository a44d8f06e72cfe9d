import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { asProcessEnv } from "./tool-processes.js";
import { isInside } from "./workspace.js";

// The bash tool's sandbox. With bubblewrap (Debian's `bubblewrap` package), a command sees `/`
// read-only, the workspace read-write, a /tmp of its own, a new PID namespace (the server's
// /proc/PID/environ is out of sight), no network unless ARBOR_SANDBOX_NETWORK=1, and Arbor's data
// directory (database, install token) hidden under an empty tmpfs. It dies with the server.
//
// ARBOR_SANDBOX: auto (default) uses bubblewrap when `bwrap` is on PATH and works here; bubblewrap
// requires it (when it does not work, bash refuses every command rather than run unconfined);
// off runs commands as the server's user, confined only by their working directory.

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
  /** commands run unconfined; reason says why */
  | { mode: "none"; reason: string }
  /** bubblewrap was required and does not work: commands are refused */
  | { mode: "unavailable"; reason: string };

/** What the settings API and the UI show. */
export interface SandboxSettings {
  mode: "bubblewrap" | "none";
  network: boolean;
  reason?: string;
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
    return { mode: "none", reason: `ARBOR_SANDBOX=${requested}` };
  }
  const probe = await probeBubblewrap(command);
  if (probe.ok) {
    return { mode: "bubblewrap", command, network, hiddenPaths: options.hiddenPaths ?? [] };
  }
  if (requested === "bubblewrap") {
    return {
      mode: "unavailable",
      reason: `ARBOR_SANDBOX=bubblewrap, but ${probe.reason}; commands are refused`,
    };
  }
  const unknown =
    requested === "auto" ? "" : ` (ARBOR_SANDBOX=${requested} is not a mode; auto used)`;
  return { mode: "none", reason: `${probe.reason}${unknown}` };
}

export function sandboxSettings(sandbox: Sandbox): SandboxSettings {
  switch (sandbox.mode) {
    case "bubblewrap":
      return { mode: "bubblewrap", network: sandbox.network };
    case "none":
      return { mode: "none", network: true, reason: sandbox.reason };
    case "unavailable":
      return { mode: "none", network: false, reason: sandbox.reason };
    default:
      return sandbox satisfies never;
  }
}

/** One sentence for the bash tool's description: what the model may expect of its commands. */
export function describeSandbox(sandbox: Sandbox): string {
  switch (sandbox.mode) {
    case "bubblewrap":
      return (
        "Commands run in a bubblewrap sandbox: the workspace is writable, the rest of the file system is read-only, /tmp is private and empty, " +
        (sandbox.network ? "and the network is reachable." : "and there is no network.")
      );
    case "none":
      return "Commands run without a sandbox, as the server's user.";
    case "unavailable":
      return `Commands cannot run: ${sandbox.reason}.`;
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
            ? `${command} is not installed (apt-get install bubblewrap)`
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
