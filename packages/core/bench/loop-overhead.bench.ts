// Loop overhead: driving 10,000 streamed text chunks through the Agent (consuming every event)
// against iterating the same ScriptedProvider stream directly. Target: < 1.5× raw.
import { Agent } from "../src/agent/agent.js";
import type { StreamRequest } from "../src/llm/provider.js";
import { DEFAULT_CACHE_CONFIG, modelConfig } from "../src/model/llm-config.js";
import type { ScriptedTurn } from "../src/testing/script.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { type BenchFigure, median } from "./figure.js";

const CHUNKS = 10_000;
const RUNS = 31;
/** `pnpm bench` runs node with --expose-gc: collect before each timed run so GC debt is not carried over */
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const model = modelConfig({ protocol: "offline", model: "bench" });
const turn: ScriptedTurn = {
  blocks: [{ type: "text", text: "x".repeat(CHUNKS * 8) }],
  chunkSize: 8,
};

async function raw(): Promise<number> {
  const provider = new ScriptedProvider([turn]);
  const request: StreamRequest = {
    model,
    systemPrompt: "",
    messages: [{ role: "user", content: [{ type: "text", text: "go" }], timestamp: 0 }],
    tools: [],
    thinkingLevel: "off",
    cache: DEFAULT_CACHE_CONFIG,
  };
  const started = performance.now();
  let deltas = 0;
  for await (const event of provider.stream(request, new AbortController().signal)) {
    if (event.type === "textDelta") deltas++;
  }
  const elapsed = performance.now() - started;
  if (deltas !== CHUNKS) throw new Error(`raw: expected ${CHUNKS} deltas, got ${deltas}`);
  return elapsed;
}

async function throughAgent(): Promise<number> {
  // default settings: compaction, limits and retry all on, as a user would run it
  const agent = new Agent({ provider: new ScriptedProvider([turn]), model });
  const started = performance.now();
  let updates = 0;
  for await (const event of agent.prompt("go")) {
    if (event.type === "messageUpdate") updates++;
  }
  const elapsed = performance.now() - started;
  if (updates !== CHUNKS) throw new Error(`agent: expected ${CHUNKS} updates, got ${updates}`);
  return elapsed;
}

export async function run(): Promise<BenchFigure[]> {
  for (let i = 0; i < 20; i++) {
    await raw();
    await throughAgent();
  }
  const rawTimes: number[] = [];
  const agentTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // alternate so drift (GC, JIT, thermal) hits both sides alike
    gc();
    rawTimes.push(await raw());
    gc();
    agentTimes.push(await throughAgent());
  }
  const rawMs = median(rawTimes);
  const agentMs = median(agentTimes);
  // each agent run is paired with the raw run just before it, so load from other processes on this
  // 2-core machine skews both sides of a pair alike; the figure is the median of the pair ratios
  const ratio = median(agentTimes.map((t, i) => t / (rawTimes[i] as number)));
  const best = Math.min(...agentTimes) / Math.min(...rawTimes);
  return [
    {
      name: "loop overhead: 10k chunks through Agent / raw provider stream",
      value: ratio,
      unit: "×",
      target: "< 1.5× raw",
      pass: ratio < 1.5,
      notes: `median of ${RUNS} paired runs; medians agent ${agentMs.toFixed(2)} ms, raw ${rawMs.toFixed(2)} ms (${((agentMs * 1000) / CHUNKS).toFixed(3)} µs/chunk); best-vs-best ${best.toFixed(2)}×`,
    },
  ];
}
