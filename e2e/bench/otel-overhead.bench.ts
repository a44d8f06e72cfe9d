import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type ServerProcess, startApp } from "../crash/app-server.js";
import { resetFake, scriptFake } from "../crash/client.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";
import { groupCpuMs } from "./cpu.js";
import type { BenchContext, BenchFigure } from "./figure.js";
import { median, percentile } from "./figure.js";
import {
  CHUNK_DELAY_MS,
  CHUNKS,
  newTally,
  SESSIONS,
  sessionLoop,
  type Tally,
  turn,
  turnsFor,
} from "./streaming-load.bench.js";

// Issue #28, "Figures": what the OpenTelemetry export costs the streaming path. Two fresh apps of
// the same build run side by side in this one run, on the same fake LLM: export OFF (no OTEL_*
// variable: no SDK is loaded) and export ON (OTEL_EXPORTER_OTLP_ENDPOINT at a local OTLP/HTTP
// receiver, http/protobuf, the default BatchSpanProcessor, metrics every 10 s). The load is the
// streaming bench's (50 sessions, 40 chunks 20 ms apart per answer), in ROUNDS rounds that
// alternate OFF, ON, ON, OFF, … so the machine's other load falls on both arms alike. Per arm:
// the added latency per chunk (p99, measured at the clients as in streaming-load.bench.ts) and
// the app's CPU (its process group's user + system time) per delivered chunk. Target: ON within
// 3% of OFF on both. The receiver's count of spans shows the export really ran. The receiver runs
// in this process and holds the bodies until the rounds are over, then decodes every one.
// The load saturates a 2-core machine, so one arm's pooled figures drift with what else the
// machine does in its rounds: the figure is the median over rounds of the ratio ON / OFF within
// the round (both arms measured back to back), as the first-delta bench pairs its samples; the
// pooled ratio is in the notes.

const ROUNDS = 10;
const ROUND_MS = 15_000;
const GRACE_MS = 10_000;
const TARGET = 1.03;

interface Arm {
  app: ServerProcess;
  tally: Tally;
  cpuMs: number;
  seconds: number;
  /** each round's own figures, in round order */
  rounds: RoundFigures[];
}

interface RoundFigures {
  cpuPerChunk: number;
  p99: number;
}

async function round(context: BenchContext, arm: Arm): Promise<void> {
  await resetFake(context.fakeUrl);
  await scriptFake(
    context.fakeUrl,
    Array.from({ length: turnsFor(ROUND_MS) }, () => turn),
  );
  const cpuBefore = groupCpuMs(arm.app.pid);
  const deltasBefore = arm.tally.deltas;
  const latenessBefore = arm.tally.lateness.length;
  const started = performance.now();
  const stop = AbortSignal.timeout(ROUND_MS + GRACE_MS);
  const target = { ...context, appUrl: arm.app.url };
  await Promise.all(
    Array.from({ length: SESSIONS }, () =>
      sessionLoop(target, started + ROUND_MS, stop, arm.tally),
    ),
  );
  arm.seconds += (performance.now() - started) / 1000;
  const cpuAfter = groupCpuMs(arm.app.pid);
  if (cpuBefore !== undefined && cpuAfter !== undefined) {
    arm.cpuMs += cpuAfter - cpuBefore;
    arm.rounds.push({
      cpuPerChunk: (cpuAfter - cpuBefore) / Math.max(1, arm.tally.deltas - deltasBefore),
      p99: percentile(arm.tally.lateness.slice(latenessBefore), 99),
    });
  }
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  // the receiver keeps the bodies and decodes them after the rounds: its decoding is the
  // backend's work, and in this process it would stall the clients that time the chunks
  const receiver = await startOtlpReceiver({ holdBodies: true });
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), "arbor-otel-bench-")));
  const start = (dataDir: string, env: Record<string, string>) =>
    freePort().then((port) => startApp({ port, dataDir, fakeLlmUrl: context.fakeUrl, env }));
  const off: Arm = {
    app: await start(dirs[0]!, {}),
    tally: newTally(),
    cpuMs: 0,
    seconds: 0,
    rounds: [],
  };
  const on: Arm = {
    app: await start(dirs[1]!, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: "10000",
    }),
    tally: newTally(),
    cpuMs: 0,
    seconds: 0,
    rounds: [],
  };
  try {
    for (let i = 0; i < ROUNDS; i++) {
      // OFF ON ON OFF OFF ON …: each arm goes first as often as last
      const order = i % 2 === 0 ? [off, on] : [on, off];
      for (const arm of order) await round(context, arm);
    }
  } finally {
    await off.app.kill("SIGTERM");
    // SIGTERM flushes the ON app's last spans (shutdown.ts) before the receiver closes
    await on.app.kill("SIGTERM");
    await receiver.close();
    receiver.decodeHeld();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await resetFake(context.fakeUrl);
  }

  const p99 = (arm: Arm) => percentile(arm.tally.lateness, 99);
  const perChunk = (arm: Arm) => arm.cpuMs / Math.max(1, arm.tally.deltas);
  const broken = (arm: Arm) =>
    arm.tally.failed + arm.tally.errors + arm.tally.noFinal + arm.tally.gaps + arm.tally.wrongText;
  const paired = (figure: keyof RoundFigures) =>
    on.rounds.map((round, i) => round[figure] / (off.rounds[i]?.[figure] ?? Number.NaN));
  const latencyRatios = paired("p99");
  const cpuRatios = paired("cpuPerChunk");
  const latencyRatio = median(latencyRatios);
  const cpuRatio = median(cpuRatios);
  const spread = (ratios: number[]) =>
    `per round ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}×`;
  const spans = receiver.spans.length;
  const names = [...new Set(receiver.spans.map((s) => s.name.split(" ")[0]))].sort().join(", ");
  const load = `${SESSIONS} sessions, ${CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart per answer, ${ROUNDS} rounds × ${ROUND_MS / 1000} s per arm, alternating`;
  const exportRan = spans > 0 && receiver.refused.length === 0;
  const sound = broken(off) === 0 && broken(on) === 0 && exportRan;
  const arm = (a: Arm) =>
    `${a.tally.deltas} chunks, ${a.tally.streams} answers, ${(a.cpuMs / 1000).toFixed(1)} s CPU in ${a.seconds.toFixed(1)} s, ${broken(a)} broken`;
  return [
    {
      name: "OpenTelemetry export ON / OFF: added latency per chunk p99, 50 sessions (median of rounds)",
      value: latencyRatio,
      unit: "×",
      target: `≤ ${TARGET}× (issue #28)`,
      pass: sound && latencyRatio <= TARGET,
      notes: `${spread(latencyRatios)}; pooled p99 ${p99(on).toFixed(1)} / ${p99(off).toFixed(1)} ms = ${(p99(on) / p99(off)).toFixed(3)}×; p50 ${percentile(on.tally.lateness, 50).toFixed(1)} / ${percentile(off.tally.lateness, 50).toFixed(1)} ms; ${load}`,
    },
    {
      name: "OpenTelemetry export ON / OFF: server CPU per delivered chunk, 50 sessions (median of rounds)",
      value: cpuRatio,
      unit: "×",
      target: `≤ ${TARGET}× (issue #28)`,
      pass: sound && cpuRatio <= TARGET,
      notes: `${spread(cpuRatios)}; pooled ${perChunk(on).toFixed(3)} / ${perChunk(off).toFixed(3)} ms CPU per chunk = ${(perChunk(on) / perChunk(off)).toFixed(3)}×; ON: ${arm(on)}; OFF: ${arm(off)}`,
    },
    {
      name: "OpenTelemetry export ON: spans the receiver decoded",
      value: spans,
      unit: "spans",
      target: "> 0, none refused",
      pass: exportRan,
      notes: `${receiver.requests.length} OTLP/HTTP protobuf posts, ${receiver.metrics.length} metrics; span kinds: ${names || "none"}${receiver.refused.length > 0 ? `; refused: ${JSON.stringify(receiver.refused.slice(0, 3))}` : ""}`,
    },
  ];
}
