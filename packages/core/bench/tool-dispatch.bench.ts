// Tool dispatch overhead: a no-op tool executed N times through the loop (one model turn with N
// tool calls, parallel strategy, every event consumed) against calling it directly N times.
// Target: < 1 ms per call.
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import { modelConfig } from "../src/model/llm-config.js";
import type { ScriptedBlock } from "../src/testing/script.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { defineTool, type ToolContext } from "../src/tools/tool.js";
import { type BenchFigure, median } from "./figure.js";

const CALLS = 1_000;
const RUNS = 7;
const model = modelConfig({ protocol: "offline", model: "bench" });
const noop = defineTool({
  name: "noop",
  label: "No-op",
  description: "does nothing",
  parameters: z.object({ n: z.number() }),
  execute: async () => ({ content: [] }),
});

async function direct(): Promise<number> {
  const ctx: ToolContext = {
    toolCallId: "c",
    toolName: "noop",
    signal: new AbortController().signal,
    onUpdate: () => {},
    onProgress: () => {},
  };
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await noop.execute({ n: i }, ctx);
  return performance.now() - started;
}

async function throughLoop(): Promise<number> {
  const blocks: ScriptedBlock[] = Array.from({ length: CALLS }, (_, i) => ({
    type: "toolCall",
    id: `c${i}`,
    name: "noop",
    arguments: { n: i },
  }));
  const provider = new ScriptedProvider([{ blocks }, { blocks: [{ type: "text", text: "done" }] }]);
  const agent = new Agent({ provider, model, tools: [noop] });
  const started = performance.now();
  let ends = 0;
  for await (const event of agent.prompt("go")) if (event.type === "toolExecutionEnd") ends++;
  const elapsed = performance.now() - started;
  if (ends !== CALLS) throw new Error(`expected ${CALLS} tool executions, got ${ends}`);
  return elapsed;
}

export async function run(): Promise<BenchFigure[]> {
  for (let i = 0; i < 3; i++) {
    await direct();
    await throughLoop();
  }
  const directTimes: number[] = [];
  const loopTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    directTimes.push(await direct());
    loopTimes.push(await throughLoop());
  }
  const perCallMs = (median(loopTimes) - median(directTimes)) / CALLS;
  return [
    {
      name: "tool dispatch overhead per call (loop − direct)",
      value: perCallMs,
      unit: "ms",
      target: "< 1 ms per call",
      pass: perCallMs < 1,
      notes: `median of ${RUNS} × ${CALLS} calls: loop ${median(loopTimes).toFixed(1)} ms (incl. the model turns), direct ${median(directTimes).toFixed(2)} ms`,
    },
  ];
}
