import {
  bareTextDelta,
  createSession,
  resetFake,
  scriptFake,
  sendBare,
  sendMessage,
} from "../crash/client.js";
import { readSse } from "../crash/sse.js";
import type { BenchContext, BenchFigure } from "./figure.js";
import { median, percentile } from "./figure.js";

// Web issue, "Done when": the time from the POST of a message to the first content_delta at the
// client, minus the fake provider's own first-chunk delay (target under 20 ms). The fake waits
// FIRST_CHUNK_DELAY_MS before its first frame and then streams with no delay between frames, so
// what is left is the app's own cost: routing, loading the session, storing the user message,
// preparing the request, the provider SDK, storing and writing the first delta. Each request goes
// to a fresh session, so every sample does the same work; the first WARMUP requests (Next's lazy
// route compilation, the store's first queries, JIT) are not counted.
// The baseline, in the same run: the bare Next route (bare-route/) streaming the same turn through
// the AI SDK's streamText with no persistence. App and bare route samples alternate (paired), so
// load from other processes hits both alike; the ratio is the median of the pair ratios.

const FIRST_CHUNK_DELAY_MS = 50;
const WARMUP = 5;
const SAMPLES = 30;

const turn = {
  blocks: [{ type: "text" as const, text: "The first delta, then a few more words." }],
  chunkSize: 8,
  chunkDelayMs: 0,
  firstChunkDelayMs: FIRST_CHUNK_DELAY_MS,
};

/** ms from the POST to the first text content_delta, minus the scripted first-chunk delay. */
async function throughApp(context: BenchContext): Promise<number> {
  const sessionId = await createSession(context.appUrl, "first-delta bench");
  await scriptFake(context.fakeUrl, [turn]);
  const started = performance.now();
  let firstAt: number | undefined;
  // read the stream to its end, so the next sample does not overlap this operation
  for await (const event of await sendMessage(context.appUrl, sessionId, "Hello.")) {
    if (firstAt === undefined && event.event === "content_delta") firstAt = event.at;
  }
  if (firstAt === undefined) throw new Error("the stream had no content_delta");
  return firstAt - started - FIRST_CHUNK_DELAY_MS;
}

/** The same measure through the bare route: POST → first text-delta, minus the delay. */
async function throughBare(context: BenchContext): Promise<number> {
  await scriptFake(context.fakeUrl, [turn]);
  const started = performance.now();
  let firstAt: number | undefined;
  let text = "";
  for await (const event of await sendBare(context.bareUrl, "Hello.")) {
    const delta = bareTextDelta(event);
    if (delta === undefined) continue;
    firstAt ??= event.at;
    text += delta;
  }
  if (firstAt === undefined) throw new Error("the bare route's stream had no text-delta");
  if (text !== turn.blocks[0]?.text) throw new Error(`the bare route streamed ${text}`);
  return firstAt - started - FIRST_CHUNK_DELAY_MS;
}

/** The same measure straight against the fake server: its own overhead, for comparison. */
async function direct(context: BenchContext): Promise<number> {
  await scriptFake(context.fakeUrl, [turn]);
  const started = performance.now();
  const response = await fetch(`${context.fakeUrl}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "x" },
    body: JSON.stringify({
      model: "claude-test",
      max_tokens: 256,
      stream: true,
      messages: [{ role: "user", content: "Hello." }],
    }),
  });
  if (!response.ok || response.body === null) throw new Error(`fake LLM: ${response.status}`);
  let firstAt: number | undefined;
  for await (const event of readSse(response.body)) {
    if (firstAt === undefined && event.event === "content_block_delta") firstAt = event.at;
  }
  if (firstAt === undefined) throw new Error("the fake stream had no content_block_delta");
  return firstAt - started - FIRST_CHUNK_DELAY_MS;
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  // each sample scripts exactly its own turn: nothing may be queued ahead of it
  await resetFake(context.fakeUrl);
  for (let i = 0; i < WARMUP; i++) {
    await throughApp(context);
    await throughBare(context);
  }
  const app: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    // alternate which goes first, so neither always follows the other
    if (i % 2 === 0) {
      app.push(await throughApp(context));
      bare.push(await throughBare(context));
    } else {
      bare.push(await throughBare(context));
      app.push(await throughApp(context));
    }
  }
  const fake: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) fake.push(await direct(context));
  const fakeBaseline = fake.slice(WARMUP);

  const notes = `${SAMPLES} requests after ${WARMUP} warm-up, fresh session each, provider first-chunk delay ${FIRST_CHUNK_DELAY_MS} ms subtracted`;
  const appMedian = median(app);
  const appP95 = percentile(app, 95);
  const bareMedian = median(bare);
  const bareP95 = percentile(bare, 95);
  const ratio = median(app.map((t, i) => t / (bare[i] as number)));
  return [
    {
      name: "POST → first content_delta − provider delay (median)",
      value: appMedian,
      unit: "ms",
      target: "< 20 ms",
      pass: appMedian < 20,
      notes,
    },
    {
      name: "POST → first content_delta − provider delay (p95)",
      value: appP95,
      unit: "ms",
      target: "< 20 ms",
      pass: appP95 < 20,
      notes,
    },
    {
      name: "bare Next route (streamText): POST → first text-delta − delay (median)",
      value: bareMedian,
      unit: "ms",
      target: "-",
      pass: true,
      informational: true,
      notes: `the baseline (bare-route/, no persistence), samples alternating with the app's; p95 ${bareP95.toFixed(1)} ms`,
    },
    {
      name: "first delta, Arbor / bare route (median of paired ratios)",
      value: ratio,
      unit: "×",
      target: "-",
      pass: true,
      informational: true,
      notes: `medians ${appMedian.toFixed(1)} / ${bareMedian.toFixed(1)} ms = ${(appMedian / bareMedian).toFixed(2)}×; p95 ${appP95.toFixed(1)} / ${bareP95.toFixed(1)} ms = ${(appP95 / bareP95).toFixed(2)}×`,
    },
    {
      name: "fake provider alone: POST → first delta − delay (median)",
      value: median(fakeBaseline),
      unit: "ms",
      target: "-",
      pass: true,
      informational: true,
      notes: "the same measure against the fake server directly: part of the figures above",
    },
  ];
}
