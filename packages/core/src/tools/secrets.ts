// Secret values and their redaction. One implementation serves the server's logger and the tool
// layer: whatever the server would never print in a log line, a tool's output never carries to
// the store or to a model either.

type Env = Readonly<Record<string, string | undefined>>;

/** A variable or field name that says its value is secret. */
export const SECRET_NAME = /key|secret|token|password|authorization|cookie|credential(?!s?_?file)/i;
export const REDACTED = "[redacted]";
/** shorter values are too likely to occur by chance (and too weak to be real keys) */
export const MIN_SECRET_LENGTH = 6;

/** The password of a URL such as `postgres://user:pw@host/db` (decoded), or "" when it has none. */
export function urlPassword(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return "";
  try {
    return decodeURIComponent(new URL(value).password);
  } catch {
    // not a URL after all (or a malformed escape): nothing to extract
    return "";
  }
}

/** The OpenTelemetry export's header lists (OTEL_EXPORTER_OTLP_HEADERS, per signal too). */
export const OTLP_HEADERS_NAME = /^OTEL_EXPORTER_OTLP_(?:[A-Z]+_)?HEADERS$/;

/**
 * The credentials in an OTLP header list (`Authorization=Basic%20abc,x-api-key=k`): each value as
 * written and percent-decoded, and the credential after an auth scheme (`Basic abc` → `abc`).
 */
export function otlpHeaderSecrets(value: string): string[] {
  const out: string[] = [];
  for (const entry of value.split(",")) {
    const raw = entry.slice(entry.indexOf("=") + 1).trim();
    if (!entry.includes("=") || raw === "") continue;
    out.push(raw);
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // a malformed escape: the raw value is the secret
    }
    out.push(decoded);
    const credential = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(decoded)?.[1];
    if (credential !== undefined) out.push(credential);
  }
  return out;
}

/**
 * The values of every environment variable whose name says it is secret, the credentials of the
 * OTLP header lists, plus the passwords of URLs (`postgres://user:pw@host`), longest first so a
 * secret containing another is replaced whole.
 */
export function secretsFromEnv(env: Env, extra: Iterable<string> = []): string[] {
  const secrets = new Set<string>();
  const add = (value: string): void => {
    if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
  };
  for (const value of extra) add(value);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (SECRET_NAME.test(name)) add(value);
    if (OTLP_HEADERS_NAME.test(name)) {
      add(value);
      for (const credential of otlpHeaderSecrets(value)) add(credential);
    }
    add(urlPassword(value));
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each secret replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * A JSON-like value with every string redacted (object keys included), structure kept. Values
 * that are not plain data (class instances, functions) pass through unchanged.
 */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return walk(value, secrets, 0) as T;
}

function walk(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === "string") return redact(value, secrets);
  // deeper than any tool's details: leave it rather than recurse without end
  if (depth > 32 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => walk(item, secrets, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[redact(key, secrets)] = walk(item, secrets, depth + 1);
  }
  return out;
}
