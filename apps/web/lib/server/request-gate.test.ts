import { describe, expect, it } from "vitest";
import {
  type Credential,
  FailureLimiter,
  type GateConfig,
  type GateRequest,
  gate,
  hostAllowed,
  maxBodyBytes,
} from "./request-gate";

const TOKEN = "install-token-0123456789";
const config: GateConfig = {
  token: TOKEN,
  allowedHosts: ["arbor.example.com"],
  maxBodyBytes: 1000,
};
const SESSION = "valid-session";
const cookie = `other=1; arbor.session_token=${SESSION}`;

/**
 * What people.authenticate would prove (the database's part, tested in test/accounts.test.ts):
 * the install token as Bearer, a valid session cookie, anything else presented is wrong.
 */
function credentialOf(req: GateRequest): Credential {
  const authorization = req.headers.get("authorization");
  if (authorization !== null) return authorization === `Bearer ${TOKEN}` ? "bearer" : "wrong";
  const cookies = req.headers.get("cookie");
  if (cookies === null || !cookies.includes("arbor.session_token=")) return "none";
  return cookies.includes(`arbor.session_token=${SESSION}`) ? "cookie" : "wrong";
}

function request(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  clientKey = "127.0.0.1",
): GateRequest {
  return {
    method,
    url: new URL(`http://127.0.0.1:3000${path}`),
    headers: new Headers({ host: "127.0.0.1:3000", ...headers }),
    clientKey,
  };
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const json = { "content-type": "application/json", "content-length": "2" };

function verdictOf(req: GateRequest, limiter = new FailureLimiter()) {
  return gate(req, config, limiter, credentialOf(req), 1_000_000);
}

describe("the request gate", () => {
  it("answers the install's credential: Bearer or the session cookie", () => {
    expect(verdictOf(request("GET", "/api/sessions", bearer))).toEqual({ type: "pass" });
    expect(verdictOf(request("GET", "/api/sessions", { cookie }))).toEqual({ type: "pass" });
    expect(verdictOf(request("GET", "/api/sessions"))).toMatchObject({
      status: 401,
      error: "unauthorized",
    });
    expect(
      verdictOf(request("GET", "/api/sessions", { authorization: "Bearer nope" })),
    ).toMatchObject({
      status: 401,
    });
    expect(
      verdictOf(request("GET", "/api/sessions", { cookie: "arbor.session_token=forged" })),
    ).toMatchObject({
      status: 401,
    });
  });

  it("lets static build files through and gives a page the sign-in form", () => {
    expect(verdictOf(request("GET", "/_next/static/chunks/app.js"))).toEqual({ type: "pass" });
    expect(verdictOf(request("GET", "/icon.svg"))).toEqual({ type: "pass" });
    expect(verdictOf(request("GET", "/sessions/abc"))).toMatchObject({
      status: 401,
      loginPage: true,
    });
  });

  it("trades a page's ?token= for a sign-in and drops it from the URL", () => {
    const verdict = verdictOf(request("GET", `/sessions/abc?x=1&token=${TOKEN}`));
    expect(verdict).toEqual({ type: "exchange", location: "/sessions/abc?x=1", token: TOKEN });
    expect(verdictOf(request("GET", "/api/sessions?token=x"))).toMatchObject({ status: 401 });
    expect(verdictOf(request("GET", `/?token=wrong`))).toMatchObject({
      status: 401,
      loginPage: true,
    });
  });

  it("lets the sign-in paths through without a credential", () => {
    expect(verdictOf(request("GET", "/login"))).toEqual({ type: "pass" });
    expect(verdictOf(request("GET", "/invite/abc"))).toEqual({ type: "pass" });
    expect(
      verdictOf(
        request("POST", "/api/auth/sign-in/email", { ...json, origin: "http://127.0.0.1:3000" }),
      ),
    ).toEqual({ type: "pass" });
    // still not from another site
    expect(
      verdictOf(
        request("POST", "/api/auth/sign-in/email", { ...json, origin: "http://evil.example" }),
      ),
    ).toMatchObject({ status: 403 });
    expect(verdictOf(request("GET", "/login/../api/sessions"))).toMatchObject({ status: 401 });
  });

  it("refuses hosts it is not configured for, before anything else", () => {
    const foreign = { ...request("GET", "/api/sessions", bearer) };
    foreign.headers.set("host", "attacker.example");
    expect(verdictOf(foreign)).toMatchObject({ status: 403, error: "forbidden" });
    expect(hostAllowed("localhost:3000", [])).toBe(true);
    expect(hostAllowed("[::1]:3000", [])).toBe(true);
    expect(hostAllowed("127.0.0.1", [])).toBe(true);
    expect(hostAllowed("arbor.example.com:443", ["arbor.example.com"])).toBe(true);
    expect(hostAllowed("arbor.example.com:8080", ["arbor.example.com:443"])).toBe(false);
    expect(hostAllowed("localhost.attacker.example", [])).toBe(false);
    expect(hostAllowed("", [])).toBe(false);
  });

  it("refuses cross-site state changes, non-JSON bodies and cookie changes without an Origin", () => {
    const evil = { origin: "http://evil.example" };
    expect(
      verdictOf(request("POST", "/api/sessions", { ...bearer, ...json, ...evil })),
    ).toMatchObject({
      status: 403,
    });
    expect(
      verdictOf(
        request("POST", "/api/sessions", { ...bearer, ...json, "sec-fetch-site": "cross-site" }),
      ),
    ).toMatchObject({ status: 403 });
    expect(
      verdictOf(
        request("POST", "/api/sessions", {
          ...bearer,
          "content-type": "text/plain",
          "content-length": "2",
        }),
      ),
    ).toMatchObject({ status: 415, error: "unsupported_media_type" });
    expect(verdictOf(request("POST", "/api/sessions", { cookie, ...json }))).toMatchObject({
      status: 403,
    });
    expect(
      verdictOf(
        request("POST", "/api/sessions", { cookie, ...json, origin: "http://127.0.0.1:3000" }),
      ),
    ).toEqual({ type: "pass" });
    expect(verdictOf(request("POST", "/api/sessions", { ...bearer, ...json }))).toEqual({
      type: "pass",
    });
    // a GET with a foreign Origin reads nothing the cookie would not show the page itself
    expect(verdictOf(request("GET", "/api/sessions", { cookie, ...evil }))).toEqual({
      type: "pass",
    });
    expect(verdictOf(request("OPTIONS", "/api/sessions", evil))).toMatchObject({ status: 405 });
  });

  it("refuses a body whose Content-Length is over the limit before it is read", () => {
    const big = { "content-type": "application/json", "content-length": "1001" };
    expect(verdictOf(request("POST", "/api/sessions", { ...bearer, ...big }))).toMatchObject({
      status: 413,
      error: "payload_too_large",
    });
    expect(maxBodyBytes({})).toBe(4 * 1024 * 1024);
    expect(maxBodyBytes({ ARBOR_MAX_BODY_BYTES: "2048" })).toBe(2048);
    expect(maxBodyBytes({ ARBOR_MAX_BODY_BYTES: "-1" })).toBe(4 * 1024 * 1024);
  });

  it("answers failures with 429 after 10 from one client within the window; valid credentials pass", () => {
    const limiter = new FailureLimiter(10, 60_000);
    const wrong = request("GET", "/api/sessions", { authorization: "Bearer nope" }, "10.0.0.9");
    for (let i = 0; i < 10; i++)
      expect(gate(wrong, config, limiter, credentialOf(wrong), 0)).toMatchObject({ status: 401 });
    const limited = gate(wrong, config, limiter, credentialOf(wrong), 30_000);
    expect(limited).toMatchObject({ status: 429, headers: { "retry-after": "30" } });
    // the valid credential still passes (on loopback every client shares one address)
    const valid = request("GET", "/api/sessions", bearer, "10.0.0.9");
    expect(gate(valid, config, limiter, credentialOf(valid), 30_000)).toEqual({ type: "pass" });
    // another client is not affected; after the window the client may try again
    const other = request("GET", "/api/sessions", { authorization: "Bearer nope" }, "10.0.0.8");
    expect(gate(other, config, limiter, credentialOf(other), 30_000)).toMatchObject({
      status: 401,
    });
    expect(gate(wrong, config, limiter, credentialOf(wrong), 60_000)).toMatchObject({
      status: 401,
    });
  });

  it("counts failures over all clients too: a client that changes its claimed address each time is stopped", () => {
    const limiter = new FailureLimiter(10, 60_000, 10_000, 100);
    const wrongFrom = (n: number) =>
      request(
        "GET",
        "/api/sessions",
        { authorization: "Bearer nope" },
        `10.1.${n >> 8}.${n & 255}`,
      );
    for (let n = 0; n < 100; n++)
      expect(gate(wrongFrom(n), config, limiter, "wrong", 0)).toMatchObject({ status: 401 });
    expect(gate(wrongFrom(100), config, limiter, "wrong", 10_000)).toMatchObject({
      status: 429,
      headers: { "retry-after": "50" },
    });
    // the owner's valid credential still passes; after the window failures are counted anew
    expect(
      gate(
        request("GET", "/api/sessions", bearer, "10.1.9.9"),
        config,
        limiter,
        credentialOf(request("GET", "/api/sessions", bearer, "10.1.9.9")),
        10_000,
      ),
    ).toEqual({ type: "pass" });
    expect(gate(wrongFrom(101), config, limiter, "wrong", 60_000)).toMatchObject({ status: 401 });
  });
});
