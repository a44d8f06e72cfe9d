import { describe, expect, it } from "vitest";
import * as auth from "@/app/api/auth/[...all]/route";
import * as password from "@/app/api/me/password/route";
import { params, personWithToken, useTestServer } from "./support";

// POST /api/me/password: a first password without the current one, a change only with it, wrong
// guesses counted like failed sign-ins; the password it sets is the one better-auth signs in with.

const server = useTestServer();

function setPassword(authorization: string, body: unknown): Promise<Response> {
  return password.POST(
    new Request("http://localhost/api/me/password", {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    params({}),
  );
}

function signIn(email: string, secret: string): Promise<Response> {
  return auth.POST(
    new Request("http://localhost/api/auth/sign-in/email", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost" },
      body: JSON.stringify({ email, password: secret }),
    }),
    params({}),
  );
}

async function fields(response: Response): Promise<string[]> {
  const body = (await response.json()) as { fields?: Array<{ field: string }> };
  return (body.fields ?? []).map((f) => f.field);
}

describe("POST /api/me/password", () => {
  it("sets a first password without the current one, and then it signs in", async () => {
    const ana = await personWithToken(server.runtime, "member");
    const email = (await server.runtime.people.store.person(ana.id))?.email as string;
    expect(await server.runtime.people.store.passwordHash(ana.id)).toBeUndefined();

    const set = await setPassword(ana.authorization, { password: "first-password-1" });
    expect(set.status).toBe(204);
    const hash = await server.runtime.people.store.passwordHash(ana.id);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    expect((await signIn(email, "first-password-1")).status).toBe(200);
    expect((await signIn(email, "not-the-password")).status).toBe(401);
  });

  it("changes a password only with the current one, naming current_password otherwise", async () => {
    const ben = await personWithToken(server.runtime, "viewer");
    expect((await setPassword(ben.authorization, { password: "first-password-1" })).status).toBe(
      204,
    );

    const missing = await setPassword(ben.authorization, { password: "second-password-2" });
    expect(missing.status).toBe(400);
    expect(await fields(missing)).toEqual(["current_password"]);

    const wrong = await setPassword(ben.authorization, {
      password: "second-password-2",
      current_password: "a-wrong-guess",
    });
    expect(wrong.status).toBe(400);
    expect(await fields(wrong)).toEqual(["current_password"]);

    const changed = await setPassword(ben.authorization, {
      password: "second-password-2",
      current_password: "first-password-1",
    });
    expect(changed.status).toBe(204);
    const email = (await server.runtime.people.store.person(ben.id))?.email as string;
    expect((await signIn(email, "second-password-2")).status).toBe(200);
  });

  it("refuses a short password naming the field, and counts wrong current passwords", async () => {
    const cai = await personWithToken(server.runtime, "member");
    const short = await setPassword(cai.authorization, { password: "short" });
    expect(short.status).toBe(400);
    expect(await fields(short)).toEqual(["password"]);

    expect((await setPassword(cai.authorization, { password: "first-password-1" })).status).toBe(
      204,
    );
    for (let i = 0; i < 5; i++) {
      const wrong = await setPassword(cai.authorization, {
        password: "second-password-2",
        current_password: `wrong-${i}`,
      });
      expect(wrong.status).toBe(400);
    }
    // past the account's limit even the right password waits
    const limited = await setPassword(cai.authorization, {
      password: "second-password-2",
      current_password: "first-password-1",
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("needs a signed-in person", async () => {
    const anonymous = await password.POST(
      new Request("http://localhost/api/me/password", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password: "first-password-1" }),
      }),
      params({}),
    );
    expect(anonymous.status).toBe(401);
  });
});
