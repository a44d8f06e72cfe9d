// "Ask N ways" in the product (issue #14): Session.askParallel with N = 4 candidates against the
// fake LLM server over HTTP (the real Anthropic adapter), each answer's first token 200 ms late,
// through the whole session machinery (pipeline, store writes of every candidate event, branches,
// the verdict), against one answer through the same session's ordinary sendMessage. Target: the
// four take at most 1.2× the wall time of one. pick_first chooses, so no judge request is added;
// the LLM judge's figure is reported beside it (one more model request, 200 ms late too).

import { SessionManager } from "../src/context/session/session-manager.js";
import { createDefaultProviderRegistry } from "../src/llm/registry.js";
import { modelConfig } from "../src/model/llm-config.js";
import type { ParallelMessageRequest } from "../src/protocol/parallel.js";
import { InMemorySessionStore } from "../src/store/memory-store.js";
import { startFakeLlmServer } from "../src/testing/fake-llm-server/index.js";
import { type BenchFigure, median } from "./figure.js";

const N = 4;
const FIRST_TOKEN_DELAY_MS = 200;
const RUNS = 7;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

export async function run(): Promise<BenchFigure[]> {
  const server = await startFakeLlmServer({
    script: () => ({
      blocks: [{ type: "text", text: "A candidate answer, in a few chunks." }],
      firstChunkDelayMs: FIRST_TOKEN_DELAY_MS,
    }),
  });
  const manager = new SessionManager({
    store: new InMemorySessionStore(),
    provider: createDefaultProviderRegistry(),
    model: modelConfig({
      protocol: "anthropic-messages",
      model: "bench-model",
      apiKey: "bench",
      baseUrl: server.url,
    }),
    tools: () => [],
    logger: silent,
    titles: "first_message",
  });
  const request = (
    sessionId: string,
    strategy: ParallelMessageRequest["judge"]["strategy"],
  ): ParallelMessageRequest => ({
    session_id: sessionId,
    payload: { type: "text", text: "question" },
    candidates: Array.from({ length: N }, (_, k) => ({
      model: { protocol: "anthropic-messages", model: `candidate-${k}` },
    })),
    judge: { strategy },
  });
  const one: number[] = [];
  const four: number[] = [];
  const judged: number[] = [];
  try {
    for (let i = 0; i <= RUNS; i++) {
      // a fresh session each time: every run answers the same one-message context
      const single = await manager.create();
      let t = performance.now();
      const sent = await single.sendMessage({ type: "text", text: "question" }).result;
      const oneMs = performance.now() - t;
      if (!sent.ok) throw new Error(`sendMessage failed: ${sent.error.message}`);

      const parallel = await manager.create();
      t = performance.now();
      const asked = await parallel.askParallel(request(parallel.id, "pick_first")).result;
      const fourMs = performance.now() - t;
      if (!asked.ok || asked.value.type !== "chosen") throw new Error("askParallel failed");
      if (parallel.branches.length !== N) throw new Error(`expected ${N} branches`);

      const withJudge = await manager.create();
      t = performance.now();
      const byJudge = await withJudge.askParallel(request(withJudge.id, "llm_judge")).result;
      const judgedMs = performance.now() - t;
      if (!byJudge.ok) throw new Error("askParallel with a judge failed");
      // the first round warms the HTTP connections and the adapter
      if (i > 0) {
        one.push(oneMs);
        four.push(fourMs);
        judged.push(judgedMs);
      }
    }
  } finally {
    await server.close();
  }
  const ratio = median(four) / median(one);
  const judgedRatio = median(judged) / median(one);
  return [
    {
      name: `session askParallel: ${N} candidates / 1 answer wall time (first token ${FIRST_TOKEN_DELAY_MS} ms)`,
      value: ratio,
      unit: "×",
      target: "≤ 1.2×",
      pass: ratio <= 1.2,
      notes: `median of ${RUNS}: ${N} candidates (pick_first) ${median(four).toFixed(1)} ms, one sendMessage ${median(one).toFixed(1)} ms (fake LLM over HTTP, in-memory store)`,
    },
    {
      name: `session askParallel: ${N} candidates + LLM judge / 1 answer wall time`,
      value: judgedRatio,
      unit: "×",
      target: "≈ 2× (the judge is a second 200 ms request after the candidates; informational)",
      pass: judgedRatio <= 2.4,
      notes: `median of ${RUNS}: ${median(judged).toFixed(1)} ms`,
    },
  ];
}
