"use client";

import { passkeyClient } from "@better-auth/passkey/client";
import { createAuthClient } from "better-auth/client";

// better-auth's browser client, for what needs the browser's WebAuthn API (passkeys). Everything
// else the account pages post with fetch to /api/auth/* (lib/server/people/sign-in.ts wraps it).

function makeClient() {
  return createAuthClient({
    baseURL: window.location.origin,
    basePath: "/api/auth",
    plugins: [passkeyClient()],
  });
}

let client: ReturnType<typeof makeClient> | undefined;

/** The client of this page's origin (made on first use: only ever in the browser). */
export function authClient(): ReturnType<typeof makeClient> {
  client ??= makeClient();
  return client;
}

/** POSTs JSON to one of better-auth's endpoints (same origin, so the cookie and Origin go too). */
export function postAuth(path: string, body: unknown = {}): Promise<Response> {
  return fetch(`/api/auth${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
}

/** Starts an SSO sign-in: better-auth answers the provider's URL, which the browser follows. */
export async function startSso(next: string): Promise<string | undefined> {
  // better-auth 1.7 serves generic OAuth providers through its social sign-in
  const response = await postAuth("/sign-in/social", {
    provider: "oidc",
    callbackURL: next,
    errorCallbackURL: "/login",
    newUserCallbackURL: next,
  });
  if (!response.ok) return `Signing in with SSO failed (HTTP ${response.status}).`;
  const { url } = (await response.json()) as { url?: string };
  if (typeof url !== "string") return "Signing in with SSO failed: no provider URL.";
  window.location.assign(url);
  return undefined;
}
