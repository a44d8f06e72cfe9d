import type { SessionEvent } from "@arbor/core";
import { type Instance, slowAnswer, startInstance } from "../test/fixtures/instance.js";
import { type BenchRun, percentile } from "./figure.js";

// Issue #17: 2 instances on one PostgreSQL (each with its own pool, lease and listen connections
// and SessionManager, in this one process), 50 sessions streaming answers at once, half run by
// each instance, each watched (events()) on the OTHER instance. Every watcher must see every event
// of its session once, in order (lost / duplicated / out-of-order, target 0), and the delay from
// the owner's stored event to the watcher's copy is the cross-instance latency (p50/p99, goal p99
// < 100 ms). Throughput: events delivered to watchers per second, against one instance running
// all 50 sessions with its own watchers on the same database. PostgreSQL only (SQLite: one process).

const SESSIONS = 50;
const CHUNKS = Number(process.env.ARBOR_BENCH_CHUNKS ?? 30);
const CHUNK_DELAY_MS = Number(process.env.ARBOR_BENCH_CHUNK_DELAY_MS ?? 100);

interface Outcome {
  lost: number;
  duplicated: number;
  outOfOrder: number;
  latencies: number[];
  delivered: number;
  seconds: number;
}

async function runOnce(owners: Instance[], watchers: Instance[]): Promise<Outcome> {
  const sessions = [];
  for (let i = 0; i < SESSIONS; i++) {
    const owner = owners[i % owners.length]!;
    const watcher = watchers[i % watchers.length]!;
    const session = await owner.manager.create({ title: `bench ${i}` });
    const watched = await watcher.manager.get(session.id);
    if (watched === undefined) throw new Error("the watcher does not see the session");
    sessions.push({ session, watched });
  }
  let lost = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  let delivered = 0;
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    sessions.map(async ({ session, watched }) => {
      const storedAt = new Map<number, number>();
      const seen: number[] = [];
      const iterator = watched.events(0)[Symbol.asyncIterator]();
      const operation = session.sendMessage({ type: "text", text: "go" });
      const owning = (async () => {
        for await (const event of operation) {
          if (event.sequence > 0) storedAt.set(event.sequence, performance.now());
        }
      })();
      const watching = (async () => {
        for (;;) {
          const next: IteratorResult<SessionEvent> = await iterator.next();
          if (next.done) return;
          const now = performance.now();
          const sequence = next.value.sequence;
          seen.push(sequence);
          const at = storedAt.get(sequence);
          if (at !== undefined) latencies.push(now - at);
          if (
            next.value.name === "context_update" &&
            next.value.payload.current_state.type === "Idle" &&
            sequence === session.lastSequence
          )
            return;
        }
      })();
      await owning;
      await watching;
      await iterator.return?.();
      const last = session.lastSequence;
      const unique = new Set(seen);
      duplicated += seen.length - unique.size;
      for (let s = 1; s <= last; s++) if (!unique.has(s)) lost++;
      for (let i = 1; i < seen.length; i++) if (seen[i]! <= seen[i - 1]!) outOfOrder++;
      delivered += seen.length;
    }),
  );
  return {
    lost,
    duplicated,
    outOfOrder,
    latencies,
    delivered,
    seconds: (performance.now() - start) / 1000,
  };
}

export const run: BenchRun = async (target) => {
  if (target.provider !== "postgresql") return [];
  const script = () => slowAnswer(CHUNKS, CHUNK_DELAY_MS);
  const twoUrl = await target.fresh();
  const a = await startInstance("A", twoUrl, script);
  const b = await startInstance("B", twoUrl, script);
  let two: Outcome;
  try {
    two = await runOnce([a, b], [b, a]);
  } finally {
    await a.close();
    await b.close();
  }
  const single = await startInstance("S", await target.fresh(), script);
  let one: Outcome;
  try {
    one = await runOnce([single], [single]);
  } finally {
    await single.close();
  }
  const bad = two.lost + two.duplicated + two.outOfOrder;
  const p99 = percentile(two.latencies, 99);
  return [
    {
      name: "2 instances, 50 streaming sessions, watchers on the other: lost + duplicated + out-of-order",
      value: bad,
      unit: "events",
      target: "0",
      pass: bad === 0,
      notes: `lost ${two.lost}, duplicated ${two.duplicated}, out of order ${two.outOfOrder}; ${two.delivered} events delivered`,
    },
    {
      name: "2 instances: cross-instance delivery latency p50",
      value: Math.round(percentile(two.latencies, 50) * 10) / 10,
      unit: "ms",
      target: "",
      pass: true,
      informational: true,
      notes: `${two.latencies.length} events timed (stored on the owner → read by the watcher)`,
    },
    {
      name: "2 instances: cross-instance delivery latency p99",
      value: Math.round(p99 * 10) / 10,
      unit: "ms",
      target: "< 100 ms",
      pass: p99 < 100,
      notes: "both instances share this process's event loop and the machine's 2 cores",
    },
    {
      name: "2 instances: events delivered to watchers per second",
      value: Math.round(two.delivered / two.seconds),
      unit: "events/s",
      target: "",
      pass: true,
      informational: true,
      notes: `one instance with its own watchers on the same database: ${Math.round(one.delivered / one.seconds)} events/s (${one.lost + one.duplicated + one.outOfOrder} bad)`,
    },
  ];
};
