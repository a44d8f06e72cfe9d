// One app instance of multi-instance.bench.ts in a process of its own (its own event loop, pool,
// lease and listen connections and SessionManager), driven by the bench over IPC:
//   → {type: "start", own: ids, watch: ids}   ← {type: "ready"}
//   → {type: "go"}                            ← {type: "ran", last: {id: last sequence}, stored}
//   → {type: "finish", last: {id: sequence}}  ← {type: "seen", seen}
// Times are wall-clock milliseconds (performance.timeOrigin + performance.now()), comparable
// across the processes of one machine.
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { SessionEvent } from "@arbor/core";
import { slowAnswer, startInstance } from "../test/fixtures/instance.js";

export type ToInstance =
  | { type: "start"; own: string[]; watch: string[] }
  | { type: "go" }
  | { type: "finish"; last: Record<string, number> };

export type FromInstance =
  /** the process has started and connected */
  | { type: "up" }
  /** its watchers follow their sessions */
  | { type: "ready" }
  /** per owned session: the last sequence, and [sequence, stored at] of each event */
  | { type: "ran"; last: Record<string, number>; stored: Record<string, Array<[number, number]>> }
  /** per watched session: [sequence, seen at] in the order seen; the event loop's delay p99 (ms) */
  | { type: "seen"; seen: Record<string, Array<[number, number]>>; loopDelayP99: number };

const [url, name, chunks, delayMs] = process.argv.slice(2);
if (url === undefined || name === undefined) {
  console.error("usage: instance-process.ts <url> <name> <chunks> <delay ms>");
  process.exit(2);
}
const wallNow = () => performance.timeOrigin + performance.now();
const script = () => slowAnswer(Number(chunks ?? 30), Number(delayMs ?? 100));
const instance = await startInstance(name, url, script);
const send = (message: FromInstance) => process.send?.(message);
// how late this process's event loop ran: a delivery cannot be quicker than the loop that makes it
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

let own: string[] = [];
const seen: Record<string, Array<[number, number]>> = {};
const watchers: Array<{ id: string; iterator: AsyncIterator<SessionEvent>; done: Promise<void> }> =
  [];
let target: Record<string, number> | undefined;
let reached: () => void = () => {};

function allReached(): boolean {
  return (
    target !== undefined &&
    watchers.every((w) => (seen[w.id]?.at(-1)?.[0] ?? 0) >= (target?.[w.id] ?? 0))
  );
}

process.on("message", async (message: ToInstance) => {
  if (message.type === "start") {
    own = message.own;
    for (const id of message.watch) {
      const session = await instance.manager.get(id);
      if (session === undefined) throw new Error(`${name} does not see session ${id}`);
      const list: Array<[number, number]> = [];
      seen[id] = list;
      const iterator = session.events(0)[Symbol.asyncIterator]();
      const done = (async () => {
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          list.push([next.value.sequence, wallNow()]);
          if (allReached()) reached();
        }
      })();
      watchers.push({ id, iterator, done });
    }
    send({ type: "ready" });
  } else if (message.type === "go") {
    const last: Record<string, number> = {};
    const stored: Record<string, Array<[number, number]>> = {};
    await Promise.all(
      own.map(async (id) => {
        const session = await instance.manager.get(id);
        if (session === undefined) throw new Error(`${name} does not see session ${id}`);
        const times: Array<[number, number]> = [];
        stored[id] = times;
        for await (const event of session.sendMessage({ type: "text", text: "go" })) {
          if (event.sequence > 0) times.push([event.sequence, wallNow()]);
        }
        last[id] = session.lastSequence;
      }),
    );
    send({ type: "ran", last, stored });
  } else if (message.type === "finish") {
    target = message.last;
    if (!allReached()) {
      await Promise.race([
        new Promise<void>((resolve) => {
          reached = resolve;
        }),
        new Promise((resolve) => setTimeout(resolve, 30_000)),
      ]);
    }
    for (const watcher of watchers) await watcher.iterator.return?.();
    send({ type: "seen", seen, loopDelayP99: loopDelay.percentile(99) / 1e6 });
    await instance.close();
    process.exit(0);
  }
});
send({ type: "up" });
