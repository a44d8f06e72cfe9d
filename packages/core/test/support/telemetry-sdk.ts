import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

// A real OpenTelemetry SDK for the telemetry tests: a tracer provider exporting to memory, a meter
// provider read on demand, and the AsyncLocalStorage context manager every Node SDK setup
// registers (NodeSDK, NodeTracerProvider.register()). Registered once per test file (the API's
// globals can be set once per process); `reset()` empties the exporter between tests.

/** A reader that collects when asked (the SDK's periodic reader waits for its interval). */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface TestTelemetry {
  spans(): ReadableSpan[];
  reset(): void;
  /** every data point of the metric named `name`, from a collection now */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
}

let registered: TestTelemetry | undefined;

export function registerTestTelemetry(): TestTelemetry {
  if (registered !== undefined) return registered;
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new OnDemandReader();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  registered = {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    points: async (name) => {
      const { resourceMetrics } = await reader.collect();
      const out: DataPoint<number | Histogram>[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          out.push(...(metric.dataPoints as DataPoint<number | Histogram>[]));
        }
      }
      return out;
    },
  };
  return registered;
}
