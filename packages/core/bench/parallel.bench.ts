// agentLoopParallel's branches really run at the same time (issue #14): N = 4 candidates against
// the fake LLM server over HTTP (the real Anthropic adapter), each answer's first token 200 ms
// late, against one candidate alone with the same delay. Target: the four take at most 1.2× the
// wall time of one.

import { PickFirstEvaluation } from "../src/agent/evaluation.js";
import { agentLoop } from "../src/agent/loop.js";
import { agentLoopParallel } from "../src/agent/parallel.js";
import type { AgentLoopConfig } from "../src/agent/types.js";
import { createDefaultProviderRegistry } from "../src/llm/registry.js";
import { modelConfig } from "../src/model/llm-config.js";
import { userMessage } from "../src/model/llm-messages.js";
import { startFakeLlmServer } from "../src/testing/fake-llm-server/index.js";
import { type BenchFigure, median } from "./figure.js";

const N = 4;
const FIRST_TOKEN_DELAY_MS = 200;
const RUNS = 7;

export async function run(): Promise<BenchFigure[]> {
  const server = await startFakeLlmServer({
    script: () => ({
      // a short answer: the figure is about waiting together, not about streaming cost
      blocks: [{ type: "text", text: "A candidate answer." }],
      firstChunkDelayMs: FIRST_TOKEN_DELAY_MS,
    }),
  });
  const provider = createDefaultProviderRegistry();
  const config = (i: number): AgentLoopConfig => ({
    provider,
    model: modelConfig({
      protocol: "anthropic-messages",
      model: `candidate-${i}`,
      apiKey: "bench",
      baseUrl: server.url,
    }),
    contextConfig: null,
    executionLimits: null,
  });
  const context = () => ({ systemPrompt: "You are a candidate.", messages: [], tools: [] });
  const one: number[] = [];
  const four: number[] = [];
  try {
    for (let i = 0; i <= RUNS; i++) {
      let t = performance.now();
      await agentLoop([userMessage("question")], context(), config(0)).result();
      const single = performance.now() - t;
      t = performance.now();
      const result = await agentLoopParallel(
        [userMessage("question")],
        context(),
        Array.from({ length: N }, (_, k) => config(k)),
        new PickFirstEvaluation(),
      ).result();
      const parallel = performance.now() - t;
      if (result.outcomes.length !== N) throw new Error(`expected ${N} outcomes`);
      // the first round warms the HTTP connections and the adapter
      if (i > 0) {
        one.push(single);
        four.push(parallel);
      }
    }
  } finally {
    await server.close();
  }
  const ratio = median(four) / median(one);
  return [
    {
      name: `agentLoopParallel: ${N} candidates / 1 candidate wall time (first token ${FIRST_TOKEN_DELAY_MS} ms)`,
      value: ratio,
      unit: "×",
      target: "≤ 1.2×",
      pass: ratio <= 1.2,
      notes: `median of ${RUNS}: ${N} candidates ${median(four).toFixed(1)} ms, one ${median(one).toFixed(1)} ms (fake LLM over HTTP, Anthropic adapter)`,
    },
  ];
}
