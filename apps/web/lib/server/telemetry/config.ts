import { randomUUID } from "node:crypto";

// What the OpenTelemetry export does, read from the standard OTEL_* variables only (issue #28;
// https://opentelemetry.io/docs/specs/otel/protocol/exporter/ and .../sdk-environment-variables/).
// Nothing is exported, and no SDK is loaded, unless an endpoint is set. A value the exporter could
// not use (an unknown protocol, a URL that does not parse, a malformed header list) is an error
// naming the variable, at start: the SDK's own reading would only warn and drop the data.

type Env = Readonly<Record<string, string | undefined>>;

/** OTLP over HTTP: protobuf (the default) or JSON. gRPC is not offered (docs/decisions/0060). */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Where one signal (traces or metrics) goes. */
export interface SignalExport {
  /** the full URL posted to (`…/v1/traces`, `…/v1/metrics`) */
  url: string;
  protocol: OtlpProtocol;
  /** OTEL_EXPORTER_OTLP_HEADERS with the signal's own over it: secrets, never logged */
  headers: Record<string, string>;
}

export type TelemetryConfig =
  | { kind: "off"; why: "disabled" | "no_endpoint" }
  | {
      kind: "export";
      /** absent when only the other signal has an endpoint */
      traces?: SignalExport;
      metrics?: SignalExport;
      /** the resource every span and metric carries */
      resource: Record<string, string>;
      /** ms between metric exports (OTEL_METRIC_EXPORT_INTERVAL, default 60 s) */
      metricIntervalMs: number;
    };

/** A bad OTEL_* value: the message names the variable. */
export class TelemetryConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "TelemetryConfigError";
  }
}

export const DEFAULT_SERVICE_NAME = "arbor";
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const SIGNALS = {
  traces: { name: "TRACES", path: "v1/traces" },
  metrics: { name: "METRICS", path: "v1/metrics" },
} as const;

function value(env: Env, name: string): string | undefined {
  const found = env[name]?.trim();
  return found === undefined || found === "" ? undefined : found;
}

/**
 * The export the environment asks for. Throws TelemetryConfigError on a value that cannot be
 * used. `instanceId` names this process in `service.instance.id` (several instances, one service).
 */
export function telemetryConfig(env: Env, instanceId: string = randomUUID()): TelemetryConfig {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") {
    return { kind: "off", why: "disabled" };
  }
  const traces = signalExport(env, "traces");
  const metrics = signalExport(env, "metrics");
  if (traces === undefined && metrics === undefined) return { kind: "off", why: "no_endpoint" };
  return {
    kind: "export",
    ...(traces && { traces }),
    ...(metrics && { metrics }),
    resource: resourceAttributes(env, instanceId),
    metricIntervalMs: positiveMs(env, "OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_METRIC_INTERVAL_MS),
  };
}

function signalExport(env: Env, signal: keyof typeof SIGNALS): SignalExport | undefined {
  const { name, path } = SIGNALS[signal];
  const own = `OTEL_EXPORTER_OTLP_${name}_ENDPOINT`;
  let url: string;
  // the signal's own endpoint is used as it is; the general one gets the signal's path appended
  const specific = value(env, own);
  const general = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (specific !== undefined) url = httpUrl(own, specific);
  else if (general !== undefined) {
    const base = httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", general);
    url = `${base.endsWith("/") ? base : `${base}/`}${path}`;
  } else return undefined;
  return {
    url,
    protocol: protocol(env, `OTEL_EXPORTER_OTLP_${name}_PROTOCOL`),
    headers: {
      ...headerList(env, "OTEL_EXPORTER_OTLP_HEADERS"),
      ...headerList(env, `OTEL_EXPORTER_OTLP_${name}_HEADERS`),
    },
  };
}

function httpUrl(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TelemetryConfigError(variable, `"${text}" is not a URL (e.g. http://localhost:4318)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TelemetryConfigError(
      variable,
      `OTLP/HTTP needs an http:// or https:// URL, not ${url.protocol}`,
    );
  }
  return url.toString();
}

function protocol(env: Env, own: string): OtlpProtocol {
  const variable = value(env, own) !== undefined ? own : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const text = value(env, variable) ?? "http/protobuf";
  if (text === "http/protobuf" || text === "http/json") return text;
  const hint = text === "grpc" ? " (gRPC is not supported: point Arbor at the OTLP/HTTP port)" : "";
  throw new TelemetryConfigError(
    variable,
    `"${text}" is not supported: use http/protobuf (the default) or http/json${hint}`,
  );
}

/**
 * `key=value,key2=value2`, keys and values percent-decoded (the W3C Baggage format the
 * specification names). The message never repeats a value: these hold credentials.
 */
export function headerList(env: Env, variable: string): Record<string, string> {
  const text = value(env, variable);
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  text.split(",").forEach((entry, index) => {
    if (entry.trim() === "") return;
    const at = entry.indexOf("=");
    const key = decode(variable, at > 0 ? entry.slice(0, at).trim() : "", index);
    if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      throw new TelemetryConfigError(
        variable,
        `entry ${index + 1} is not name=value (a comma-separated list, values percent-encoded)`,
      );
    }
    out[key] = decode(variable, entry.slice(at + 1).trim(), index);
  });
  return out;
}

function decode(variable: string, text: string, index: number): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new TelemetryConfigError(variable, `entry ${index + 1} has a malformed %-escape`);
  }
}

/**
 * OTEL_RESOURCE_ATTRIBUTES (same format as the headers), over Arbor's defaults; OTEL_SERVICE_NAME
 * over both (the specification's order). Values are kept as strings, as the variable gives them.
 */
function resourceAttributes(env: Env, instanceId: string): Record<string, string> {
  const attributes: Record<string, string> = {
    "service.name": DEFAULT_SERVICE_NAME,
    "service.instance.id": instanceId,
    ...headerList(env, "OTEL_RESOURCE_ATTRIBUTES"),
  };
  const serviceName = value(env, "OTEL_SERVICE_NAME");
  if (serviceName !== undefined) attributes["service.name"] = serviceName;
  return attributes;
}

function positiveMs(env: Env, variable: string, fallback: number): number {
  const text = value(env, variable);
  if (text === undefined) return fallback;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new TelemetryConfigError(variable, `"${text}" is not a whole number of milliseconds > 0`);
  }
  return ms;
}
