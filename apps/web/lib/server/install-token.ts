import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDirOf } from "./data-dir";

// The install's token: the one credential of every page and API route (docs/security.md).
// ARBOR_TOKEN when set; else <data dir>/token, made at first start (32 random bytes, base64url,
// mode 0600, in a 0700 data directory) and read by every later start, so a restart keeps the URL
// people have.
// Browsers trade it for the `arbor_session` cookie, whose value is derived from the token: a new
// token invalidates every old cookie, and the cookie alone never reveals the token.

type Env = Record<string, string | undefined>;

export const SESSION_COOKIE = "arbor_session";
const COOKIE_CONTEXT = "arbor-session-v1";

/** The token file's path for this environment (in the data directory). */
export function tokenFile(env: Env): string {
  return join(dataDirOf(env), "token");
}

const cache = new Map<string, string>();

/** The install token: ARBOR_TOKEN, else the data directory's token file, created when missing. */
export function installToken(env: Env = process.env): string {
  const fromEnv = env.ARBOR_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = tokenFile(env);
  const cached = cache.get(file);
  if (cached !== undefined) return cached;
  const token = readOrCreate(file);
  cache.set(file, token);
  return token;
}

function readOrCreate(file: string): string {
  const existing = readToken(file);
  if (existing !== undefined) return existing;
  // the runtime tightens a data directory that existed (securePrivateTree); a new one is 0700
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  try {
    // wx: two processes starting at once agree on the first one's token
    writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const written = readToken(file);
  if (written === undefined) throw new Error(`the token file ${file} is empty`);
  return written;
}

function readToken(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The `arbor_session` cookie's value for a token: HMAC-SHA256(token, context), base64url. */
export function sessionCookieValue(token: string): string {
  return createHmac("sha256", token).update(COOKIE_CONTEXT).digest("base64url");
}

/** Constant-time comparison of a presented secret with the expected one. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
