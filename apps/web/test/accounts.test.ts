import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as auth from "@/app/api/auth/[...all]/route";
import * as invitations from "@/app/api/invitations/route";
import * as mePassword from "@/app/api/me/password/route";
import * as me from "@/app/api/me/route";
import * as token from "@/app/api/me/tokens/[token_id]/route";
import * as tokens from "@/app/api/me/tokens/route";
import { People } from "@/lib/server/people/people";
import { createRuntime, StartRefused } from "@/lib/server/runtime";
import { capturingLogger, params, startTestServer, TEST_TOKEN, type TestServer } from "./support";

// Accounts as OWASP ASVS 5.0 level 2 asks of authentication and session management, over the
// route handlers: the password hash's parameters, a new session at each sign-in, sign-out and
// revocation ending a session on every instance, the failure limit, no account enumeration,
// and the Host and cross-site checks holding on the sign-in endpoints too.

const ORIGIN = "http://localhost:3000";
const PASSWORD = "correct horse battery staple";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Sent {
  status: number;
  body: Record<string, unknown>;
  cookie: string | undefined;
  headers: Headers;
}

/** A browser's request: same origin, the cookie if given. */
async function browser(
  method: "GET" | "POST",
  path: string,
  options: {
    body?: unknown;
    cookie?: string;
    origin?: string;
    host?: string;
    address?: string;
  } = {},
): Promise<Sent> {
  const text = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    host: options.host ?? "localhost:3000",
    "x-forwarded-for": options.address ?? "10.0.0.1",
  };
  if (method === "POST") headers.origin = options.origin ?? ORIGIN;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (text !== undefined) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(text));
  }
  const request = new Request(`${ORIGIN}${path}`, {
    method,
    headers,
    ...(text === undefined ? {} : { body: text }),
  });
  const module = path.startsWith("/api/auth/")
    ? auth
    : path === "/api/me"
      ? me
      : path === "/api/me/password"
        ? mePassword
        : path === "/api/invitations"
          ? invitations
          : tokens;
  const handler = (
    module as unknown as Record<string, (r: Request, c: unknown) => Promise<Response>>
  )[method];
  if (handler === undefined) throw new Error(`no ${method} ${path}`);
  const response = await handler(request, params({}));
  const raw = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
  } catch {
    body = { raw };
  }
  const set = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] as string)
    .find((c) => c.startsWith("arbor.session_token=") && c !== "arbor.session_token=");
  return { status: response.status, body, cookie: set, headers: response.headers };
}

async function ownerWithPassword(): Promise<TestServer> {
  const test = await startTestServer({
    ARBOR_OWNER_EMAIL: "owner@example.com",
    ARBOR_OWNER_PASSWORD: PASSWORD,
  });
  server = test;
  return test;
}

const signIn = (email: string, password: string, extra: Parameters<typeof browser>[2] = {}) =>
  browser("POST", "/api/auth/sign-in/email", { ...extra, body: { email, password } });

describe("passwords", () => {
  it("are hashed with argon2id at OWASP's parameters", async () => {
    const test = await ownerWithPassword();
    const row = await test.runtime.database.client.authAccount.findFirst({
      where: { userId: test.runtime.people.owner.id, providerId: "credential" },
    });
    expect(row?.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row?.password).not.toContain(PASSWORD);
  });
});

describe("sessions", () => {
  it("signs in with a password and answers as that person", async () => {
    await ownerWithPassword();
    const signedIn = await signIn("owner@example.com", PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.cookie).toBeDefined();
    const answer = await browser("GET", "/api/me", { cookie: signedIn.cookie as string });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      role: "owner",
      via: "session",
      email: "owner@example.com",
    });
    // HttpOnly and SameSite on the session cookie
    const raw = signedIn.headers.getSetCookie().find((c) => c.startsWith("arbor.session_token="));
    expect(raw).toMatch(/HttpOnly/i);
    expect(raw).toMatch(/SameSite=Lax/i);
  });

  it("starts a new session at each sign-in and ends the old one", async () => {
    await ownerWithPassword();
    const first = await signIn("owner@example.com", PASSWORD);
    const second = await signIn("owner@example.com", PASSWORD, { cookie: first.cookie as string });
    expect(second.status).toBe(200);
    expect(second.cookie).toBeDefined();
    expect(second.cookie).not.toBe(first.cookie);
    expect((await browser("GET", "/api/me", { cookie: first.cookie as string })).status).toBe(401);
    expect((await browser("GET", "/api/me", { cookie: second.cookie as string })).status).toBe(200);
  });

  it("ends the person's other sessions when they change their password", async () => {
    await ownerWithPassword();
    const here = await signIn("owner@example.com", PASSWORD);
    const elsewhere = await signIn("owner@example.com", PASSWORD, { address: "10.0.0.2" });
    expect((await browser("GET", "/api/me", { cookie: elsewhere.cookie as string })).status).toBe(
      200,
    );
    const changed = await browser("POST", "/api/me/password", {
      cookie: here.cookie as string,
      body: { current_password: PASSWORD, password: "a brand new passphrase" },
    });
    expect(changed.status).toBe(204);
    expect((await browser("GET", "/api/me", { cookie: elsewhere.cookie as string })).status).toBe(
      401,
    );
    expect((await browser("GET", "/api/me", { cookie: here.cookie as string })).status).toBe(200);
  });

  it("signs out from the printed 127.0.0.1 address as from localhost", async () => {
    await ownerWithPassword();
    const { cookie } = await signIn("owner@example.com", PASSWORD);
    const out = await browser("POST", "/api/auth/sign-out", {
      cookie: cookie as string,
      body: {},
      host: "127.0.0.1:3000",
      origin: "http://127.0.0.1:3000",
    });
    expect(out.status).toBe(200);
    expect((await browser("GET", "/api/me", { cookie: cookie as string })).status).toBe(401);
  });

  it("ends the session in the database at sign-out: the cookie replayed is refused", async () => {
    await ownerWithPassword();
    const { cookie } = await signIn("owner@example.com", PASSWORD);
    const out = await browser("POST", "/api/auth/sign-out", { cookie: cookie as string, body: {} });
    expect(out.status).toBe(200);
    expect((await browser("GET", "/api/me", { cookie: cookie as string })).status).toBe(401);
  });

  it("refuses on one instance a session signed out through another, within 1 s", async () => {
    const test = await ownerWithPassword();
    const { cookie } = await signIn("owner@example.com", PASSWORD);
    // a second instance: its own client on the same database
    const other = await People.open({
      database: test.runtime.database,
      env: { ARBOR_TOKEN: TEST_TOKEN },
      installToken: TEST_TOKEN,
      logger: capturingLogger([]),
    });
    const headers = new Headers({ cookie: cookie as string });
    expect(await other.authenticate(headers, "x")).toMatchObject({ role: "owner", via: "session" });
    await browser("POST", "/api/auth/sign-out", { cookie: cookie as string, body: {} });
    const signedOut = Date.now();
    while ((await other.authenticate(headers, "x")) !== "wrong") {
      expect(Date.now() - signedOut).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it("is refused at once when the person is disabled or their role changes", async () => {
    const test = await ownerWithPassword();
    const { cookie } = await signIn("owner@example.com", PASSWORD);
    await test.runtime.people.store.endSessionsOf(test.runtime.people.owner.id);
    expect((await browser("GET", "/api/me", { cookie: cookie as string })).status).toBe(401);
  });
});

describe("the failure limit", () => {
  it("locks an account after 5 failures, even for the right password, from any address", async () => {
    await ownerWithPassword();
    for (let n = 0; n < 5; n++) {
      const failed = await signIn("owner@example.com", "wrong password!", {
        address: `10.0.1.${n}`,
      });
      expect(failed.status).toBe(401);
    }
    const locked = await signIn("owner@example.com", PASSWORD, { address: "10.0.2.1" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("limits an address over many accounts", async () => {
    await ownerWithPassword();
    for (let n = 0; n < 20; n++) {
      expect((await signIn(`nobody${n}@example.com`, "wrong password!")).status).toBe(401);
    }
    expect((await signIn("owner@example.com", PASSWORD)).status).toBe(429);
  });

  it("answers an unknown account as it answers a wrong password", async () => {
    await ownerWithPassword();
    const wrong = await signIn("owner@example.com", "wrong password!", { address: "10.0.3.1" });
    const unknown = await signIn("nobody@example.com", "wrong password!", { address: "10.0.3.2" });
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
    for (let n = 0; n < 5; n++)
      await signIn("nobody@example.com", "x".repeat(12), { address: "10.0.4.1" });
    expect(
      (await signIn("nobody@example.com", "x".repeat(12), { address: "10.0.4.2" })).status,
    ).toBe(429);
  });

  it("answers a reset request the same for a known and an unknown address", async () => {
    await ownerWithPassword();
    const known = await browser("POST", "/api/auth/request-password-reset", {
      body: { email: "owner@example.com", redirectTo: "/login" },
    });
    const unknown = await browser("POST", "/api/auth/request-password-reset", {
      body: { email: "nobody@example.com", redirectTo: "/login" },
    });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
  });
});

describe("the sign-in endpoints keep the gate's checks", () => {
  it("refuses another origin and a foreign Host", async () => {
    await ownerWithPassword();
    expect(
      (await signIn("owner@example.com", PASSWORD, { origin: "http://evil.example" })).status,
    ).toBe(403);
    expect((await signIn("owner@example.com", PASSWORD, { host: "attacker.example" })).status).toBe(
      403,
    );
  });
});

describe("invitations", () => {
  it("make one account in their role, once", async () => {
    await ownerWithPassword();
    const owner = await signIn("owner@example.com", PASSWORD);
    const made = await browser("POST", "/api/invitations", {
      cookie: owner.cookie as string,
      body: { role: "viewer", email: "val@example.com" },
    });
    expect(made.status).toBe(201);
    const secret = made.body.token as string;
    expect(made.body.url).toBe(`http://localhost:3000/invite/${secret}`);
    const wrongAddress = await browser("POST", "/api/auth/sign-up/invitation", {
      body: { token: secret, name: "Eve", email: "eve@example.com", password: PASSWORD },
    });
    expect(wrongAddress.status).toBe(400);
    const joined = await browser("POST", "/api/auth/sign-up/invitation", {
      body: { token: secret, name: "Val", email: "val@example.com", password: PASSWORD },
    });
    expect(joined.status).toBe(200);
    const meAnswer = await browser("GET", "/api/me", { cookie: joined.cookie as string });
    expect(meAnswer.body).toMatchObject({ name: "Val", role: "viewer" });
    const again = await browser("POST", "/api/auth/sign-up/invitation", {
      body: { token: secret, name: "Val 2", email: "val@example.com", password: PASSWORD },
    });
    expect(again.status).toBe(400);
  });

  it("let no disabled person sign in", async () => {
    const test = await ownerWithPassword();
    const owner = await signIn("owner@example.com", PASSWORD);
    const made = await browser("POST", "/api/invitations", {
      cookie: owner.cookie as string,
      body: { role: "member" },
    });
    const joined = await browser("POST", "/api/auth/sign-up/invitation", {
      body: { token: made.body.token, name: "Dee", email: "dee@example.com", password: PASSWORD },
    });
    expect(joined.status).toBe(200);
    const dee = await test.runtime.people.store.personByEmail("dee@example.com");
    await test.runtime.people.store.setDisabled(dee?.id as string, true);
    expect((await browser("GET", "/api/me", { cookie: joined.cookie as string })).status).toBe(401);
    const again = await signIn("dee@example.com", PASSWORD, { address: "10.0.9.9" });
    expect(again.status).not.toBe(200);
    expect(again.cookie).toBeUndefined();
  });

  it("are the only way in when ARBOR_SIGNUP is invite", async () => {
    await ownerWithPassword();
    const open = await browser("POST", "/api/auth/sign-up/email", {
      body: { name: "Mallory", email: "mallory@example.com", password: PASSWORD },
    });
    expect(open.status).toBeGreaterThanOrEqual(400);
    expect(open.cookie).toBeUndefined();
  });
});

describe("personal tokens", () => {
  it("are shown once, work as Bearer, and stop at once when revoked", async () => {
    await ownerWithPassword();
    const { cookie } = await signIn("owner@example.com", PASSWORD);
    const created = await browser("POST", "/api/me/tokens", {
      cookie: cookie as string,
      body: { name: "ci", scope: "read" },
    });
    expect(created.status).toBe(201);
    const secret = created.body.token as string;
    expect(secret).toMatch(/^arbor_/);
    const bearer = (value: string) =>
      me.GET(
        new Request(`${ORIGIN}/api/me`, {
          headers: { host: "localhost:3000", authorization: `Bearer ${value}` },
        }),
        params({}),
      );
    const answer = await bearer(secret);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ via: "token", scope: "read" });
    const listed = await browser("GET", "/api/me/tokens", { cookie: cookie as string });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const revoke = await token.DELETE(
      new Request(`${ORIGIN}/api/me/tokens/${created.body.id}`, {
        method: "DELETE",
        headers: { host: "localhost:3000", cookie: cookie as string, origin: ORIGIN },
      }),
      params({ token_id: created.body.id as string }),
    );
    expect(revoke.status).toBe(204);
    expect((await bearer(secret)).status).toBe(401);
  });

  it("revoking the install token refuses it", async () => {
    const test = await ownerWithPassword();
    expect(
      await test.runtime.people.store.revokeToken(test.runtime.people.owner.id, "install-token"),
    ).toBe(true);
    const answer = await me.GET(
      new Request(`${ORIGIN}/api/me`, {
        headers: { host: "localhost:3000", authorization: `Bearer ${TEST_TOKEN}` },
      }),
      params({}),
    );
    expect(answer.status).toBe(401);
  });
});

describe("serving beyond loopback", () => {
  it("refuses to start without a real sign-in method, and says what is missing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-beyond-"));
    const start = () =>
      createRuntime({
        env: {
          ARBOR_TOKEN: TEST_TOKEN,
          ARBOR_DATA_DIR: dataDir,
          HOST: "0.0.0.0",
          WORKSPACE_DIR: dataDir,
        },
        logger: capturingLogger([]),
      });
    await expect(start()).rejects.toThrow(StartRefused);
    await expect(start()).rejects.toThrow(/ARBOR_OWNER_PASSWORD|password or passkey/);
    const started = await createRuntime({
      env: {
        ARBOR_TOKEN: TEST_TOKEN,
        ARBOR_DATA_DIR: dataDir,
        HOST: "0.0.0.0",
        WORKSPACE_DIR: dataDir,
        ARBOR_OWNER_PASSWORD: PASSWORD,
      },
      logger: capturingLogger([]),
    });
    await started.close();
  });
});
