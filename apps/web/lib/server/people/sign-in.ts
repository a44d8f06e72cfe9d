import { readText } from "../http";
import { maxBodyBytes } from "../request-gate";
import { getRuntime } from "../runtime";
import { clientAddress } from "./admission";

// better-auth's endpoints behind Arbor's own limits: failed sign-ins are counted per account and
// per address in the database (so the limit holds across instances), and past the limit the
// answer is 429 whether or not the account exists. docs/accounts.md, "Signing in".

/** Failures allowed within the window: per account (any address), per address (any account). */
export const SIGN_IN_LIMITS = { account: 5, address: 20, windowMs: 15 * 60_000 } as const;

/** The endpoints that check a secret: the ones whose failures count. */
const GUARDED = new Set([
  "/api/auth/sign-in/email",
  "/api/auth/sign-in/install-token",
  "/api/auth/sign-up/invitation",
  "/api/auth/sign-up/email",
]);

export async function signInRoute(request: Request): Promise<Response> {
  const runtime = await getRuntime();
  const { people } = runtime;
  const url = new URL(request.url);
  if (request.method !== "POST" || !GUARDED.has(url.pathname)) {
    return people.auth.handler(request);
  }
  const text = await readText(request, maxBodyBytes(process.env));
  const email = emailIn(text);
  const address = clientAddress(request.headers);
  const keys = [`address:${address}`, ...(email === undefined ? [] : [`account:${email}`])];
  const { windowMs } = SIGN_IN_LIMITS;
  const [byAddress, byAccount] = await Promise.all([
    people.store.failures(keys[0] as string, windowMs),
    email === undefined ? undefined : people.store.failures(`account:${email}`, windowMs),
  ]);
  const blocked = [
    byAddress.count >= SIGN_IN_LIMITS.address ? byAddress.retryAfterMs : 0,
    byAccount !== undefined && byAccount.count >= SIGN_IN_LIMITS.account
      ? byAccount.retryAfterMs
      : 0,
  ].reduce((a, b) => Math.max(a, b), 0);
  if (blocked > 0) {
    const seconds = Math.max(1, Math.ceil(blocked / 1000));
    runtime.logger.warn("sign-in refused: too many failures", { email, address });
    return Response.json(
      {
        error: "too_many_requests",
        message: `too many failed sign-ins; try again in ${seconds} s`,
      },
      { status: 429, headers: { "retry-after": String(seconds), "cache-control": "no-store" } },
    );
  }
  // a browser that was signed in already gets a new session; the old one ends (rotation)
  const previous = await people.auth.api.getSession({ headers: request.headers }).catch(() => null);
  const forwarded = new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: text,
  });
  const response = await people.auth.handler(forwarded);
  if (response.status === 401 || response.status === 403 || response.status === 400) {
    await people.store.fail(keys, windowMs);
    runtime.logger.info("sign-in failed", { path: url.pathname, email, address });
  } else if (response.ok) {
    if (email !== undefined) await people.store.clearFailures(`account:${email}`);
    if (previous !== null) await people.store.endSession(previous.session.token);
    runtime.logger.info("signed in", { path: url.pathname, email, address });
  }
  return response;
}

function emailIn(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { email?: unknown };
    return typeof body.email === "string" ? body.email.trim().toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}
