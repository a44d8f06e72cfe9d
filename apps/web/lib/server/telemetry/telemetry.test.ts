import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { unregisterSdk } from "./sdk";
import { forgetTelemetry, shutdownTelemetry, startTelemetry } from "./telemetry";

// The SDK wiring against a real HTTP server on loopback standing in for a collector: what the
// exporters post (path, content type, the configured headers, the body), the global registration
// (context manager, propagator, Next's tracer dropped), the shutdown flush, and no SDK without an
// endpoint. The OTLP decoding itself is e2e/support/otlp-receiver.ts's, tested against the same
// exporters there.

interface Posted {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let server: Server;
let url: string;
const posted: Posted[] = [];
const sink = {
  warnings: [] as string[],
  warn: (m: string) => sink.warnings.push(m),
  error: (m: string) => sink.warnings.push(m),
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      posted.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      const json = request.headers["content-type"] === "application/json";
      response.writeHead(200, {
        "content-type": json ? "application/json" : "application/x-protobuf",
      });
      response.end(json ? "{}" : "");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => server.close());

afterEach(() => {
  unregisterSdk();
  forgetTelemetry();
  posted.length = 0;
});

/** Spans like core's: a run, a request inside it after an await, and one of Next's. */
async function emit(): Promise<{ runSpanId: string; traceparent: string | undefined }> {
  const tracer = trace.getTracer("arbor");
  let traceparent: string | undefined;
  const runSpanId = await tracer.startActiveSpan("invoke_agent arbor", async (run) => {
    await sleep(5);
    // the AsyncLocalStorage context manager: the run is still the active span after an await
    expect(trace.getActiveSpan()).toBe(run);
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    traceparent = carrier.traceparent;
    const chat = tracer.startSpan("chat claude-test");
    chat.setAttribute("gen_ai.usage.input_tokens", 12);
    chat.end();
    trace.getTracer("next.js").startActiveSpan("GET /api/sessions", (next) => {
      expect(next.isRecording()).toBe(false);
      next.end();
    });
    run.end();
    return run.spanContext().spanId;
  });
  metrics.getMeter("arbor").createCounter("arbor.test.count").add(1, { outcome: "ok" });
  return { runSpanId, traceparent };
}

async function postedTo(path: string): Promise<Posted> {
  for (let i = 0; i < 100; i++) {
    const found = posted.find((p) => p.path === path);
    if (found !== undefined) return found;
    await sleep(20);
  }
  throw new Error(`nothing posted to ${path}: ${posted.map((p) => p.path).join(", ")}`);
}

describe("startTelemetry", () => {
  it("http/protobuf (the default): both signals reach the endpoint with the headers; shutdown flushes", async () => {
    const started = await startTelemetry(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: url,
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20c2VjcmV0LXZhbHVl",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: "x-scope=metrics",
      },
      sink,
    );
    expect(started.kind).toBe("export");
    const { traceparent, runSpanId } = await emit();
    // W3C trace context: what a forwarded approval carries to another instance
    expect(traceparent).toMatch(new RegExp(`^00-[0-9a-f]{32}-${runSpanId}-01$`));
    expect(posted).toEqual([]); // batched: nothing leaves before the processor's delay
    await shutdownTelemetry();
    const traces = await postedTo("/v1/traces");
    expect(traces.headers["content-type"]).toBe("application/x-protobuf");
    expect(traces.headers.authorization).toBe("Basic c2VjcmV0LXZhbHVl");
    expect(traces.headers["x-scope"]).toBeUndefined();
    const body = traces.body.toString("latin1");
    expect(body).toContain("invoke_agent arbor");
    expect(body).toContain("chat claude-test");
    expect(body).toContain("gen_ai.usage.input_tokens");
    expect(body).not.toContain("GET /api/sessions");
    // the resource: service.name defaults to arbor
    expect(body).toContain("service.name");
    expect(body).toContain("arbor");
    const metricsPost = await postedTo("/v1/metrics");
    expect(metricsPost.headers["content-type"]).toBe("application/x-protobuf");
    expect(metricsPost.headers["x-scope"]).toBe("metrics");
    expect(metricsPost.body.toString("latin1")).toContain("arbor.test.count");
  });

  it("http/json: the OTLP JSON encoding (hex ids, the parent's id on the child)", async () => {
    await startTelemetry(
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/custom/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "arbor-eu",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
      },
      sink,
    );
    const { runSpanId } = await emit();
    await shutdownTelemetry();
    const traces = await postedTo("/custom/traces");
    expect(traces.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(traces.body.toString("utf8")) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
        scopeSpans: Array<{
          spans: Array<{ name: string; spanId: string; parentSpanId?: string }>;
        }>;
      }>;
    };
    const resource = Object.fromEntries(
      body.resourceSpans[0]!.resource.attributes.map((a) => [a.key, a.value.stringValue]),
    );
    expect(resource["service.name"]).toBe("arbor-eu");
    expect(resource["deployment.environment.name"]).toBe("test");
    expect(resource["service.instance.id"]).toMatch(/^[0-9a-f-]{36}$/);
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.map((s) => s.name).sort()).toEqual(["chat claude-test", "invoke_agent arbor"]);
    expect(spans.find((s) => s.name === "chat claude-test")?.parentSpanId).toBe(runSpanId);
    // only traces had an endpoint: no metrics were sent anywhere
    await sleep(100);
    expect(posted.map((p) => p.path)).toEqual(["/custom/traces"]);
  });

  it("without an endpoint (or with OTEL_SDK_DISABLED=true) the SDK is never loaded", async () => {
    const load = () => Promise.reject(new Error("the SDK was loaded"));
    expect(await startTelemetry({}, sink, load)).toEqual({ kind: "off", why: "no_endpoint" });
    forgetTelemetry();
    expect(
      await startTelemetry(
        { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: url },
        sink,
        load,
      ),
    ).toEqual({ kind: "off", why: "disabled" });
    // @opentelemetry/api's no-ops answer: nothing records, nothing is sent
    const span = trace.getTracer("arbor").startSpan("invoke_agent arbor");
    expect(span.isRecording()).toBe(false);
    span.end();
    await shutdownTelemetry();
    expect(posted).toEqual([]);
  });

  it("an unusable variable rejects the start, naming it; the SDK is not loaded", async () => {
    const load = () => Promise.reject(new Error("the SDK was loaded"));
    await expect(
      startTelemetry(
        { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
        sink,
        load,
      ),
    ).rejects.toThrow(/^OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported/);
  });

  it("an export the collector refuses reaches the server's log (not silence)", async () => {
    sink.warnings.length = 0;
    await startTelemetry(
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9/v1/traces" },
      sink,
    );
    trace.getTracer("arbor").startSpan("invoke_agent arbor").end();
    await shutdownTelemetry();
    expect(sink.warnings.join("\n")).toMatch(/ECONNREFUSED|export|connect/i);
  });
});
