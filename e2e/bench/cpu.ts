import { readdirSync, readFileSync } from "node:fs";

// CPU time a server has used so far (user + system, every live process of its process group),
// from Linux's /proc. Under a loaded machine, wall-clock latencies swing with the other processes
// while the CPU a server spends per delivered chunk does not: the benches print both.

/** Linux's USER_HZ: /proc reports CPU time in these ticks (100 on every Linux ABI in use). */
const TICKS_PER_SECOND = 100;

/** ms of CPU used by the processes of group `pgid`; undefined where /proc is not readable. */
export function groupCpuMs(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let ticks = 0;
  let found = false;
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // the process ended meanwhile
    }
    // fields after the command name (which may hold spaces): state ppid pgrp … utime(14) stime(15)
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    found = true;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return found ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}
