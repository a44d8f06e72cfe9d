import { type TelemetryConfig, telemetryConfig } from "./config";
import type { DiagSink, TelemetrySdk } from "./sdk";

// Starting and stopping the OpenTelemetry export (issue #28, docs/observability.md). The SDK
// module is imported only when the environment sets an endpoint: without one, no SDK code is
// loaded and @opentelemetry/api's no-op providers answer core's calls at the cost of a function
// call. Started once from instrumentation.ts, before the runtime; flushed by the shutdown
// (shutdown.ts) after the runtime has closed, so the last run's spans leave too.

type Env = Readonly<Record<string, string | undefined>>;

export type StartedTelemetry =
  | { kind: "off"; why: "disabled" | "no_endpoint" }
  | { kind: "export"; config: Extract<TelemetryConfig, { kind: "export" }>; sdk: TelemetrySdk };

// on globalThis: instrumentation.ts and the route handlers (shutdown.ts) are separate bundles
const KEY = Symbol.for("arbor.web.telemetry");
type Holder = { [KEY]?: StartedTelemetry };

export type LoadSdk = () => Promise<typeof import("./sdk")>;

/**
 * Reads the OTEL_* variables and, when they set an endpoint, loads the SDK and registers it
 * globally. Throws TelemetryConfigError (naming the variable) on a value that cannot be used.
 * A second call returns the first one's result.
 */
export async function startTelemetry(
  env: Env,
  sink: DiagSink,
  load: LoadSdk = () => import("./sdk"),
): Promise<StartedTelemetry> {
  const holder = globalThis as Holder;
  if (holder[KEY] !== undefined) return holder[KEY];
  const config = telemetryConfig(env);
  if (config.kind === "off") {
    holder[KEY] = config;
    return config;
  }
  const { startSdk } = await load();
  const started: StartedTelemetry = {
    kind: "export",
    config,
    sdk: startSdk(config, { sink, logLevel: env.OTEL_LOG_LEVEL }),
  };
  holder[KEY] = started;
  return started;
}

/** Exports what is buffered and stops the SDK; nothing when it never started. Never rejects. */
export async function shutdownTelemetry(): Promise<void> {
  const started = (globalThis as Holder)[KEY];
  if (started?.kind === "export") await started.sdk.shutdown();
}

/** Forgets the started SDK (tests only: the globals are taken back by unregisterSdk). */
export function forgetTelemetry(): void {
  delete (globalThis as Holder)[KEY];
}

/** What the start line says: where spans and metrics go, never the headers. */
export function describeTelemetry(started: StartedTelemetry): string {
  if (started.kind === "off") {
    return started.why === "disabled"
      ? "OpenTelemetry export off (OTEL_SDK_DISABLED=true)"
      : "OpenTelemetry export off (no OTEL_EXPORTER_OTLP_ENDPOINT)";
  }
  const { traces, metrics, resource } = started.config;
  // origin and path only: a URL's user:password part is a credential too
  const where = (s: typeof traces) => {
    if (s === undefined) return "off";
    const url = new URL(s.url);
    return `${url.origin}${url.pathname} (${s.protocol})`;
  };
  return `OpenTelemetry export as ${resource["service.name"]}: traces ${where(traces)}, metrics ${where(metrics)}`;
}
