import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, test } from "@playwright/test";
import { type Encoding, type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";

// The test receiver (e2e/support/otlp-receiver.ts) against the official OpenTelemetry JS
// exporters, the same packages and versions the app exports with: a span tree and metrics sent
// in each encoding come out of the receiver decoded, field for field. No app is started.

let receiver: OtlpReceiver;

test.beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

test.afterAll(async () => {
  await receiver.close();
});

const resource = resourceFromAttributes({
  "service.name": "receiver-test",
  "service.instance.id": "i-1",
});

async function exportSpans(
  encoding: Encoding,
  tag: string,
): Promise<{ traceId: string; runId: string; toolId: string }> {
  const url = `${receiver.url}/v1/traces`;
  const exporter =
    encoding === "json" ? new JsonTraceExporter({ url }) : new ProtoTraceExporter({ url });
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("arbor", "0.1.0");
  const run = tracer.startSpan(`invoke_agent ${tag}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.usage.input_tokens": 1234,
      "arbor.ratio": 0.5,
      "arbor.flag": true,
      "gen_ai.response.finish_reasons": ["stop", "tool_calls"],
    },
  });
  const { traceId, spanId: runId } = run.spanContext();
  const parent = { ...run.spanContext() };
  const { trace, context } = await import("@opentelemetry/api");
  const tool = tracer.startSpan(
    `execute_tool ${tag}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: { "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_1" },
      links: [{ context: parent, attributes: { "arbor.link": "candidate" } }],
    },
    trace.setSpanContext(context.active(), parent),
  );
  tool.addEvent("approval", { "arbor.approval.outcome": "approved" });
  tool.setStatus({ code: SpanStatusCode.ERROR, message: "exit 1" });
  tool.end();
  run.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId, runId, toolId: tool.spanContext().spanId };
}

for (const encoding of ["protobuf", "json"] as const) {
  test(`${encoding}: the official trace exporter's span tree comes out decoded`, async () => {
    const tag = `trace-${encoding}`;
    const sent = await exportSpans(encoding, tag);
    const spans = await receiver.waitFor(() => {
      const found = receiver.spans.filter((s) => s.name.endsWith(tag));
      return found.length === 2 && found;
    });
    const run = spans.find((s) => s.name === `invoke_agent ${tag}`)!;
    const tool = spans.find((s) => s.name === `execute_tool ${tag}`)!;
    expect(run).toMatchObject({
      traceId: sent.traceId,
      spanId: sent.runId,
      kind: SpanKind.INTERNAL + 1, // OTLP's SpanKind counts from UNSPECIFIED = 0
      encoding,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.usage.input_tokens": 1234,
        "arbor.ratio": 0.5,
        "arbor.flag": true,
        "gen_ai.response.finish_reasons": ["stop", "tool_calls"],
      },
      resource: { "service.name": "receiver-test", "service.instance.id": "i-1" },
      scope: { name: "arbor", version: "0.1.0" },
      status: { code: 0 },
    });
    expect(run.parentSpanId).toBeUndefined();
    expect(run.endTimeUnixNano).toBeGreaterThan(run.startTimeUnixNano);
    expect(run.startTimeUnixNano).toBeGreaterThan(BigInt(Date.now() - 60_000) * 1_000_000n);
    expect(tool).toMatchObject({
      traceId: sent.traceId,
      spanId: sent.toolId,
      parentSpanId: sent.runId,
      attributes: { "gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_1" },
      links: [
        { traceId: sent.traceId, spanId: sent.runId, attributes: { "arbor.link": "candidate" } },
      ],
      events: [{ name: "approval", attributes: { "arbor.approval.outcome": "approved" } }],
      status: { code: 2, message: "exit 1" },
    });
    const posted = receiver.requests.filter(
      (r) => r.path === "/v1/traces" && r.encoding === encoding,
    );
    expect(posted.length).toBeGreaterThan(0);
    expect(posted[0]?.headers["content-type"]).toBe(
      encoding === "json" ? "application/json" : "application/x-protobuf",
    );
  });

  test(`${encoding}: the official metric exporter's counter, gauge and histogram come out decoded`, async () => {
    const url = `${receiver.url}/v1/metrics`;
    const exporter =
      encoding === "json" ? new JsonMetricExporter({ url }) : new ProtoMetricExporter({ url });
    const provider = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 })],
    });
    const meter = provider.getMeter("arbor");
    const name = (n: string) => `${n}.${encoding}`;
    meter
      .createCounter(name("arbor.tool.calls"))
      .add(3, { "gen_ai.tool.name": "bash", outcome: "ok" });
    meter.createUpDownCounter(name("arbor.runs.active")).add(2);
    const tokens = meter.createHistogram(name("gen_ai.client.token.usage"), {
      unit: "{token}",
      advice: { explicitBucketBoundaries: [1, 100, 10_000] },
    });
    tokens.record(50, { "gen_ai.token.type": "input" });
    tokens.record(5_000, { "gen_ai.token.type": "input" });
    await provider.forceFlush();
    await provider.shutdown();
    const metric = (n: string) =>
      receiver.metrics.find((m) => m.name === name(n) && m.encoding === encoding);
    await receiver.waitFor(() => metric("gen_ai.client.token.usage"));
    expect(metric("arbor.tool.calls")).toMatchObject({
      kind: "sum",
      points: [{ value: 3, attributes: { "gen_ai.tool.name": "bash", outcome: "ok" } }],
      resource: { "service.name": "receiver-test" },
      scope: { name: "arbor" },
    });
    expect(metric("arbor.runs.active")).toMatchObject({ kind: "sum", points: [{ value: 2 }] });
    expect(metric("gen_ai.client.token.usage")).toMatchObject({
      kind: "histogram",
      unit: "{token}",
      points: [
        {
          count: 2,
          sum: 5_050,
          explicitBounds: [1, 100, 10_000],
          bucketCounts: [0, 1, 1, 0],
          attributes: { "gen_ai.token.type": "input" },
        },
      ],
    });
  });
}

function post(path: string, type: string, body: Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const url = new URL(path, receiver.url);
    const req = httpRequest(
      url,
      { method: "POST", headers: { "content-type": type, ...headers } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

test("a gzipped JSON body is taken; bad bodies, types and paths are refused as OTLP/HTTP says", async () => {
  const json = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "hand" } }] },
        scopeSpans: [
          {
            scope: { name: "hand" },
            spans: [
              {
                traceId: "5b8efff798038103d269b633813fc60c",
                spanId: "eee19b7ec3c1b174",
                name: "gzipped",
                kind: 1,
                startTimeUnixNano: "1544712660000000000",
                endTimeUnixNano: 1544712661000000000,
                attributes: [{ key: "n", value: { intValue: "7" } }],
              },
            ],
          },
        ],
      },
    ],
  };
  const ok = await post("/v1/traces", "application/json", gzipSync(JSON.stringify(json)), {
    "content-encoding": "gzip",
  });
  expect(ok).toEqual({ status: 200, text: "{}" });
  expect(receiver.spans.find((s) => s.name === "gzipped")).toMatchObject({
    startTimeUnixNano: 1544712660000000000n,
    attributes: { n: 7 },
  });
  // the JSON encoding's ids are hex: base64 ids are a bad request
  const base64 = structuredClone(json);
  base64.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId = "W47/95gDgQPSabYzgT/GDA==";
  expect(
    (await post("/v1/traces", "application/json", Buffer.from(JSON.stringify(base64)))).status,
  ).toBe(400);
  expect(
    (await post("/v1/traces", "application/x-protobuf", Buffer.from([0x0a, 0xff, 0xff]))).status,
  ).toBe(400);
  expect((await post("/v1/traces", "text/plain", Buffer.from("x"))).status).toBe(415);
  expect((await post("/v1/logs", "application/json", Buffer.from("{}"))).status).toBe(404);
});

test("holding the bodies: nothing is decoded until decodeHeld, then every span is, and a bad body is refused", async () => {
  const held = await startOtlpReceiver({ holdBodies: true });
  try {
    const exporter = new ProtoTraceExporter({ url: `${held.url}/v1/traces` });
    const provider = new BasicTracerProvider({
      resource,
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer("arbor", "0.1.0");
    for (const name of ["held-1", "held-2"]) tracer.startSpan(name).end();
    await provider.forceFlush();
    await provider.shutdown();
    const bad = await fetch(`${held.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: new Uint8Array([0x0a, 0xff, 0xff]),
    });
    // answered before it is read: the refusal comes with the decoding
    expect(bad.status).toBe(200);
    expect(held.requests).toHaveLength(3);
    expect(held.spans).toEqual([]);
    held.decodeHeld();
    expect(held.spans.map((s) => s.name).sort()).toEqual(["held-1", "held-2"]);
    expect(held.refused).toEqual([expect.objectContaining({ path: "/v1/traces", status: 400 })]);
    held.decodeHeld(); // nothing is held twice
    expect(held.spans).toHaveLength(2);
  } finally {
    await held.close();
  }
});
