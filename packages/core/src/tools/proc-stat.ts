import { readdirSync, readFileSync } from "node:fs";

// What /proc tells about processes and groups (Linux). Used to end tool process groups and to
// recognise, after a restart, the groups a previous server left running.

/** Sends `signal` to the group; false when there is no such group. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the group has a live member. Zombies do not count: a sandbox's inner process, once
 * killed, waits for the machine's init to reap it, and runs nothing meanwhile.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    // EPERM: it exists but is not ours to signal
    return (err as { code?: string }).code === "EPERM";
  }
  const members = groupMembers(pgid);
  // no /proc to look into: the signal's answer stands
  if (members === undefined) return true;
  return members.some((member) => member.state !== "Z");
}

/** Field 22 of /proc/PID/stat (the start time in clock ticks after boot); undefined off Linux. */
export function readStartTime(pid: number): number | undefined {
  return readStat(pid)?.startTime;
}

export interface ProcStat {
  /** R, S, D, Z, … */
  state: string;
  pgrp: number;
  startTime: number;
}

export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // the command name (field 2) may hold spaces and parentheses: fields restart after the last ')'
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): pgrp is field 5, starttime field 22
  const pgrp = Number(fields[2]);
  const startTime = Number(fields[19]);
  if (!Number.isInteger(pgrp) || !Number.isInteger(startTime)) return undefined;
  return { state: fields[0] ?? "", pgrp, startTime };
}

let bootId: string | undefined;
export function readBootId(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      bootId = "unknown";
    }
  }
  return bootId;
}

/** The processes of a group, from /proc; undefined when /proc cannot be read. */
export function groupMembers(pgid: number): ProcStat[] | undefined {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const members: ProcStat[] = [];
  for (const name of pids) {
    const stat = readStat(Number(name));
    if (stat?.pgrp === pgid) members.push(stat);
  }
  return members;
}
