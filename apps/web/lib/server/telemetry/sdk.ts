import {
  type Attributes,
  context,
  DiagLogLevel,
  diag,
  metrics,
  ProxyTracerProvider,
  propagation,
  type Tracer,
  type TracerOptions,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { SignalExport, TelemetryConfig } from "./config";

// The OpenTelemetry SDK, loaded only when an endpoint is set (telemetry.ts imports this module
// then, and only then). Core emits spans and metrics through @opentelemetry/api alone; this wires
// the global providers that api hands them to: a BatchSpanProcessor over an OTLP/HTTP trace
// exporter, a PeriodicExportingMetricReader over an OTLP/HTTP metric exporter, the
// AsyncLocalStorage context manager, and the W3C trace-context propagator (forwarded approvals
// carry the trace context between instances). Timeouts, compression and certificates are the
// exporters' own reading of OTEL_EXPORTER_OTLP_*; batch sizes and delays the processor's of
// OTEL_BSP_*.

/** What started, to flush and stop at shutdown. */
export interface TelemetrySdk {
  /** exports what is buffered, then stops both providers; never rejects */
  shutdown(): Promise<void>;
  /** exports what is buffered now (tests) */
  forceFlush(): Promise<void>;
}

/** Next's own request spans are not Arbor's loop tree: their tracer is a no-op (decision 0060). */
export const DROPPED_TRACERS: ReadonlySet<string> = new Set(["next.js"]);

/**
 * The provider Next and core both ask: hands out a no-op tracer for DROPPED_TRACERS. Next asks for
 * its tracer at every traced step of every request: the no-op tracer is made once, not per call
 * (an unregistered ProxyTracerProvider makes a new ProxyTracer each time it is asked).
 */
class ArborTracerProvider implements TracerProvider {
  readonly #noop = new ProxyTracerProvider().getTracer("arbor.dropped");
  constructor(readonly sdk: BasicTracerProvider) {}
  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    if (DROPPED_TRACERS.has(name)) return this.#noop;
    return this.sdk.getTracer(name, version, options);
  }
}

function traceExporter(signal: SignalExport) {
  const options = { url: signal.url, headers: signal.headers };
  return signal.protocol === "http/json"
    ? new JsonTraceExporter(options)
    : new ProtoTraceExporter(options);
}

function metricExporter(signal: SignalExport) {
  const options = { url: signal.url, headers: signal.headers };
  return signal.protocol === "http/json"
    ? new JsonMetricExporter(options)
    : new ProtoMetricExporter(options);
}

/** How the SDK's own complaints (an export refused, a timeout) reach the server's log. */
export interface DiagSink {
  warn(message: string): void;
  error(message: string): void;
}

const LOG_LEVELS: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/**
 * Starts the SDK and registers it globally. Call once per process, before anything asks
 * @opentelemetry/api for a tracer or meter (instrumentation.ts, before the runtime starts).
 */
export function startSdk(
  config: Extract<TelemetryConfig, { kind: "export" }>,
  options: { sink: DiagSink; logLevel?: string },
): TelemetrySdk {
  const level = LOG_LEVELS[options.logLevel?.trim().toLowerCase() ?? ""] ?? DiagLogLevel.WARN;
  const text = (message: string, args: unknown[]) =>
    [message, ...args.map((a) => (a instanceof Error ? a.message : String(a)))].join(" ");
  diag.setLogger(
    {
      error: (m, ...a) => options.sink.error(text(m, a)),
      warn: (m, ...a) => options.sink.warn(text(m, a)),
      info: (m, ...a) => options.sink.warn(text(m, a)),
      debug: (m, ...a) => options.sink.warn(text(m, a)),
      verbose: (m, ...a) => options.sink.warn(text(m, a)),
    },
    { logLevel: level, suppressOverrideMessage: true },
  );
  const resource = defaultResource().merge(resourceFromAttributes(config.resource as Attributes));

  let tracing: BasicTracerProvider | undefined;
  if (config.traces !== undefined) {
    tracing = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(traceExporter(config.traces))],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    );
    trace.setGlobalTracerProvider(new ArborTracerProvider(tracing));
  }

  let metering: MeterProvider | undefined;
  if (config.metrics !== undefined) {
    metering = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: metricExporter(config.metrics),
          exportIntervalMillis: config.metricIntervalMs,
          exportTimeoutMillis: Math.min(30_000, config.metricIntervalMs),
        }),
      ],
    });
    metrics.setGlobalMeterProvider(metering);
  }

  const settle = (work: Promise<unknown> | undefined) =>
    (work ?? Promise.resolve()).then(
      () => undefined,
      (error: unknown) =>
        options.sink.error(`telemetry: ${error instanceof Error ? error.message : String(error)}`),
    );
  return {
    async forceFlush() {
      await Promise.all([settle(tracing?.forceFlush()), settle(metering?.forceFlush())]);
    },
    async shutdown() {
      await Promise.all([settle(tracing?.shutdown()), settle(metering?.shutdown())]);
    },
  };
}

/** Takes the globals back (tests that start the SDK more than once in a process). */
export function unregisterSdk(): void {
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
  diag.disable();
}
