import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../model/private-files.js";
import {
  groupAlive,
  groupMembers,
  readBootId,
  readStartTime,
  readStat,
  signalGroup,
} from "./proc-stat.js";

// Tool processes and their lifetime. Every command a tool starts runs as the leader of a new
// process group (spawned detached), so one signal to the negative pid reaches the command *and
// everything it started* (`sleep 300 &`, pipelines, subshells, a bubblewrap sandbox).
//
// - Ending a group: SIGTERM to the group now, SIGKILL 2 s later if any member is still there.
//   The tool call does not wait for either.
// - Records: while a group runs it is recorded as `<recordDir>/<pgid>` (JSON: pid, the leader's
//   start time from /proc/PID/stat, the boot id, the owning server's pid and start time). A server
//   killed with -9 leaves its records behind; the next start kills every recorded group whose
//   server is gone and that is provably still the one recorded (same boot, same start time: a pid
//   reused by someone else's process is left alone), then removes the records.
// - Shutdown: on SIGTERM/SIGINT (and at exit) every running group of every registry gets SIGTERM,
//   and a detached watchdog process delivers the SIGKILL 2 s later (the server may be gone by then).

export const DEFAULT_KILL_GRACE_MS = 2000;

export interface ToolProcessesOptions {
  /** where running groups are recorded (`<data dir>/tool-processes`); none: kept in memory only */
  recordDir?: string;
  /** between SIGTERM and SIGKILL (2000 ms) */
  killGraceMs?: number;
}

export interface GroupSpawnOptions {
  cwd: string;
  /** the whole environment of the process (build it with toolEnvironment) */
  env: Record<string, string>;
  /** "pipe": the caller writes the process's stdin (a hook's JSON); default: closed */
  stdin?: "ignore" | "pipe";
}

/** A running process group started for a tool. */
export interface ToolProcess {
  readonly child: ChildProcess;
  /** SIGTERM to the group now, SIGKILL after the grace period if it is still there. Idempotent. */
  terminate(): void;
  /** SIGKILL to the group now. */
  kill(): void;
  /** aborted when the server shuts down and ends the group: the tool call ends as cancelled */
  readonly shutdown: AbortSignal;
}

interface RecordFile {
  pid: number;
  /** the leader's start time, clock ticks after boot (field 22 of /proc/PID/stat) */
  start_time: number;
  boot_id: string;
  command: string;
  /** the server that started it: a record of a live server (another instance on the same data dir) is not a leftover */
  owner_pid?: number;
  owner_start_time?: number;
}

interface Running {
  readonly pgid: number;
  readonly startTime: number | undefined;
  readonly recordPath: string | undefined;
  /** when the leader exited (members may remain); undefined while it runs */
  leaderGoneAt: number | undefined;
  killTimer: NodeJS.Timeout | undefined;
  readonly shutdown: AbortController;
}

export class ToolProcesses {
  readonly recordDir: string | undefined;
  readonly killGraceMs: number;
  readonly #running = new Map<number, Running>();
  #sweepTimer: NodeJS.Timeout | undefined;

  constructor(options: ToolProcessesOptions = {}) {
    this.recordDir = options.recordDir;
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  /** Spawns `command args` as the leader of a new process group (stdin closed unless asked, output piped). */
  spawn(command: string, args: readonly string[], options: GroupSpawnOptions): ToolProcess {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: asProcessEnv(options.env),
      detached: true,
      stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
    });
    const pgid = child.pid;
    if (pgid === undefined) {
      // spawn failed (its `error` event follows): nothing runs, nothing to record
      return {
        child,
        terminate: () => undefined,
        kill: () => undefined,
        shutdown: new AbortController().signal,
      };
    }
    const startTime = readStartTime(pgid);
    const entry: Running = {
      pgid,
      startTime,
      recordPath: this.#record(pgid, startTime, command),
      leaderGoneAt: undefined,
      killTimer: undefined,
      shutdown: new AbortController(),
    };
    this.#running.set(pgid, entry);
    child.once("exit", () => {
      entry.leaderGoneAt = Date.now();
    });
    child.once("close", () => this.#sweep());
    return {
      child,
      terminate: () => this.#terminate(entry),
      kill: () => {
        signalGroup(pgid, "SIGKILL");
        this.#scheduleSweep(50);
      },
      shutdown: entry.shutdown.signal,
    };
  }

  /** Groups started here and not yet known to be gone. */
  runningGroups(): number[] {
    return [...this.#running.keys()];
  }

  /**
   * At start: kills every group recorded in recordDir that is still ours (a previous server's,
   * killed before it could end them) and removes every record. Returns the pgids killed.
   */
  killRecorded(): number[] {
    const dir = this.recordDir;
    if (dir === undefined) return [];
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    const bootId = readBootId();
    const killed: number[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      const record = readRecord(file);
      // a group of a server that still runs (this one, or another on the same data dir) is no leftover
      if (record !== undefined && ownerAlive(record)) continue;
      if (record !== undefined && record.boot_id === bootId && killLeftover(record)) {
        killed.push(record.pid);
      }
      rmSync(file, { force: true });
    }
    return killed;
  }

  /** Ends every running group: SIGTERM now, SIGKILL after the grace period by a detached watchdog. */
  shutdown(): void {
    const groups = [...this.#running.values()];
    if (groups.length === 0) return;
    for (const entry of groups) {
      signalGroup(entry.pgid, "SIGTERM");
      entry.shutdown.abort();
      // the records stay until the groups are seen gone: if the watchdog never runs, the next
      // start kills them
      clearTimeout(entry.killTimer);
    }
    // Node itself, not `sh -c 'sleep; kill'`: dash's kill cannot be told that -PGID is a target
    const pgids = JSON.stringify(groups.map((entry) => entry.pgid));
    const script = `setTimeout(() => { for (const g of ${pgids}) { try { process.kill(-g, "SIGKILL"); } catch {} } }, ${this.killGraceMs});`;
    try {
      spawn(process.execPath, ["-e", script], {
        detached: true,
        stdio: "ignore",
        env: asProcessEnv({}),
      }).unref();
    } catch {
      // cannot escalate: the SIGTERM stands, and the records catch the rest at the next start
    }
    this.#scheduleSweep(this.killGraceMs + 100);
  }

  #terminate(entry: Running): void {
    if (entry.killTimer !== undefined || !this.#running.has(entry.pgid)) return;
    signalGroup(entry.pgid, "SIGTERM");
    entry.killTimer = setTimeout(() => {
      if (groupAlive(entry.pgid)) signalGroup(entry.pgid, "SIGKILL");
      this.#scheduleSweep(50);
    }, this.killGraceMs);
    entry.killTimer.unref();
    this.#scheduleSweep(50);
  }

  #record(pgid: number, startTime: number | undefined, command: string): string | undefined {
    if (this.recordDir === undefined || startTime === undefined) return undefined;
    const file = path.join(this.recordDir, String(pgid));
    const record: RecordFile = {
      pid: pgid,
      start_time: startTime,
      boot_id: readBootId(),
      command,
      owner_pid: process.pid,
      ...(ownStartTime() !== undefined ? { owner_start_time: ownStartTime() } : {}),
    };
    try {
      mkdirSync(this.recordDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE_MODE });
      return file;
    } catch {
      // an unwritable data dir must not stop the command; it only loses crash cleanup
      return undefined;
    }
  }

  /** Forgets every group whose leader has exited and that has no member left. */
  #sweep(): void {
    for (const entry of this.#running.values()) {
      if (entry.leaderGoneAt === undefined || groupAlive(entry.pgid)) continue;
      clearTimeout(entry.killTimer);
      this.#running.delete(entry.pgid);
      if (entry.recordPath !== undefined) rmSync(entry.recordPath, { force: true });
    }
    // a group whose leader left members behind (a server started with `&`, or members still
    // dying of the same signal) is checked again: soon at first, then every 5 s
    const lingering = [...this.#running.values()].flatMap((entry) => entry.leaderGoneAt ?? []);
    if (lingering.length > 0) {
      const recent = lingering.some((at) => Date.now() - at < 5000);
      this.#scheduleSweep(recent ? 200 : 5000);
    }
  }

  #scheduleSweep(delayMs: number): void {
    if (this.#sweepTimer !== undefined) {
      clearTimeout(this.#sweepTimer);
    }
    this.#sweepTimer = setTimeout(() => {
      this.#sweepTimer = undefined;
      this.#sweep();
    }, delayMs);
    this.#sweepTimer.unref();
  }
}

/**
 * A complete environment as spawn takes it. (Frameworks augment NodeJS.ProcessEnv with required
 * names such as NODE_ENV; a child given exactly these variables must not inherit them.)
 */
export function asProcessEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return env as NodeJS.ProcessEnv;
}

let ownStart: number | undefined | null = null;
function ownStartTime(): number | undefined {
  if (ownStart === null) ownStart = readStartTime(process.pid);
  return ownStart;
}

function ownerAlive(record: RecordFile): boolean {
  if (record.owner_pid === undefined || record.owner_start_time === undefined) return false;
  return readStartTime(record.owner_pid) === record.owner_start_time;
}

function readRecord(file: string): RecordFile | undefined {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<RecordFile>;
    if (
      Number.isInteger(value.pid) &&
      (value.pid ?? 0) > 1 &&
      Number.isInteger(value.start_time) &&
      typeof value.boot_id === "string"
    ) {
      return value as RecordFile;
    }
  } catch {
    // unreadable or not ours: dropped
  }
  return undefined;
}

/**
 * Kills a recorded group if it is provably the one recorded: its leader is alive with the
 * recorded start time, or (leader gone) every member started no earlier than the leader did.
 */
function killLeftover(record: RecordFile): boolean {
  const leader = readStat(record.pid);
  if (leader !== undefined) {
    if (leader.startTime !== record.start_time) return false; // the pid was reused
    return signalGroup(record.pid, "SIGKILL");
  }
  const members = (groupMembers(record.pid) ?? []).filter((member) => member.state !== "Z");
  if (members.length === 0) return false;
  if (members.some((member) => member.startTime < record.start_time)) return false;
  return signalGroup(record.pid, "SIGKILL");
}

// ---- shutdown of the server ------------------------------------------------------------------

const SHUTDOWN_KEY = Symbol.for("arbor.tool-processes.shutdown");
type ShutdownHolder = { [SHUTDOWN_KEY]?: Set<ToolProcesses> };

/**
 * Ends the registry's groups when the server stops (SIGTERM, SIGINT, or exit). The handlers are
 * installed once per process; a signal nobody else handles keeps its default effect (the process
 * ends). Returns a function that unregisters this registry.
 */
export function endGroupsOnShutdown(processes: ToolProcesses): () => void {
  const holder = globalThis as ShutdownHolder;
  let registries = holder[SHUTDOWN_KEY];
  if (registries === undefined) {
    const all = new Set<ToolProcesses>();
    registries = all;
    holder[SHUTDOWN_KEY] = all;
    const endAll = (): void => {
      for (const registry of all) registry.shutdown();
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      endAll();
      if (process.listenerCount(signal) === 1) {
        // ours was the only handler: do what the signal would have done
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    process.on("exit", endAll);
  }
  registries.add(processes);
  return () => {
    registries.delete(processes);
  };
}

/** The registry tools use when none is given: groups are ended the same way, but not recorded. */
export const defaultToolProcesses = new ToolProcesses();
