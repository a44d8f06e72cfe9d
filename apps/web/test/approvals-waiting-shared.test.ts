import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchApprovalsWaiting } from "@arbor/core";
import { type FakeLlmServer, startFakeLlmServer } from "@arbor/core/testing";
import { type Database, openDatabase, PrismaSessionStore, parseDatabaseUrl } from "@arbor/db";
import { metrics } from "@opentelemetry/api";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import { createRuntime, setRuntime } from "@/lib/server/runtime";
import {
  capturingLogger,
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  sendText,
  TEST_TOKEN,
} from "./support";

// Issue #28 (metrics) / docs/decisions/0066: arbor.approvals.waiting is the database's number,
// not one instance's. Two instances on one database: A, a whole runtime (the routes reach it)
// whose run leaves a bash call waiting for a person; B, another instance's gauge as the runtime
// wires it (its own store on the same database, its own meter provider and reader). B ran
// nothing and still reports A's waiting call within its poll; decided through A, both report 0.
// Each reads the gauge through a real SDK reader, as an OTLP exporter would.

/** A reader that collects when asked (the SDK's periodic reader waits for its interval). */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The gauge's values in a collection now (none before the first count was read). */
async function waiting(reader: MetricReader): Promise<number[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics
      .filter((metric) => metric.descriptor.name === "arbor.approvals.waiting")
      .flatMap((metric) => metric.dataPoints.map((point) => point.value as number)),
  );
}

const readerA = new OnDemandReader();
const readerB = new OnDemandReader();
const providerB = new MeterProvider({ readers: [readerB] });
let llm: FakeLlmServer;
let databaseB: Database | undefined;
let stopB: (() => void) | undefined;

beforeAll(async () => {
  // A reports through the global provider, as the app's instrumentation registers it
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [readerA] }));
  llm = await startFakeLlmServer();
  const dir = mkdtempSync(join(tmpdir(), "arbor-approvals-shared-"));
  const url = `file:${join(dir, "shared.db")}`;
  const dataDirA = join(dir, "data-a");
  mkdirSync(dataDirA);
  await setRuntime(
    await createRuntime({
      env: {
        ARBOR_TOKEN: TEST_TOKEN,
        ARBOR_PROVIDER: "anthropic",
        ANTHROPIC_BASE_URL: llm.url,
        ANTHROPIC_API_KEY: "test",
        ARBOR_DATA_DIR: dataDirA,
        WORKSPACE_DIR: dataDirA,
        DATABASE_URL: url,
      },
      logger: capturingLogger([]),
    }),
  );
  // B: another instance's store on the same database and its gauge, polled faster than 2 s
  databaseB = await openDatabase(parseDatabaseUrl(url));
  const storeB = new PrismaSessionStore(databaseB);
  stopB = watchApprovalsWaiting(
    () => storeB.countPendingApprovals(),
    (error) => {
      throw error;
    },
    { intervalMs: 100, meterProvider: providerB },
  );
}, 60_000);

afterAll(async () => {
  stopB?.();
  await setRuntime(undefined);
  await databaseB?.close();
  await llm?.close();
  await providerB.shutdown();
});

describe("arbor.approvals.waiting", () => {
  it("is the database's count: B reports the call A's run left waiting, and 0 once A decided it", async () => {
    await vi.waitFor(async () => expect(await waiting(readerB)).toEqual([0]), 5_000);

    const id = await createSessionId({});
    llm.setScript([
      {
        blocks: [{ type: "toolCall", id: "b1", name: "bash", arguments: { command: "echo one" } }],
      },
      { blocks: [{ type: "text", text: "done" }] },
    ]);
    expect(finalState(await sendText(id, "echo"))).toBe("AwaitingToolApproval");
    // B ran nothing: what it reports comes from the database
    await vi.waitFor(async () => expect(await waiting(readerB)).toEqual([1]), 5_000);
    // A reports the same number (its runtime's gauge, recounted every 2 s)
    await vi.waitFor(async () => expect(await waiting(readerA)).toEqual([1]), 6_000);

    const decided = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "b1", decision: "approve" }],
      }),
      params({ id }),
    );
    expect(decided.status).toBe(200);
    expect(finalState(await readSse(decided))).toBe("Idle");
    await vi.waitFor(async () => expect(await waiting(readerB)).toEqual([0]), 5_000);
    await vi.waitFor(async () => expect(await waiting(readerA)).toEqual([0]), 6_000);
  }, 60_000);

  it("stops recounting when stopped (a closed instance asks the database nothing more)", async () => {
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    let reads = 0;
    const stop = watchApprovalsWaiting(
      async () => {
        reads++;
        return 3;
      },
      (error) => {
        throw error;
      },
      { intervalMs: 50, meterProvider: provider },
    );
    await vi.waitFor(async () => expect(await waiting(reader)).toEqual([3]), 2_000);
    stop();
    const after = reads;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reads).toBe(after);
    await provider.shutdown();
  });
});
