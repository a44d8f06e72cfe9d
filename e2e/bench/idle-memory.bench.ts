import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerProcess } from "../crash/app-server.js";
import { createSession, resetFake, scriptFake, sendMessage } from "../crash/client.js";
import type { BenchContext, BenchFigure } from "./figure.js";
import { heapAfterGc, startInspectedApp } from "./heap.js";

// Issue #30, "memory per idle session", in steady state: what each session a server has served
// keeps in its memory once it is idle. The many-sessions bench reads it once after 500 sessions,
// where the server's own first-use growth (code warming up, bounded caches filling) is still part
// of the figure; here one instance answers BATCHES batches of BATCH new sessions (one answer
// each, CONCURRENCY at a time), and after each batch, once the sessions have been idle for
// SETTLE_MS, reads its JS heap after a full GC through its inspector (bench/heap.ts). The figure
// is the growth per session over the last batch, when the first-use growth is over. Side by side
// in one run, two fresh instances: sessions leave memory after ARBOR_IDLE_SESSION_SECONDS
// (IDLE_S here; 300 by default), and never (0: how every server kept them before decision 0073).

const BATCHES = 3;
const BATCH = 200;
const CONCURRENCY = 20;
const IDLE_S = 5;
/** after a batch: the idle time, two sweeps (every IDLE_S / 2) and the recorder's release */
const SETTLE_MS = (IDLE_S * 2 + 2) * 1000;
const turn = {
  blocks: [{ type: "text" as const, text: "one two three four five six" }],
  chunkSize: 4,
  chunkDelayMs: 5,
};

interface Arm {
  label: string;
  idleSeconds: number;
  /** heap after a full GC, bytes: after the warm-up, then after each batch */
  heaps: number[];
}

async function batch(url: string, n: number): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started < n) {
        started++;
        const id = await createSession(url, "idle-memory bench");
        for await (const _event of await sendMessage(url, id, "hello")) {
          // read to the end
        }
      }
    }),
  );
}

async function measure(context: BenchContext, arm: Arm): Promise<void> {
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), "arbor-idle-memory-")));
  let app: ServerProcess | undefined;
  try {
    const started = await startInspectedApp({
      dataDir: dirs[0]!,
      fakeLlmUrl: context.fakeUrl,
      env: { WORKSPACE_DIR: dirs[1]!, ARBOR_IDLE_SESSION_SECONDS: String(arm.idleSeconds) },
    });
    app = started.app;
    const { inspectorPort } = started;
    // the first answers load the routes' modules: a cost of the server's
    await batch(app.url, CONCURRENCY);
    await sleep(SETTLE_MS);
    arm.heaps.push(await heapAfterGc(inspectorPort));
    for (let i = 0; i < BATCHES; i++) {
      await batch(app.url, BATCH);
      await sleep(SETTLE_MS);
      arm.heaps.push(await heapAfterGc(inspectorPort));
    }
  } finally {
    await app?.kill("SIGTERM");
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** KiB per session of each batch's growth */
const perBatch = (arm: Arm) => arm.heaps.slice(1).map((h, i) => (h - arm.heaps[i]!) / 1024 / BATCH);

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const arms: Arm[] = [
    { label: `after ARBOR_IDLE_SESSION_SECONDS=${IDLE_S}`, idleSeconds: IDLE_S, heaps: [] },
    { label: "kept for ever (ARBOR_IDLE_SESSION_SECONDS=0)", idleSeconds: 0, heaps: [] },
  ];
  await resetFake(context.fakeUrl);
  await scriptFake(
    context.fakeUrl,
    Array.from({ length: arms.length * (CONCURRENCY + BATCHES * BATCH) }, () => turn),
  );
  try {
    for (const arm of arms) await measure(context, arm);
  } finally {
    await resetFake(context.fakeUrl);
  }
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  return arms.map((arm) => {
    const growth = perBatch(arm);
    const last = growth.at(-1) ?? Number.NaN;
    return {
      name: `memory per idle session, steady state: ${arm.label}`,
      value: last,
      unit: "KiB",
      target: "-",
      pass: true,
      informational: true,
      notes: `JS heap after a full GC, ${SETTLE_MS / 1000} s after each batch of ${BATCH} new sessions (one answer each): ${arm.heaps.map(mib).join(" → ")} MiB; growth per session by batch ${growth.map((g) => g.toFixed(1)).join(", ")} KiB (the figure: the last batch)`,
    };
  });
}
