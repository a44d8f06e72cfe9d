import { readdirSync, readFileSync } from "node:fs";

// A server's resident memory as /proc shows it: the security suite's limits test and the benches
// read it for the app's whole process group (`next start` and whatever it started).

/** Resident memory of a process group, summed over its members, in KiB. */
export function groupRssKb(pgid: number): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] is the state (field 3 of stat), so the group id (field 5) is fields[2]
      if (Number(fields[2]) !== pgid) continue;
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const rss = /VmRSS:\s+(\d+)\s+kB/.exec(status);
      if (rss?.[1]) total += Number(rss[1]);
    } catch {
      // gone while we looked
    }
  }
  return total;
}
