import { installToken, sameSecret } from "./install-token";

// The gate every request passes before a page or route handler sees it (proxy.ts wires it):
// the Host check against DNS rebinding, the cross-site checks (Origin, Sec-Fetch-Site, JSON
// bodies only), a signed-in person's credential, the rate limit of failed credentials and the
// early body-size refusal. Pure: a request's method, URL, headers, client key and what its
// credential proved to be (people/admission.ts asks the database) in, a verdict out.
// docs/security.md says the same in prose.

type Env = Record<string, string | undefined>;

export interface GateConfig {
  /** the install token: a page opened with `?token=` of it signs the browser in as the owner */
  token: string;
  /** ARBOR_ALLOWED_HOSTS entries, lower case: a hostname, or host:port */
  allowedHosts: readonly string[];
  /** ARBOR_MAX_BODY_BYTES */
  maxBodyBytes: number;
}

export interface GateRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** who is asking, for the rate limit (the client's address) */
  clientKey: string;
}

export type ErrorCode =
  | "unauthorized"
  | "forbidden"
  | "payload_too_large"
  | "unsupported_media_type"
  | "too_many_requests";

export type Verdict =
  | { type: "pass" }
  /** a page opened with the install token as ?token=: sign the owner in, go to `location` */
  | { type: "exchange"; location: string; token: string }
  | {
      type: "refuse";
      status: number;
      error: ErrorCode;
      message: string;
      /** the page form instead of JSON (a page request without a credential) */
      loginPage?: boolean;
      headers?: Record<string, string>;
    };

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1"]);
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** build output and the icon: no credential, no secret in them */
const PUBLIC_PATHS = [/^\/_next\/static\//, /^\/icon\.svg$/, /^\/favicon\.ico$/];

/** The build's static files and the icons: served to anyone (the sign-in page needs its scripts). */
export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.some((pattern) => pattern.test(path));
}
/**
 * Where a person signs in: better-auth's endpoints, the sign-in page and an invitation's page.
 * Reached without a credential; the Host and cross-site checks still hold.
 */
const SIGN_IN_PATHS = [/^\/api\/auth\//, /^\/login$/, /^\/invite\/[^/]+$/];

/** Whether a path is reached without a credential (sign-in). */
export function isSignInPath(path: string): boolean {
  return SIGN_IN_PATHS.some((pattern) => pattern.test(path));
}

/** The gate's settings from the environment (the token is passed in: see install-token.ts). */
export function gateSettings(env: Env): Pick<GateConfig, "allowedHosts" | "maxBodyBytes"> {
  return {
    allowedHosts: (env.ARBOR_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter((entry) => entry !== ""),
    maxBodyBytes: maxBodyBytes(env),
  };
}

/** ARBOR_MAX_BODY_BYTES (a positive integer), else 4 MiB. */
export function maxBodyBytes(env: Env): number {
  const value = Number(env.ARBOR_MAX_BODY_BYTES);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_BODY_BYTES;
}

const SHARED = Symbol.for("arbor.web.requestGate");
type Shared = {
  [SHARED]?: { credentials: Pick<GateConfig, "token">; limiter: FailureLimiter };
};

/**
 * The process's gate: the token (read or made once) and the failure counts, kept on globalThis
 * because proxy.ts and the route handlers are separate bundles in one process and must count a
 * client's failures together; the other settings are read from process.env on each call.
 */
export function processGate(): { config: GateConfig; limiter: FailureLimiter } {
  const holder = globalThis as Shared;
  if (holder[SHARED] === undefined) {
    const token = installToken(process.env);
    holder[SHARED] = { credentials: { token }, limiter: new FailureLimiter() };
  }
  const { credentials, limiter } = holder[SHARED];
  return { config: { ...credentials, ...gateSettings(process.env) }, limiter };
}

/** The gate's view of a standard Request (a route handler's, or the proxy's). */
export function gateRequest(request: Request, url: URL = new URL(request.url)): GateRequest {
  return {
    method: request.method,
    url,
    headers: request.headers,
    // Next sets x-forwarded-for to the socket's address unless the client sent one
    clientKey: request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown",
  };
}

/**
 * Failed credentials per client: `limit` within `windowMs`, then 429 until the window passes.
 * The client's key is its `x-forwarded-for` address, which a client can set itself: so failures
 * are also counted over all clients together, and past `overallLimit` within the window every
 * failure is answered 429 whatever address it claims (valid credentials still pass).
 */
export class FailureLimiter {
  readonly #failures = new Map<string, Window>();
  #overall: Window | undefined;
  constructor(
    readonly limit = 10,
    readonly windowMs = 60_000,
    /** clients remembered at most (the oldest go first) */
    readonly maxClients = 10_000,
    /** failures of all clients together within the window */
    readonly overallLimit = 100,
  ) {}

  /** Seconds until the client may try again; undefined when it may now. */
  blockedFor(key: string, now: number): number | undefined {
    return (
      this.#blocked(this.#current(key, now), this.limit, now) ??
      this.#blocked(this.#currentOverall(now), this.overallLimit, now)
    );
  }

  fail(key: string, now: number): void {
    const overall = this.#currentOverall(now);
    if (overall === undefined) this.#overall = { count: 1, since: now };
    else overall.count++;
    const entry = this.#current(key, now);
    if (entry !== undefined) {
      entry.count++;
      return;
    }
    if (this.#failures.size >= this.maxClients) {
      const oldest = this.#failures.keys().next().value;
      if (oldest !== undefined) this.#failures.delete(oldest);
    }
    this.#failures.set(key, { count: 1, since: now });
  }

  #blocked(entry: Window | undefined, limit: number, now: number): number | undefined {
    if (entry === undefined || entry.count < limit) return undefined;
    return Math.max(1, Math.ceil((entry.since + this.windowMs - now) / 1000));
  }

  #current(key: string, now: number): Window | undefined {
    const entry = this.#failures.get(key);
    if (entry !== undefined && now - entry.since >= this.windowMs) {
      this.#failures.delete(key);
      return undefined;
    }
    return entry;
  }

  #currentOverall(now: number): Window | undefined {
    if (this.#overall !== undefined && now - this.#overall.since >= this.windowMs) {
      this.#overall = undefined;
    }
    return this.#overall;
  }
}

interface Window {
  count: number;
  since: number;
}

/** What a request's credential proved: a person (valid), a wrong or revoked one, or none. */
export type Credential = "bearer" | "cookie" | "wrong" | "none";

export function gate(
  request: GateRequest,
  config: GateConfig,
  limiter: FailureLimiter,
  credential: Credential,
  now = Date.now(),
): Verdict {
  const method = request.method.toUpperCase();
  const path = request.url.pathname;
  // a Request built in-process (tests) has no Host header: its URL's host stands in
  const host = request.headers.get("host") ?? request.url.host;
  if (!hostAllowed(host, config.allowedHosts)) {
    return refuse(
      403,
      "forbidden",
      `host ${JSON.stringify(host)} is not one this server answers to (ARBOR_ALLOWED_HOSTS)`,
    );
  }
  if (PUBLIC_PATHS.some((pattern) => pattern.test(path))) return { type: "pass" };
  if (method === "OPTIONS") {
    return refuse(405, "forbidden", "cross-origin requests are not accepted", {
      allow: "GET, HEAD, POST, PUT, PATCH, DELETE",
    });
  }

  const api = path.startsWith("/api/");
  const changesState = STATE_CHANGING.has(method);
  if (changesState) {
    if (request.headers.get("sec-fetch-site") === "cross-site") {
      return refuse(403, "forbidden", "cross-site requests are refused");
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !sameOrigin(origin, host)) {
      return refuse(403, "forbidden", `origin ${JSON.stringify(origin)} is not this server's`);
    }
  }

  const signIn = isSignInPath(path);
  if ((credential === "none" || credential === "wrong") && !signIn) {
    // over the limit, a failure is answered 429 (valid credentials still pass: on a loopback
    // install every client shares one address, and a stranger must not lock the owner out)
    const blocked = limiter.blockedFor(request.clientKey, now);
    if (blocked !== undefined) {
      if (credential === "wrong") limiter.fail(request.clientKey, now);
      return refuse(429, "too_many_requests", "too many failed credentials; try again later", {
        "retry-after": String(blocked),
      });
    }
    const queryToken = request.url.searchParams.get("token");
    if (!api && (method === "GET" || method === "HEAD") && queryToken !== null) {
      if (sameSecret(queryToken, config.token)) {
        const location = new URL(request.url);
        location.searchParams.delete("token");
        return {
          type: "exchange",
          location: location.pathname + location.search,
          token: queryToken,
        };
      }
      limiter.fail(request.clientKey, now);
    } else if (credential === "wrong") {
      limiter.fail(request.clientKey, now);
    }
    const message = api
      ? "this endpoint needs a signed-in person: Authorization: Bearer <a personal token or ARBOR_TOKEN>, or the session cookie"
      : "sign in, or open the URL with the token that the server printed at start";
    return {
      ...refuse(401, "unauthorized", message, { "www-authenticate": 'Bearer realm="arbor"' }),
      ...(api ? {} : { loginPage: true }),
    };
  }

  if (changesState && api) {
    // a browser always sends Origin with a state-changing request: a cookie without one is not ours
    if (credential === "cookie" && request.headers.get("origin") === null) {
      return refuse(
        403,
        "forbidden",
        "a state-changing request with the session cookie needs its Origin header",
      );
    }
    const length = request.headers.get("content-length");
    const hasBody =
      (length !== null && length.trim() !== "0") || request.headers.has("transfer-encoding");
    if (hasBody && !isJson(request.headers.get("content-type"))) {
      return refuse(415, "unsupported_media_type", "the body must be application/json");
    }
    if (length !== null && Number(length) > config.maxBodyBytes) {
      return refuse(
        413,
        "payload_too_large",
        `the body is larger than ${config.maxBodyBytes} bytes (ARBOR_MAX_BODY_BYTES)`,
      );
    }
  }
  return { type: "pass" };
}

function refuse(
  status: number,
  error: ErrorCode,
  message: string,
  headers?: Record<string, string>,
): Extract<Verdict, { type: "refuse" }> {
  return headers === undefined
    ? { type: "refuse", status, error, message }
    : { type: "refuse", status, error, message, headers };
}

/** The Host header's hostname (no port, no brackets), lower case. */
export function hostnameOf(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("[")) {
    const end = trimmed.indexOf("]");
    return end === -1 ? trimmed.slice(1) : trimmed.slice(1, end);
  }
  const colon = trimmed.lastIndexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  if (host.trim() === "") return false;
  const hostname = hostnameOf(host);
  if (LOOPBACK_HOSTS.has(hostname)) return true;
  const full = host.trim().toLowerCase();
  return allowed.some((entry) => entry === hostname || entry === full);
}

function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (
      (url.protocol === "http:" || url.protocol === "https:") &&
      url.host === host.trim().toLowerCase()
    );
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything unparsable
  }
}

function isJson(contentType: string | null): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}
