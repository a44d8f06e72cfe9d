import { parentPort, workerData } from "node:worker_threads";
import type { LoopSystem } from "./shared.js";

// One system of the loop-overhead bench in a thread (a V8 isolate) of its own: its code, its
// heap and its inline caches are not shared with the other systems, and a module one of them
// loads (a provider SDK, async hooks) cannot slow the others. The bench's main thread asks for
// one paired run at a time, so the threads never run at once. A paired run first runs the system
// once untimed (the thread sat idle while the others ran: caches, JIT and the CPU's attention
// come back), then times its fake stream alone and its loop, each after a gc().

export type PairReply = { raw: number; loop: number; rawDeltas: number; loopDeltas: number };
type Reply = PairReply | { error: string } | { ready: string };

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const { system } = (await import(workerData.module as string)) as { system: LoopSystem };
const port = parentPort;
if (port === null) throw new Error("loop-systems/worker.ts runs as a worker thread");

async function timed(body: () => Promise<number>): Promise<{ ms: number; deltas: number }> {
  gc();
  const started = performance.now();
  const deltas = await body();
  return { ms: performance.now() - started, deltas };
}

port.on("message", async () => {
  let reply: Reply;
  try {
    await system.raw();
    await system.loop();
    const raw = await timed(system.raw);
    const loop = await timed(system.loop);
    reply = { raw: raw.ms, loop: loop.ms, rawDeltas: raw.deltas, loopDeltas: loop.deltas };
  } catch (error) {
    reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: system.name } satisfies Reply);
