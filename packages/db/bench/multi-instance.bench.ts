import { fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startInstance } from "../test/fixtures/instance.js";
import { type BenchRun, percentile } from "./figure.js";
import type { FromInstance, ToInstance } from "./instance-process.js";

// Issue #17: 2 instances on one PostgreSQL, each in a process of its own (instance-process.ts:
// its own event loop, pool, lease and listen connections and SessionManager), 50 sessions
// streaming answers at once, half run by each instance, each watched (events()) on the OTHER
// instance. Every watcher must see every event of its session once, in order (lost / duplicated /
// out-of-order, target 0); the delay from the owner's stored event to the watcher's copy is the
// cross-instance latency (p50/p99, goal p99 < 100 ms; both processes read one wall clock).
// Throughput: events delivered to watchers per second, against one instance process running all
// 50 sessions with its own watchers on the same database. PostgreSQL only (SQLite: one process).

const here = dirname(fileURLToPath(import.meta.url));
const SESSIONS = Number(process.env.ARBOR_BENCH_SESSIONS ?? 50);
const CHUNKS = Number(process.env.ARBOR_BENCH_CHUNKS ?? 30);
const CHUNK_DELAY_MS = Number(process.env.ARBOR_BENCH_CHUNK_DELAY_MS ?? 100);

interface Outcome {
  /** events delivered more than 50 ms after they were stored, and how many of them were among
   * their session's first 5 events (the operations' start, all 50 at once) */
  slow: { all: number; first5: number };
  lost: number;
  duplicated: number;
  outOfOrder: number;
  latencies: number[];
  delivered: number;
  seconds: number;
  /** per instance process: its event loop's delay p99, ms */
  loopDelayP99: number[];
}

/** One instance process and a way to wait for its next message of a type. */
function spawnInstance(url: string, name: string) {
  const child = fork(
    join(here, "instance-process.ts"),
    [url, name, String(CHUNKS), String(CHUNK_DELAY_MS)],
    { execArgv: ["--conditions=@arbor/source", "--import", "tsx"], stdio: "inherit" },
  );
  const inbox: FromInstance[] = [];
  let wake: () => void = () => {};
  child.on("message", (message: FromInstance) => {
    inbox.push(message);
    wake();
  });
  const exited = new Promise<never>((_, reject) =>
    child.on("exit", (code) => reject(new Error(`instance ${name} exited with ${code}`))),
  );
  exited.catch(() => undefined);
  async function next<T extends FromInstance["type"]>(
    type: T,
  ): Promise<Extract<FromInstance, { type: T }>> {
    for (;;) {
      const index = inbox.findIndex((m) => m.type === type);
      if (index >= 0) return inbox.splice(index, 1)[0] as Extract<FromInstance, { type: T }>;
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), exited]);
    }
  }
  return {
    send: (message: ToInstance) => child.send(message),
    next,
    kill: () => child.kill("SIGKILL"),
  };
}

async function createSessions(url: string): Promise<string[]> {
  const creator = await startInstance("creator", url, []);
  try {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      ids.push((await creator.manager.create({ title: `bench ${i}` })).id);
    }
    return ids;
  } finally {
    await creator.close();
  }
}

/** Runs the sessions with owners[i % n] answering and watchers[i % n] following session i. */
async function runOnce(url: string, names: string[], crossed: boolean): Promise<Outcome> {
  const ids = await createSessions(url);
  const instances = names.map((name) => spawnInstance(url, name));
  try {
    await Promise.all(instances.map((instance) => instance.next("up")));
    const n = instances.length;
    instances.forEach((instance, k) => {
      const own = ids.filter((_, i) => i % n === k);
      // crossed: each instance watches the sessions the next one runs
      const watch = crossed ? ids.filter((_, i) => i % n === (k + 1) % n) : own;
      instance.send({ type: "start", own, watch });
    });
    await Promise.all(instances.map((instance) => instance.next("ready")));
    const start = performance.now();
    for (const instance of instances) instance.send({ type: "go" });
    const ran = await Promise.all(instances.map((instance) => instance.next("ran")));
    const last = Object.assign({}, ...ran.map((r) => r.last)) as Record<string, number>;
    const stored = Object.assign({}, ...ran.map((r) => r.stored)) as Record<
      string,
      Array<[number, number]>
    >;
    for (const instance of instances) instance.send({ type: "finish", last });
    const seenBy = await Promise.all(instances.map((instance) => instance.next("seen")));
    const seconds = (performance.now() - start) / 1000;
    const outcome: Outcome = {
      lost: 0,
      duplicated: 0,
      outOfOrder: 0,
      latencies: [],
      delivered: 0,
      seconds,
      slow: { all: 0, first5: 0 },
      loopDelayP99: seenBy.map((s) => s.loopDelayP99),
    };
    for (const { seen } of seenBy) {
      for (const [id, list] of Object.entries(seen)) {
        const storedAt = new Map(stored[id] ?? []);
        const sequences = list.map(([sequence]) => sequence);
        const unique = new Set(sequences);
        outcome.duplicated += sequences.length - unique.size;
        for (let s = 1; s <= (last[id] ?? 0); s++) if (!unique.has(s)) outcome.lost++;
        for (let i = 1; i < sequences.length; i++) {
          if (sequences[i]! <= sequences[i - 1]!) outcome.outOfOrder++;
        }
        for (const [sequence, at] of list) {
          const from = storedAt.get(sequence);
          if (from === undefined) continue;
          outcome.latencies.push(at - from);
          if (at - from > 50) {
            outcome.slow.all++;
            if (sequence <= 5) outcome.slow.first5++;
          }
        }
        outcome.delivered += list.length;
      }
    }
    return outcome;
  } finally {
    for (const instance of instances) instance.kill();
  }
}

export const run: BenchRun = async (target) => {
  if (target.provider !== "postgresql") return [];
  const two = await runOnce(await target.fresh(), ["A", "B"], true);
  const one = await runOnce(await target.fresh(), ["S"], false);
  const bad = two.lost + two.duplicated + two.outOfOrder;
  const p99 = percentile(two.latencies, 99);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return [
    {
      name: `2 instances, ${SESSIONS} streaming sessions, watchers on the other: lost + duplicated + out-of-order`,
      value: bad,
      unit: "events",
      target: "0",
      pass: bad === 0,
      notes: `lost ${two.lost}, duplicated ${two.duplicated}, out of order ${two.outOfOrder}; ${two.delivered} events delivered`,
    },
    {
      name: "2 instances: cross-instance delivery latency p50",
      value: round(percentile(two.latencies, 50)),
      unit: "ms",
      target: "",
      pass: true,
      informational: true,
      notes: `${two.latencies.length} events timed (stored on the owner → read by the watcher); one process per instance`,
    },
    {
      name: "2 instances: cross-instance delivery latency p99",
      value: round(p99),
      unit: "ms",
      target: "< 100 ms",
      pass: p99 < 100,
      notes: `one process per instance on the machine's 2 cores; ${two.slow.all} events over 50 ms, ${two.slow.first5} of them among their session's first 5 (the 50 operations starting at once); the instances' event-loop delay p99: ${two.loopDelayP99.map((ms) => `${round(ms)} ms`).join(", ")}; one instance's own watchers: p99 ${round(percentile(one.latencies, 99))} ms`,
    },
    {
      name: "2 instances: events delivered to watchers per second",
      value: Math.round(two.delivered / two.seconds),
      unit: "events/s",
      target: "",
      pass: true,
      informational: true,
      notes: `one instance process with its own watchers on the same database: ${Math.round(one.delivered / one.seconds)} events/s (${one.lost + one.duplicated + one.outOfOrder} bad)`,
    },
  ];
};
