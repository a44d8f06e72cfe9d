import type { HttpCallPreview } from "../model/message-types.js";
import { ToolError, type ToolResult } from "../tools/tool.js";
import type { OpenApiAuthConfig } from "./config.js";
import { CrossOriginRedirectError, guardedFetch } from "./guarded-fetch.js";
import {
  type AddressLookup,
  DEFAULT_NETWORK_POLICY,
  type OpenApiNetworkPolicy,
} from "./network-policy.js";
import type { OpenApiOperation, OperationParameter } from "./operations.js";

// REQ-154: one tool call, one HTTP request. Check the arguments, put path parameters into the
// path (percent-encoded), query and header parameters in their places, the credential from the
// environment, a JSON body; send; read at most `maxResponseBytes` of the answer (cut on a UTF-8
// boundary) and answer `{METHOD} {URL} → {STATUS}\n\n{BODY}`. A status outside 2xx, a refused
// connection or a timeout is a failed tool result (ToolError), with the same text.
//
// The request goes through guardedFetch: the host is checked against the network policy (and
// what it resolves to) before each hop, and only same-origin redirects are followed. The
// credential is sent only to the origin it was configured for (`auth.origin`: base_url, else the
// spec's server, at load time); an operation whose server is elsewhere is not called.

/** The documented bound of a response body given to the model (docs/openapi.md). */
export const DEFAULT_OPENAPI_MAX_RESPONSE_BYTES = 32 * 1024;
export const DEFAULT_OPENAPI_TIMEOUT_MS = 60_000;

type Env = Readonly<Record<string, string | undefined>>;

/** How the credential is placed once the spec's schemes are known (api_key's in/name settled). */
export type ResolvedAuth = (
  | { type: "bearer"; env: string }
  | { type: "basic"; env: string }
  | { type: "api_key"; env: string; in: "header" | "query"; name: string }
) & {
  /** the only origin (scheme://host:port) the credential is sent to; undefined: none known */
  origin?: string;
};

/** What the approval card shows of a call: method, full URL, the credential's variable and host. */
export type { HttpCallPreview };

export interface HttpCallOptions {
  env: Env;
  auth?: ResolvedAuth;
  /** where requests may go (default: no loopback; never link-local or metadata addresses) */
  network?: OpenApiNetworkPolicy;
  lookup?: AddressLookup;
  maxResponseBytes?: number;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}

export interface OpenApiCallDetails {
  method: string;
  /** the URL called, a query credential shown as [redacted] */
  url: string;
  status?: number;
  /** bytes of the body read (at most maxResponseBytes + one chunk) */
  bytes?: number;
  truncated?: boolean;
}

/** api_key auth without `in`/`name`: the spec's first apiKey scheme, else header X-API-Key. */
export function resolveAuth(
  auth: OpenApiAuthConfig | undefined,
  document: unknown,
  /** the URL whose origin alone receives the credential (base_url, else the spec's server) */
  boundTo?: string,
): ResolvedAuth | undefined {
  if (auth === undefined) return undefined;
  const origin = originOf(boundTo);
  const bound = origin !== undefined ? { origin } : {};
  if (auth.type !== "api_key") return { type: auth.type, env: auth.env, ...bound };
  let scheme: { in?: unknown; name?: unknown } | undefined;
  const schemes = (document as { components?: { securitySchemes?: unknown } })?.components
    ?.securitySchemes;
  if (typeof schemes === "object" && schemes !== null) {
    scheme = Object.values(schemes).find(
      (s): s is { type: string; in?: unknown; name?: unknown } =>
        typeof s === "object" && s !== null && (s as { type?: unknown }).type === "apiKey",
    );
  }
  const place =
    auth.in ?? (scheme?.in === "query" || scheme?.in === "header" ? scheme.in : "header");
  const name = auth.name ?? (typeof scheme?.name === "string" ? scheme.name : "X-API-Key");
  return { type: "api_key", env: auth.env, in: place, name, ...bound };
}

function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

interface PreparedCall {
  method: string;
  /** the URL without a credential: `base` + `path` + `query` */
  url: string;
  base: string;
  /** the path with its parameters filled in */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body?: string;
}

/**
 * The request of a call, credential not yet placed: the arguments checked, path parameters
 * filled in. Throws invalidArgs for wrong arguments, failed without a server URL.
 */
function prepare(operation: OpenApiOperation, args: Record<string, unknown>): PreparedCall {
  const method = operation.method;
  if (operation.baseUrl === undefined) {
    throw ToolError.failed(
      `${operation.toolName}: the spec names no absolute server URL; set base_url in .arbor/openapi.json`,
    );
  }
  for (const p of operation.parameters) {
    if (p.required && (args[p.key] === undefined || args[p.key] === null)) {
      throw ToolError.invalidArgs(`${p.key} is required (${p.in} parameter ${p.name})`);
    }
  }
  if (operation.body?.required === true && args[operation.body.key] === undefined) {
    throw ToolError.invalidArgs(`${operation.body.key} is required (the JSON request body)`);
  }
  let path = operation.path;
  const query = new URLSearchParams();
  const headers = new Headers({ accept: "application/json, */*;q=0.5" });
  for (const p of operation.parameters) {
    const value = args[p.key];
    if (value === undefined || value === null) continue;
    if (p.in === "path") {
      if (typeof value === "object") {
        throw ToolError.invalidArgs(
          `${p.key} must be a string, number or boolean (path parameter)`,
        );
      }
      path = path.split(`{${p.name}}`).join(encodePathSegment(String(value)));
    } else if (p.in === "query") {
      appendQuery(query, p, value);
    } else {
      headers.set(p.name, headerValue(value));
    }
  }
  const base = operation.baseUrl.replace(/\/+$/, "");
  const url = `${base}${path}${query.size > 0 ? `?${query.toString()}` : ""}`;
  let body: string | undefined;
  if (operation.body !== undefined && args[operation.body.key] !== undefined) {
    body = JSON.stringify(args[operation.body.key]);
    headers.set("content-type", "application/json");
  }
  return {
    method,
    url,
    headers,
    query,
    base,
    path,
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * Where a credential would go and what the approval card shows. Undefined when the arguments
 * do not make a request (the call will fail with the reason instead).
 */
export function describeOperationCall(
  operation: OpenApiOperation,
  args: Record<string, unknown>,
  auth: ResolvedAuth | undefined,
): HttpCallPreview | undefined {
  let prepared: PreparedCall;
  try {
    prepared = prepare(operation, args);
  } catch {
    return undefined;
  }
  const { base, path, query, method } = prepared;
  let shownQuery = query.toString();
  if (auth?.type === "api_key" && auth.in === "query") {
    const without = new URLSearchParams(query);
    without.delete(auth.name);
    shownQuery = appendRedacted(without, auth.name);
  }
  const url = `${base}${path}${shownQuery !== "" ? `?${shownQuery}` : ""}`;
  if (auth === undefined) return { kind: "http", method, url };
  const host = auth.origin !== undefined ? new URL(auth.origin).host : new URL(url).host;
  const credential: NonNullable<HttpCallPreview["credential"]> =
    auth.type === "api_key"
      ? { env: auth.env, placement: auth.in, name: auth.name, host }
      : { env: auth.env, placement: auth.type, host };
  return { kind: "http", method, url, credential };
}

export async function callOperation(
  operation: OpenApiOperation,
  args: Record<string, unknown>,
  options: HttpCallOptions,
): Promise<ToolResult<OpenApiCallDetails>> {
  const prepared = prepare(operation, args);
  const { method, headers, query, base, path } = prepared;
  const body = prepared.body;
  const credential = options.auth === undefined ? undefined : options.env[options.auth.env]?.trim();
  if (options.auth !== undefined && !credential) {
    throw ToolError.failed(
      `${operation.toolName}: the credential variable ${options.auth.env} is not set in Arbor's environment`,
    );
  }
  const target = new URL(prepared.url);
  if (options.auth?.origin !== undefined && target.origin !== options.auth.origin) {
    throw ToolError.failed(
      `${operation.toolName}: not called: its server ${target.host} is not ${new URL(options.auth.origin).host}, the only host ${options.auth.env} is sent to`,
    );
  }
  let displayQuery = query.toString();
  if (options.auth !== undefined && credential) {
    const auth = options.auth;
    if (auth.type === "bearer") headers.set("authorization", `Bearer ${credential}`);
    else if (auth.type === "basic") {
      headers.set("authorization", `Basic ${Buffer.from(credential).toString("base64")}`);
    } else if (auth.in === "header") headers.set(auth.name, credential);
    else {
      query.delete(auth.name);
      displayQuery = appendRedacted(query, auth.name);
      query.set(auth.name, credential);
    }
  }
  const url = `${base}${path}${query.size > 0 ? `?${query.toString()}` : ""}`;
  const shown = `${base}${path}${displayQuery !== "" ? `?${displayQuery}` : ""}`;
  const details: OpenApiCallDetails = { method, url: shown };
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_OPENAPI_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    // same-origin redirects only: a credential never follows a redirect to another host, and
    // an allowed host cannot send the server on to a forbidden or unknown one
    ({ response } = await guardedFetch(
      url,
      { method, headers, ...(body !== undefined ? { body } : {}), signal },
      {
        policy: options.network ?? DEFAULT_NETWORK_POLICY,
        ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
        ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
      },
    ));
  } catch (error) {
    if (options.signal?.aborted) throw ToolError.cancelled(`${method} ${shown}: cancelled`);
    if (error instanceof CrossOriginRedirectError) {
      throw ToolError.failed(`${method} ${shown} failed: ${error.message}`);
    }
    const why = timeout.aborted
      ? `no answer within ${Math.round((options.timeoutMs ?? DEFAULT_OPENAPI_TIMEOUT_MS) / 1000)} s`
      : causeMessage(error);
    throw ToolError.failed(`${method} ${shown} failed: ${why}`);
  }
  const limit = options.maxResponseBytes ?? DEFAULT_OPENAPI_MAX_RESPONSE_BYTES;
  const read = await readLimited(response, limit);
  details.status = response.status;
  details.bytes = read.bytes;
  details.truncated = read.truncated;
  const note = read.truncated
    ? `\n\n[truncated: the first ${limit} bytes${read.total !== undefined ? ` of ${read.total}` : ""} are shown]`
    : "";
  const text = `${method} ${shown} → ${response.status}\n\n${read.text}${note}`;
  if (response.status < 200 || response.status > 299) throw ToolError.failed(text);
  return { content: [{ type: "text", text }], details };
}

/** RFC 3986: everything but the unreserved characters is percent-encoded. */
export function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function appendQuery(query: URLSearchParams, p: OperationParameter, value: unknown): void {
  const explode = p.explode ?? (p.style === undefined || p.style === "form");
  if (Array.isArray(value)) {
    if (explode) for (const item of value) query.append(p.name, scalar(item));
    else {
      const separator =
        p.style === "spaceDelimited" ? " " : p.style === "pipeDelimited" ? "|" : ",";
      query.append(p.name, value.map(scalar).join(separator));
    }
    return;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (p.style === "deepObject") {
      for (const [k, v] of entries) query.append(`${p.name}[${k}]`, scalar(v));
    } else if (explode) {
      for (const [k, v] of entries) query.append(k, scalar(v));
    } else {
      query.append(p.name, entries.flatMap(([k, v]) => [k, scalar(v)]).join(","));
    }
    return;
  }
  query.append(p.name, scalar(value));
}

function scalar(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

function headerValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(scalar).join(",");
  return scalar(value);
}

/** The query as shown: the credential's parameter present, its value [redacted]. */
function appendRedacted(query: URLSearchParams, name: string): string {
  const shown = new URLSearchParams(query);
  shown.set(name, "[redacted]");
  return shown.toString().replace(/%5Bredacted%5D/g, "[redacted]");
}

async function readLimited(
  response: Response,
  limit: number,
): Promise<{ text: string; bytes: number; truncated: boolean; total?: number }> {
  const declared = Number(response.headers.get("content-length"));
  const total = Number.isFinite(declared) && declared > 0 ? declared : undefined;
  if (response.body === null) return { text: "", bytes: 0, truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      if (bytes > limit) {
        truncated = true;
        break;
      }
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => undefined);
  }
  const all = Buffer.concat(chunks);
  return {
    text: truncated ? utf8Prefix(all, limit) : all.toString("utf8"),
    bytes,
    truncated,
    ...(total !== undefined ? { total } : {}),
  };
}

/** At most `limit` bytes of `bytes` as text, never splitting a UTF-8 character. */
export function utf8Prefix(bytes: Uint8Array, limit: number): string {
  let end = Math.min(limit, bytes.length);
  // step back over continuation bytes (10xxxxxx) to the start of the character that was cut
  if (end < bytes.length) {
    while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("utf8");
}

function causeMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
