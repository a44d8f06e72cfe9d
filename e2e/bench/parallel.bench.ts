import { askParallel, createSession, scriptFake, sendMessage } from "../crash/client.js";
import type { BenchContext, BenchFigure } from "./figure.js";
import { median } from "./figure.js";

// Issue #30's goal (issue #14 measured it first, at ≤ 1.2×): ask N ways over HTTP through the
// production app (SQLite, SSE): N = 4 candidates with the fake LLM's first token 200 ms late,
// POST …/messages/parallel until its stream ends (the verdict stored), against one answer (POST
// …/messages until its stream ends) with the same delay. pick_first chooses: no judge request is
// added. Samples alternate (paired), each on a fresh session; the figure is the ratio of the
// medians. Target: ≤ 1.1×.

const N = 4;
const FIRST_TOKEN_DELAY_MS = 200;
const WARMUP = 2;
const SAMPLES = 9;

const turn = {
  blocks: [{ type: "text" as const, text: "A candidate answer, in a few chunks." }],
  chunkSize: 8,
  firstChunkDelayMs: FIRST_TOKEN_DELAY_MS,
};

async function one(context: BenchContext): Promise<number> {
  const sessionId = await createSession(context.appUrl, "parallel bench (one)");
  await scriptFake(context.fakeUrl, [turn]);
  const started = performance.now();
  let deltas = 0;
  for await (const event of await sendMessage(context.appUrl, sessionId, "question")) {
    if (event.event === "content_delta") deltas++;
  }
  if (deltas === 0) throw new Error("the answer had no content_delta");
  return performance.now() - started;
}

async function four(context: BenchContext): Promise<number> {
  const sessionId = await createSession(context.appUrl, "parallel bench (four)");
  await scriptFake(
    context.fakeUrl,
    Array.from({ length: N }, () => turn),
  );
  const started = performance.now();
  let verdict = false;
  const columns = new Set<unknown>();
  for await (const event of await askParallel(context.appUrl, sessionId, "question", N)) {
    if (event.event === "candidate_delta")
      columns.add((event.data as { candidate?: number }).candidate);
    if (event.event === "parallel_verdict") verdict = true;
    if (event.event === "error")
      throw new Error(`ask N ways failed: ${JSON.stringify(event.data)}`);
  }
  if (!verdict || columns.size !== N) throw new Error(`expected ${N} columns and a verdict`);
  return performance.now() - started;
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const ones: number[] = [];
  const fours: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const a = await one(context);
    const b = await four(context);
    if (i >= WARMUP) {
      ones.push(a);
      fours.push(b);
    }
  }
  const ratio = median(fours) / median(ones);
  return [
    {
      name: `ask N ways over HTTP: ${N} candidates / 1 answer wall time (first token ${FIRST_TOKEN_DELAY_MS} ms)`,
      value: ratio,
      unit: "×",
      target: "≤ 1.1×",
      pass: ratio <= 1.1,
      notes: `median of ${SAMPLES} paired: ${N} candidates ${median(fours).toFixed(1)} ms, one ${median(ones).toFixed(1)} ms (POST → stream end, next start, SQLite)`,
    },
  ];
}
