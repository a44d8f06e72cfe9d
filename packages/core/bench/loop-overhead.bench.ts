// Loop overhead: driving 10,000 streamed text chunks (8 characters each) through an agent loop,
// consuming every event, side by side with two peers in ONE run:
// - Arbor's Agent on the ScriptedProvider, against iterating the same provider stream directly
//   (target: < 1.5× raw);
// - pi-agent-core's `agentLoop` on pi-ai's own fake provider (`registerFauxProvider`, token size
//   fixed at 2 tokens = 8 characters, no pacing: it yields a microtask per chunk);
// - the AI SDK's `streamText` on a `MockLanguageModelV3` whose doStream returns the chunks as
//   LanguageModelV3 stream parts (all enqueued at once, as the ScriptedProvider does).
// Each system runs in a worker thread of its own (loop-systems/worker.ts: its own V8 isolate, so
// one system's modules, heap and inline caches cannot slow another's; in one shared isolate the
// peers made Arbor's Agent ~2× slower). Each repetition runs the three systems in a rotating
// order, one at a time, each as a pair: one untimed run (a thread that sat idle while the others
// ran is slow to come back: 3–4× on the Agent after 300 ms idle on this machine), then its fake
// stream iterated alone and the same stream through its loop, each timed after a gc()
// (`pnpm bench` runs node with --expose-gc, which the workers inherit), so load from other
// processes on this 2-core machine and GC debt hit every side alike. The peer figures are medians of per-repetition ratios to Arbor's Agent.
// Only public entry points: @arbor/core, @arbor/core/testing and the peers' own packages.

import { Worker } from "node:worker_threads";
import { type BenchFigure, median } from "./figure.js";
import { CHUNKS } from "./loop-systems/shared.js";
import type { PairReply } from "./loop-systems/worker.js";

const RUNS = 31;
const WARMUP = 10;

function expectCount(what: string, got: number): void {
  if (got !== CHUNKS) throw new Error(`${what}: expected ${CHUNKS} text deltas, got ${got}`);
}

type Reply = PairReply | { error: string } | { ready: string };

/** A system in its worker: `pair` asks for one paired run and waits for it. */
class SystemThread {
  readonly name: string;
  readonly #worker: Worker;
  #pending: ((reply: Reply) => void) | undefined;
  readonly ready: Promise<void>;

  constructor(name: string, module: string) {
    this.name = name;
    // Node 20 does not pass the `--import tsx` hooks on to worker threads: the worker registers
    // them itself before it loads the TypeScript entry
    const tsx = import.meta.resolve("tsx/esm/api");
    const entry = new URL("./loop-systems/worker.ts", import.meta.url).href;
    this.#worker = new Worker(
      `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`,
      {
        eval: true,
        workerData: { module: new URL(`./loop-systems/${module}`, import.meta.url).href },
      },
    );
    this.#worker.on("message", (reply: Reply) => {
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.(reply);
    });
    this.#worker.on("error", (error) => {
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.({ error: String(error) });
    });
    this.ready = this.#next().then((reply) => {
      if ("error" in reply) throw new Error(`${name}: ${reply.error}`);
    });
  }

  #next(): Promise<Reply> {
    return new Promise((resolve) => {
      this.#pending = resolve;
    });
  }

  /** ms of one run of the fake stream alone (`raw`) and one through the loop, in that order */
  async pair(): Promise<{ raw: number; loop: number }> {
    const reply = this.#next();
    this.#worker.postMessage("pair");
    const got = await reply;
    if ("error" in got) throw new Error(`${this.name}: ${got.error}`);
    if (!("raw" in got)) throw new Error(`${this.name}: unexpected reply`);
    expectCount(`${this.name} (fake alone)`, got.rawDeltas);
    expectCount(this.name, got.loopDeltas);
    return got;
  }

  stop(): Promise<number> {
    return this.#worker.terminate();
  }
}

// --- the paired run ---

interface System {
  thread: SystemThread;
  rawTimes: number[];
  loopTimes: number[];
}

const ms = (v: number) => `${v.toFixed(2)} ms`;
const x = (v: number) => `${v.toFixed(2)}×`;

export async function run(): Promise<BenchFigure[]> {
  const systems: System[] = [
    ["Arbor Agent", "arbor.ts"],
    ["pi agentLoop", "pi.ts"],
    ["AI SDK streamText", "ai-sdk.ts"],
  ].map(([name, module]) => ({
    thread: new SystemThread(name as string, module as string),
    rawTimes: [],
    loopTimes: [],
  }));
  try {
    await Promise.all(systems.map((s) => s.thread.ready));
    for (let i = 0; i < WARMUP; i++) {
      for (const s of systems) await s.thread.pair();
    }
    for (let i = 0; i < RUNS; i++) {
      // rotate the order each repetition, so no system always runs first or after the same one
      for (let k = 0; k < systems.length; k++) {
        const s = systems[(i + k) % systems.length] as System;
        const { raw, loop } = await s.thread.pair();
        s.rawTimes.push(raw);
        s.loopTimes.push(loop);
      }
    }
  } finally {
    await Promise.all(systems.map((s) => s.thread.stop()));
  }
  const [arbor, pi, ai] = systems as [System, System, System];
  const pairRatio = (a: number[], b: number[]) => median(a.map((t, i) => t / (b[i] as number)));

  const agentRatio = pairRatio(arbor.loopTimes, arbor.rawTimes);
  const best = Math.min(...arbor.loopTimes) / Math.min(...arbor.rawTimes);
  const arborMs = median(arbor.loopTimes);
  const piMs = median(pi.loopTimes);
  const aiMs = median(ai.loopTimes);
  const piRatio = pairRatio(pi.loopTimes, arbor.loopTimes);
  const aiRatio = pairRatio(ai.loopTimes, arbor.loopTimes);
  const own = (s: System) =>
    `${s.thread.name} ${ms(median(s.loopTimes))} (its fake alone ${ms(median(s.rawTimes))}, ${x(pairRatio(s.loopTimes, s.rawTimes))} of it)`;
  const peers = `median of ${RUNS} repetitions, each system in its own worker thread, per 10k chunks: ${own(arbor)}; ${own(pi)}; ${own(ai)}`;
  return [
    {
      name: "loop overhead: 10k chunks through Agent / raw provider stream",
      value: agentRatio,
      unit: "×",
      target: "< 1.5× raw",
      pass: agentRatio < 1.5,
      notes: `median of ${RUNS} paired runs; medians agent ${ms(arborMs)}, raw ${ms(median(arbor.rawTimes))} (${((arborMs * 1000) / CHUNKS).toFixed(3)} µs/chunk); best-vs-best ${best.toFixed(2)}×`,
    },
    {
      name: "loop peers: 10k chunks, Arbor Agent",
      value: arborMs,
      unit: "ms",
      target: "-",
      pass: true,
      informational: true,
      notes: `${((arborMs * 1000) / CHUNKS).toFixed(3)} µs/chunk; pi agentLoop ${ms(piMs)}, AI SDK streamText ${ms(aiMs)} in the same run`,
    },
    {
      name: "loop peers: pi-agent-core agentLoop / Arbor Agent",
      value: piRatio,
      unit: "×",
      target: "> 1× (Arbor ahead)",
      pass: piRatio > 1,
      notes: peers,
    },
    {
      name: "loop peers: AI SDK streamText / Arbor Agent",
      value: aiRatio,
      unit: "×",
      target: "> 1× (Arbor ahead)",
      pass: aiRatio > 1,
      notes: peers,
    },
  ];
}
