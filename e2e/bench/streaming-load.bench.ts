import { setTimeout as sleep } from "node:timers/promises";
import {
  bareTextDelta,
  createSession,
  resetFake,
  scriptFake,
  sendBare,
  sendMessage,
} from "../crash/client.js";
import { isContentDelta, readSse, type SseEvent } from "../crash/sse.js";
import { groupCpuMs } from "./cpu.js";
import type { BenchContext, BenchFigure } from "./figure.js";
import { percentile } from "./figure.js";

// Web issue, "Done when": 50 concurrent streaming sessions for 30 s. Each session sends a
// message, reads its stream to the end, and repeats until the time is up. The fake provider
// streams every answer as CHUNKS chunks CHUNK_DELAY_MS apart, each chunk a numbered word, so the
// client can tell exactly what arrived. Measured at the clients:
// - events lost or out of order: a gap in a session's SSE ids (the session sequence, which goes
//   up by one per stored event, across the session's streams), an id that does not go up, and
//   any answer whose deltas do not add up to the scripted text (target zero);
// - the added latency per chunk: how late each delta arrives against the schedule the provider
//   keeps (k × CHUNK_DELAY_MS apart, anchored on the answer's least delayed chunk), p99. The
//   fake's own timer drift and this client's share are in it too, so the same figure is measured
//   straight against the fake server under the same load, beside it. Inter-arrival excess (gap − cadence) is printed as
//   well, but under queueing late chunks arrive bunched and it hides the delay.
// The baseline, under the same load: the bare Next route (bare-route/: the AI SDK's streamText,
// no persistence) streaming the same answers to 50 concurrent clients for BARE_MS, measured the
// same way; the Arbor / bare ratio of the p99 is the issue #10 figure (goal: within 2×).
// Streams cut GRACE_MS after the deadline count as failed, so the bench ends by itself.

export const SESSIONS = 50;
const DURATION_MS = 30_000;
const BASELINE_MS = 5_000;
const BARE_MS = 20_000;
const GRACE_MS = 10_000;
export const CHUNKS = 40;
export const CHUNK_DELAY_MS = 20;
const CHUNK = (i: number) => `c${String(i).padStart(3, "0")} `;
const ANSWER = Array.from({ length: CHUNKS }, (_, i) => CHUNK(i)).join("");
export const turn = {
  blocks: [{ type: "text" as const, text: ANSWER }],
  chunkSize: CHUNK(0).length,
  chunkDelayMs: CHUNK_DELAY_MS,
};
// a stream takes at least CHUNKS × CHUNK_DELAY_MS, which bounds how many turns a run can use
export const turnsFor = (ms: number) => SESSIONS * (Math.ceil(ms / (CHUNKS * CHUNK_DELAY_MS)) + 2);

export interface Tally {
  streams: number;
  deltas: number;
  gaps: number;
  outOfOrder: number;
  wrongText: number;
  errors: number;
  noFinal: number;
  /** requests that failed (refused, reset, timed out) */
  failed: number;
  failures: Set<string>;
  excess: number[];
  lateness: number[];
}

export function newTally(): Tally {
  return {
    streams: 0,
    deltas: 0,
    gaps: 0,
    outOfOrder: 0,
    wrongText: 0,
    errors: 0,
    noFinal: 0,
    failed: 0,
    failures: new Set(),
    excess: [],
    lateness: [],
  };
}

/**
 * Each delta's lateness against the schedule the provider keeps (k × cadence apart), and for
 * each after the first its inter-arrival excess (gap to the previous − the cadence).
 */
function addExcess(tally: Tally, arrivals: number[], cadenceMs = CHUNK_DELAY_MS): void {
  // The schedule is anchored on the answer's least delayed chunk (the provider's start time is
  // not visible to the client): that chunk counts as 0 ms late, so the figure is a lower bound.
  // Anchoring on the first chunk instead makes every chunk after a delayed first one look early.
  const anchor = Math.min(...arrivals.map((at, k) => at - k * cadenceMs));
  for (let k = 0; k < arrivals.length; k++) {
    if (k > 0) tally.excess.push(arrivals[k]! - arrivals[k - 1]! - cadenceMs);
    tally.lateness.push(arrivals[k]! - k * cadenceMs - anchor);
  }
}

/** "TypeError: fetch failed (ECONNRESET)": fetch hides the socket's error in `cause`. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = cause && "code" in cause ? String(cause.code) : cause?.message;
  return `${error.name}: ${error.message}${code ? ` (${code})` : ""}`;
}

function cpuSince(pgid: number, before: number | undefined): number | undefined {
  const after = groupCpuMs(pgid);
  return before === undefined || after === undefined ? undefined : after - before;
}

/**
 * The servers' CPU per delivered chunk: unlike the latencies, it hardly moves with the load other
 * processes put on the machine. None where /proc cannot be read.
 */
function cpuFigure(
  appCpu: number | undefined,
  app: Tally,
  appS: number,
  bareCpu: number | undefined,
  bare: Tally,
  bareS: number,
): BenchFigure[] {
  if (appCpu === undefined || bareCpu === undefined || app.deltas === 0 || bare.deltas === 0)
    return [];
  const appPer = appCpu / app.deltas;
  const barePer = bareCpu / bare.deltas;
  return [
    {
      name: "50 streaming sessions: server CPU per delivered chunk, Arbor / bare route",
      value: appPer / barePer,
      unit: "×",
      target: "-",
      pass: true,
      informational: true,
      notes: `Arbor ${appPer.toFixed(2)} ms CPU per chunk (${(appCpu / 1000).toFixed(1)} s CPU in ${appS.toFixed(1)} s, ${Math.round((100 * appCpu) / 1000 / appS)}% of a core); bare route ${barePer.toFixed(2)} ms (${(bareCpu / 1000).toFixed(1)} s CPU in ${bareS.toFixed(1)} s, ${Math.round((100 * bareCpu) / 1000 / bareS)}% of a core); user + system time of each server's process group`,
    },
  ];
}

/** One session's loop: send, read to the end, check, repeat until the deadline. */
export async function sessionLoop(
  context: BenchContext,
  deadline: number,
  end: AbortSignal,
  tally: Tally,
): Promise<void> {
  const sessionId = await createSession(context.appUrl, "concurrent-streams bench");
  let lastId: number | undefined = 0;
  for (let round = 0; performance.now() < deadline; round++) {
    // a stuck stream must not hold the bench past its bound
    const signal = AbortSignal.any([AbortSignal.timeout(30_000), end]);
    const events: SseEvent[] = [];
    try {
      for await (const event of await sendMessage(
        context.appUrl,
        sessionId,
        `round ${round}`,
        signal,
      )) {
        events.push(event);
      }
    } catch (error) {
      // a refused, reset or timed-out request is a failed stream, counted, not the bench's end
      tally.failed++;
      tally.failures.add(describeError(error));
      // the events of an abandoned stream are not lost: do not count them as a gap next round
      lastId = undefined;
      await sleep(100);
      continue;
    }
    lastId = tallyStream(tally, events, { text: ANSWER, cadenceMs: CHUNK_DELAY_MS }, lastId);
  }
}

/**
 * Checks one answer's stream of a session and adds it to `tally`: its SSE ids against the last id
 * the session's client saw (`lastId`, undefined after an abandoned stream: no gap is counted
 * then), errors, the final event, the text against the scripted one, and each delta's lateness
 * against the provider's cadence. Returns the session's new last id.
 */
export function tallyStream(
  tally: Tally,
  events: SseEvent[],
  expected: { text: string; cadenceMs: number },
  lastId: number | undefined,
): number | undefined {
  tally.streams++;
  const arrivals: number[] = [];
  let text = "";
  for (const event of events) {
    if (event.id !== undefined) {
      if (lastId !== undefined && event.id <= lastId) tally.outOfOrder++;
      else if (lastId !== undefined) tally.gaps += event.id - lastId - 1;
      lastId = Math.max(lastId ?? 0, event.id);
    }
    if (event.event === "error") tally.errors++;
    if (event.event === "content_delta" && isContentDelta(event.data)) {
      if (event.data.channel !== "text") continue;
      text += event.data.delta;
      arrivals.push(event.at);
    }
  }
  tally.deltas += arrivals.length;
  if (text !== expected.text) tally.wrongText++;
  if (!events.some((e) => e.event === "content_final")) tally.noFinal++;
  addExcess(tally, arrivals, expected.cadenceMs);
  return lastId;
}

/** The same load through the bare route: send, read to the end, check, repeat. */
async function bareLoop(
  context: BenchContext,
  deadline: number,
  end: AbortSignal,
  tally: Tally,
): Promise<void> {
  for (let round = 0; performance.now() < deadline; round++) {
    const signal = AbortSignal.any([AbortSignal.timeout(30_000), end]);
    const arrivals: number[] = [];
    let text = "";
    let finished = false;
    try {
      for await (const event of await sendBare(context.bareUrl, `round ${round}`, signal)) {
        const delta = bareTextDelta(event);
        if (delta !== undefined) {
          text += delta;
          arrivals.push(event.at);
        }
        if ((event.data as { type?: unknown } | null)?.type === "finish") finished = true;
      }
    } catch (error) {
      tally.failed++;
      tally.failures.add(describeError(error));
      await sleep(100);
      continue;
    }
    tally.streams++;
    tally.deltas += arrivals.length;
    if (text !== ANSWER) tally.wrongText++;
    if (!finished) tally.noFinal++;
    addExcess(tally, arrivals);
  }
}

/** The same load straight against the fake server (Anthropic SSE), for its own share. */
async function directLoop(
  context: BenchContext,
  deadline: number,
  end: AbortSignal,
  tally: Tally,
): Promise<void> {
  while (performance.now() < deadline) {
    const response = await fetch(`${context.fakeUrl}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "x" },
      body: JSON.stringify({
        model: "claude-test",
        max_tokens: 1024,
        stream: true,
        messages: [{ role: "user", content: "baseline" }],
      }),
      signal: AbortSignal.any([AbortSignal.timeout(30_000), end]),
    });
    if (!response.ok || response.body === null) throw new Error(`fake LLM: ${response.status}`);
    const arrivals: number[] = [];
    for await (const event of readSse(response.body)) {
      if (event.event === "content_block_delta") arrivals.push(event.at);
    }
    tally.streams++;
    tally.deltas += arrivals.length;
    addExcess(tally, arrivals);
  }
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  // the fake's own share first, under the same concurrency and cadence
  await resetFake(context.fakeUrl);
  await scriptFake(
    context.fakeUrl,
    Array.from({ length: turnsFor(BASELINE_MS) }, () => turn),
  );
  const baseline = newTally();
  const baselineEnd = performance.now() + BASELINE_MS;
  const baselineStop = AbortSignal.timeout(BASELINE_MS + GRACE_MS);
  await Promise.all(
    Array.from({ length: SESSIONS }, () =>
      directLoop(context, baselineEnd, baselineStop, baseline),
    ),
  );

  // the bare route, under the same concurrency and cadence
  await resetFake(context.fakeUrl);
  await scriptFake(
    context.fakeUrl,
    Array.from({ length: turnsFor(BARE_MS) }, () => turn),
  );
  const bare = newTally();
  const bareCpuBefore = groupCpuMs(context.barePid);
  const bareStarted = performance.now();
  const bareStop = AbortSignal.timeout(BARE_MS + GRACE_MS);
  await Promise.all(
    Array.from({ length: SESSIONS }, () =>
      bareLoop(context, bareStarted + BARE_MS, bareStop, bare),
    ),
  );
  const bareElapsedS = (performance.now() - bareStarted) / 1000;
  const bareCpu = cpuSince(context.barePid, bareCpuBefore);

  await resetFake(context.fakeUrl);
  await scriptFake(
    context.fakeUrl,
    Array.from({ length: turnsFor(DURATION_MS) }, () => turn),
  );
  const tally = newTally();
  const appCpuBefore = groupCpuMs(context.appPid);
  const started = performance.now();
  const deadline = started + DURATION_MS;
  // answers still running GRACE_MS after the deadline are cut and counted as failed
  const stop = AbortSignal.timeout(DURATION_MS + GRACE_MS);
  await Promise.all(
    Array.from({ length: SESSIONS }, () => sessionLoop(context, deadline, stop, tally)),
  );
  const elapsedS = (performance.now() - started) / 1000;
  const appCpu = cpuSince(context.appPid, appCpuBefore);
  // the turns left unused must not answer the next bench's requests
  await resetFake(context.fakeUrl);

  const p99 = percentile(tally.lateness, 99);
  const bareP99 = percentile(bare.lateness, 99);
  const bareBroken = bare.failed + bare.noFinal + bare.wrongText;
  const lost = tally.gaps + tally.wrongText;
  const broken = tally.failed + tally.errors + tally.noFinal;
  const load = `${SESSIONS} sessions × ${DURATION_MS / 1000} s, ${CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart per answer`;
  return [
    {
      name: "50 streaming sessions: events lost",
      value: lost,
      unit: "events",
      target: "0",
      pass: lost === 0,
      notes: `${tally.gaps} sequence gaps, ${tally.wrongText} answers whose deltas ≠ the scripted text; ${load}`,
    },
    {
      name: "50 streaming sessions: events out of order",
      value: tally.outOfOrder,
      unit: "events",
      target: "0",
      pass: tally.outOfOrder === 0,
    },
    {
      name: "50 streaming sessions: failed streams",
      value: broken,
      unit: "streams",
      target: "0",
      pass: broken === 0,
      notes: `${tally.failed} requests failed, ${tally.errors} error events, ${tally.noFinal} without content_final${tally.failures.size > 0 ? `: ${[...tally.failures].join("; ")}` : ""}`,
    },
    {
      name: "50 streaming sessions: added latency per chunk (p99)",
      value: p99,
      unit: "ms",
      target: "-",
      pass: true,
      informational: true,
      notes: `arrival − (anchor + k × ${CHUNK_DELAY_MS} ms), anchor: the answer's least delayed chunk, ${tally.lateness.length} chunks; p50 ${percentile(tally.lateness, 50).toFixed(1)} ms; the fake alone under the same load: p50 ${percentile(baseline.lateness, 50).toFixed(1)}, p99 ${percentile(baseline.lateness, 99).toFixed(1)} ms (its timer drift). A p50 near 390 ms (half of 40 × 20 ms) means most answers reached the client in one burst`,
    },
    {
      name: "50 streaming sessions, bare Next route: added latency per chunk (p99)",
      value: bareP99,
      unit: "ms",
      target: "-",
      pass: bareBroken === 0,
      informational: bareBroken === 0,
      notes: `the baseline (bare-route/: streamText, no persistence), ${SESSIONS} clients × ${BARE_MS / 1000} s before the app's run, same cadence; ${bare.lateness.length} chunks, p50 ${percentile(bare.lateness, 50).toFixed(1)} ms; ${bare.streams} answers, ${Math.round(bare.deltas / bareElapsedS)} deltas/s; ${bare.failed} failed, ${bare.wrongText} wrong text, ${bare.noFinal} without finish${bare.failures.size > 0 ? `: ${[...bare.failures].join("; ")}` : ""}`,
    },
    {
      name: "50 streaming sessions: added latency per chunk p99, Arbor / bare route",
      value: p99 / bareP99,
      unit: "×",
      target: "< 2× (issue #10 goal)",
      pass: p99 / bareP99 < 2,
      notes: `${p99.toFixed(1)} / ${bareP99.toFixed(1)} ms; p50 ${percentile(tally.lateness, 50).toFixed(1)} / ${percentile(bare.lateness, 50).toFixed(1)} ms`,
    },
    ...cpuFigure(appCpu, tally, elapsedS, bareCpu, bare, bareElapsedS),
    {
      name: "50 streaming sessions: inter-arrival beyond the cadence (p99)",
      value: percentile(tally.excess, 99),
      unit: "ms",
      target: "-",
      pass: true,
      informational: true,
      notes: `gap to the previous delta − ${CHUNK_DELAY_MS} ms; p50 ${percentile(tally.excess, 50).toFixed(1)} ms (negative: late chunks arrive bunched); the fake alone: p99 ${percentile(baseline.excess, 99).toFixed(1)} ms`,
    },
    {
      name: "50 streaming sessions: throughput",
      value: Math.round(tally.deltas / elapsedS),
      unit: "deltas/s",
      target: "-",
      pass: true,
      informational: true,
      notes: `${tally.streams} answers, ${tally.deltas} deltas in ${elapsedS.toFixed(1)} s`,
    },
  ];
}
