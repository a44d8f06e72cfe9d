import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { repoRoot } from "../crash/app-server.js";

// A small OTLP/HTTP receiver for the tests and the web bench (issue #28): a real HTTP server on
// loopback taking POST /v1/traces and /v1/metrics in both encodings of the OTLP/HTTP
// specification (opentelemetry-proto's docs/specification.md): binary protobuf
// (`application/x-protobuf`), decoded with protobufjs from the .proto files of opentelemetry-proto
// v1.11.0 vendored beside this file, and JSON (`application/json`: lowerCamelCase fields, trace
// and span ids as hex, enums as integers, 64-bit integers as decimal strings or numbers).
// `Content-Encoding: gzip` is taken. Success is 200 with an empty Export*ServiceResponse in the
// request's encoding; an unknown content type is 415, a body that does not decode 400, another
// path 404, as the specification says. Both encodings end in the same plain shapes
// (ReceivedSpan, ReceivedMetric), so a test asserts once for either.

export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export type Encoding = "protobuf" | "json";

export interface ReceivedSpan {
  /** 32 hex digits */
  traceId: string;
  /** 16 hex digits */
  spanId: string;
  /** absent on a root span */
  parentSpanId?: string;
  name: string;
  /** SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: Array<{ name: string; timeUnixNano: bigint; attributes: Attributes }>;
  links: Array<{ traceId: string; spanId: string; attributes: Attributes }>;
  /** StatusCode: 0 unset, 1 ok, 2 error */
  status: { code: number; message?: string };
  resource: Attributes;
  scope: { name: string; version?: string };
  encoding: Encoding;
}

export interface ReceivedPoint {
  attributes: Attributes;
  /** a sum's or gauge's value */
  value?: number;
  /** a histogram's */
  count?: number;
  sum?: number;
  bucketCounts?: number[];
  explicitBounds?: number[];
}

export interface ReceivedMetric {
  name: string;
  unit?: string;
  description?: string;
  kind: "sum" | "gauge" | "histogram" | "exponentialHistogram" | "summary";
  points: ReceivedPoint[];
  resource: Attributes;
  scope: { name: string; version?: string };
  encoding: Encoding;
}

export interface ReceivedRequest {
  path: string;
  encoding: Encoding;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

export interface OtlpReceiver {
  /** the base URL: give it as OTEL_EXPORTER_OTLP_ENDPOINT */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  readonly requests: ReceivedRequest[];
  /** bodies refused (400/404/415), with why */
  readonly refused: Array<{ path: string; status: number; why: string }>;
  /**
   * With `holdBodies`: decodes the bodies held so far into `spans` and `metrics` (a body that does
   * not decode goes to `refused`). Without it there is nothing held and this does nothing.
   */
  decodeHeld(): void;
  /** polls until `check` returns something other than undefined or false, or throws after `ms` */
  waitFor<T>(check: () => T | undefined | false, ms?: number, what?: string): Promise<T>;
  close(): Promise<void>;
}

const PROTO_DIR = join(repoRoot, "e2e", "support", "opentelemetry-proto");
const SERVICES = {
  "/v1/traces": "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
  "/v1/metrics": "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest",
} as const;
type SignalPath = keyof typeof SERVICES;

let types: Record<SignalPath, protobuf.Type> | undefined;

/** The request types, from the vendored .proto files (loaded once). */
function requestTypes(): Record<SignalPath, protobuf.Type> {
  if (types !== undefined) return types;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync([
    "opentelemetry/proto/collector/trace/v1/trace_service.proto",
    "opentelemetry/proto/collector/metrics/v1/metrics_service.proto",
  ]);
  types = {
    "/v1/traces": root.lookupType(SERVICES["/v1/traces"]),
    "/v1/metrics": root.lookupType(SERVICES["/v1/metrics"]),
  };
  return types;
}

/** Decodes one OTLP/HTTP protobuf body into the JSON encoding's shape (ids as hex). */
export function decodeProtobuf(path: SignalPath, body: Uint8Array): unknown {
  const type = requestTypes()[path];
  const message = type.decode(body);
  // bytes as base64 here, turned to hex below: the JSON encoding's ids are hex
  const object = type.toObject(message, { longs: String, enums: Number, bytes: String });
  return hexIds(object);
}

const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

function hexIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      ID_FIELDS.has(key) && typeof item === "string"
        ? Buffer.from(item, "base64").toString("hex")
        : hexIds(item);
  }
  return out;
}

// ---- one shape for both encodings --------------------------------------------------------------

type Json = Record<string, unknown>;

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

function int(value: unknown, field: string): bigint {
  if (value === undefined) return 0n;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  throw new Error(`${field}: not an integer: ${JSON.stringify(value)}`);
}

function num(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "") return Number(value);
  return undefined;
}

function hex(value: unknown, digits: number, field: string): string {
  if (typeof value !== "string" || !new RegExp(`^[0-9a-f]{${digits}}$`, "i").test(value)) {
    throw new Error(`${field}: not ${digits} hex digits: ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

function anyValue(value: unknown): AttributeValue {
  const v = (value ?? {}) as Json;
  if ("stringValue" in v) return String(v.stringValue);
  if ("boolValue" in v) return Boolean(v.boolValue);
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v) return list((v.arrayValue as Json | undefined)?.values).map(anyValue);
  if ("kvlistValue" in v) return attributes((v.kvlistValue as Json | undefined)?.values);
  if ("bytesValue" in v) return String(v.bytesValue);
  return null;
}

function attributes(value: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of list(value)) out[String(kv.key)] = anyValue(kv.value);
  return out;
}

function scopeOf(value: unknown): { name: string; version?: string } {
  const scope = (value ?? {}) as Json;
  return {
    name: String(scope.name ?? ""),
    ...(typeof scope.version === "string" && scope.version !== "" && { version: scope.version }),
  };
}

export function spansOf(request: unknown, encoding: Encoding): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of list((request as Json).resourceSpans)) {
    const resource = attributes((rs.resource as Json | undefined)?.attributes);
    for (const ss of list(rs.scopeSpans)) {
      const scope = scopeOf(ss.scope);
      for (const span of list(ss.spans)) {
        const parent = span.parentSpanId;
        const status = (span.status ?? {}) as Json;
        out.push({
          traceId: hex(span.traceId, 32, "traceId"),
          spanId: hex(span.spanId, 16, "spanId"),
          ...(typeof parent === "string" &&
            parent !== "" && { parentSpanId: hex(parent, 16, "parentSpanId") }),
          name: String(span.name),
          kind: Number(span.kind ?? 0),
          startTimeUnixNano: int(span.startTimeUnixNano, "startTimeUnixNano"),
          endTimeUnixNano: int(span.endTimeUnixNano, "endTimeUnixNano"),
          attributes: attributes(span.attributes),
          events: list(span.events).map((e) => ({
            name: String(e.name),
            timeUnixNano: int(e.timeUnixNano, "events.timeUnixNano"),
            attributes: attributes(e.attributes),
          })),
          links: list(span.links).map((l) => ({
            traceId: hex(l.traceId, 32, "links.traceId"),
            spanId: hex(l.spanId, 16, "links.spanId"),
            attributes: attributes(l.attributes),
          })),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === "string" &&
              status.message !== "" && { message: status.message }),
          },
          resource,
          scope,
          encoding,
        });
      }
    }
  }
  return out;
}

const METRIC_KINDS = ["sum", "gauge", "histogram", "exponentialHistogram", "summary"] as const;

export function metricsOf(request: unknown, encoding: Encoding): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rm of list((request as Json).resourceMetrics)) {
    const resource = attributes((rm.resource as Json | undefined)?.attributes);
    for (const sm of list(rm.scopeMetrics)) {
      const scope = scopeOf(sm.scope);
      for (const metric of list(sm.metrics)) {
        const kind = METRIC_KINDS.find((k) => metric[k] !== undefined);
        if (kind === undefined) throw new Error(`metric ${String(metric.name)}: no data`);
        const points = list((metric[kind] as Json).dataPoints).map(
          (p): ReceivedPoint => ({
            attributes: attributes(p.attributes),
            ...(kind === "sum" || kind === "gauge"
              ? { value: num(p.asInt ?? p.asDouble) }
              : {
                  count: num(p.count),
                  sum: num(p.sum),
                  ...(kind === "histogram" && {
                    bucketCounts: (Array.isArray(p.bucketCounts) ? p.bucketCounts : []).map((c) =>
                      Number(c),
                    ),
                    explicitBounds: (Array.isArray(p.explicitBounds) ? p.explicitBounds : []).map(
                      (b) => Number(b),
                    ),
                  }),
                }),
          }),
        );
        out.push({
          name: String(metric.name),
          ...(typeof metric.unit === "string" && metric.unit !== "" && { unit: metric.unit }),
          ...(typeof metric.description === "string" &&
            metric.description !== "" && { description: metric.description }),
          kind,
          points,
          resource,
          scope,
          encoding,
        });
      }
    }
  }
  return out;
}

// ---- the server ----------------------------------------------------------------------------------

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body;
}

export interface ReceiverOptions {
  /**
   * Answer every well-formed post at once and keep its body undecoded until `decodeHeld()`. A
   * bench that measures latency in this process uses it, so the receiver's decoding (the
   * backend's work, elsewhere in a real deployment) does not stall the measuring clients.
   */
  holdBodies?: boolean;
}

interface HeldBody {
  signal: SignalPath;
  encoding: Encoding;
  body: Buffer;
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpReceiver(options: ReceiverOptions = {}): Promise<OtlpReceiver> {
  requestTypes(); // a broken .proto fails here, not on the first request
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const requests: ReceivedRequest[] = [];
  const refused: OtlpReceiver["refused"] = [];
  const held: HeldBody[] = [];

  /** Decodes one body into `spans` or `metrics`; throws when it does not decode. */
  const take = ({ signal, encoding, body }: HeldBody) => {
    const decoded =
      encoding === "protobuf"
        ? decodeProtobuf(signal, body)
        : (JSON.parse(body.toString("utf8")) as unknown);
    if (signal === "/v1/traces") spans.push(...spansOf(decoded, encoding));
    else metrics.push(...metricsOf(decoded, encoding));
  };

  const refuse = (response: ServerResponse, path: string, status: number, why: string) => {
    refused.push({ path, status, why });
    response.writeHead(status, { "content-type": "text/plain" });
    response.end(why);
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? "").split("?")[0] ?? "";
      if (request.method !== "POST" || !(path in SERVICES)) {
        refuse(
          response,
          path,
          request.method === "POST" ? 404 : 405,
          "POST /v1/traces or /v1/metrics",
        );
        return;
      }
      const signal = path as SignalPath;
      const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim();
      const encoding: Encoding | undefined =
        type === "application/x-protobuf"
          ? "protobuf"
          : type === "application/json"
            ? "json"
            : undefined;
      if (encoding === undefined) {
        refuse(response, path, 415, `unsupported content type ${type}`);
        return;
      }
      try {
        const body = await readBody(request);
        requests.push({ path, encoding, headers: request.headers, bytes: body.length });
        if (options.holdBodies) held.push({ signal, encoding, body });
        else take({ signal, encoding, body });
      } catch (error) {
        refuse(response, path, 400, error instanceof Error ? error.message : String(error));
        return;
      }
      // an empty Export*ServiceResponse: full success
      response.writeHead(200, {
        "content-type": encoding === "json" ? "application/json" : "application/x-protobuf",
      });
      response.end(encoding === "json" ? "{}" : "");
    })();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    spans,
    metrics,
    requests,
    refused,
    decodeHeld() {
      for (const entry of held.splice(0)) {
        try {
          take(entry);
        } catch (error) {
          refused.push({
            path: entry.signal,
            status: 400,
            why: error instanceof Error ? error.message : String(error),
          });
        }
      }
    },
    async waitFor<T>(check: () => T | undefined | false, ms = 15_000, what = "the condition") {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = check();
        if (found !== undefined && found !== false) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `OTLP receiver: ${what} not met after ${ms} ms (${spans.length} spans: ${[
              ...new Set(spans.map((s) => s.name)),
            ].join(
              ", ",
            )}; ${metrics.length} metric points sets; refused ${JSON.stringify(refused)})`,
          );
        }
        await sleep(50);
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
