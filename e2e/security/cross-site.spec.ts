import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type Answer, nonce, Servers, toolCalls } from "./harness.js";

// Issue #9, finding 3: a cross-site `text/plain` form POST from `Origin: http://evil.example` ran
// bash, and `Host: attacker.example` was served (DNS rebinding). Contract §2: Host must be a
// loopback name (403 before authentication); a state change needs `application/json` (415) and,
// when an Origin is sent, the server's own (403); a cookie-authenticated state change needs an
// Origin; no CORS header is ever sent.

let servers: Servers;
let cookie = "";
const EVIL = "http://evil.example";

test.beforeAll(async () => {
  servers = await Servers.start();
  cookie = await servers.ownerCookie();
});

test.afterAll(async () => {
  await servers?.close();
});

async function sessionCount(): Promise<number> {
  const list = await servers.api.get("/api/sessions");
  expect(list.status).toBe(200);
  return (list.json as unknown[]).length;
}

function expectRefused(answer: Answer, statuses: number[], what: string): void {
  expect(statuses, `${what}: ${answer.status} ${answer.text}`).toContain(answer.status);
  const error = (answer.json as { error?: string } | undefined)?.error;
  expect(["forbidden", "unsupported_media_type", "unauthorized"], what).toContain(error);
}

function expectNoCors(answer: Answer, what: string): void {
  const cors = [...answer.headers.keys()].filter((name) => name.startsWith("access-control-"));
  expect(cors, what).toEqual([]);
}

test("a cross-site text/plain form POST is refused and creates nothing", async () => {
  const before = await sessionCount();
  // what a form on evil.example can send: text/plain, its own Origin, the browser's cookie
  const credentials: Array<Record<string, string>> = [
    { cookie },
    { authorization: `Bearer ${servers.token}` },
    {},
  ];
  for (const credential of credentials) {
    const answer = await servers.raw.with(credential).post("/api/sessions", undefined, {
      raw: '{"title":"csrf"}',
      contentType: "text/plain",
      headers: { origin: EVIL, "sec-fetch-site": "cross-site" },
    });
    expectRefused(
      answer,
      [401, 403, 415],
      `text/plain from ${EVIL} with ${Object.keys(credential)}`,
    );
    expectNoCors(answer, "cross-site POST");
  }
  expect(await sessionCount()).toBe(before);

  // and the attack of the issue: a workflow running bash in an existing session
  const id = await servers.api.createSession({ approval_policy: { type: "auto_approve_all" } });
  const file = `csrf-${nonce()}.txt`;
  const attack = await servers.raw
    .with({ cookie })
    .post(`/api/sessions/${id}/messages`, undefined, {
      raw: JSON.stringify({
        session_id: id,
        payload: { type: "workflow", workflow: "bash", parameters: { command: `id > ${file}` } },
      }),
      contentType: "text/plain",
      headers: { origin: EVIL },
    });
  expectRefused(attack, [403, 415], "text/plain workflow from evil.example");
  expect(existsSync(join(servers.workspace, file))).toBe(false);
  expect(toolCalls(await servers.api.messages(id))).toEqual([]);
});

test("a JSON state change from a foreign Origin is refused, even with the token", async () => {
  const before = await sessionCount();
  const credentials: Array<Record<string, string>> = [
    { cookie },
    { authorization: `Bearer ${servers.token}` },
  ];
  for (const credential of credentials) {
    const answer = await servers.raw
      .with({ ...credential, origin: EVIL })
      .post("/api/sessions", { title: "foreign origin" });
    expect(answer.status, answer.text).toBe(403);
    expect((answer.json as { error?: string }).error).toBe("forbidden");
    expectNoCors(answer, "foreign Origin");
  }
  const crossSite = await servers.api
    .with({ "sec-fetch-site": "cross-site" })
    .post("/api/sessions", { title: "cross-site fetch" });
  expect(crossSite.status, crossSite.text).toBe(403);
  expect(await sessionCount()).toBe(before);
});

test("a state change needs application/json", async () => {
  const answer = await servers.api.post("/api/sessions", undefined, {
    raw: '{"title":"plain"}',
    contentType: "text/plain",
  });
  expect(answer.status, answer.text).toBe(415);
  expect((answer.json as { error?: string }).error).toBe("unsupported_media_type");
  const form = await servers.api.post("/api/sessions", undefined, {
    raw: "title=form",
    contentType: "application/x-www-form-urlencoded",
  });
  expect(form.status, form.text).toBe(415);
  // parameters on the media type are fine
  const json = await servers.api.post("/api/sessions", undefined, {
    raw: '{"title":"json"}',
    contentType: "application/json; charset=utf-8",
  });
  expect(json.status, json.text).toBe(201);
});

test("a cookie-authenticated state change needs its own Origin; a Bearer one may omit it", async () => {
  const before = await sessionCount();
  const noOrigin = await servers.raw.with({ cookie }).post("/api/sessions", { title: "no origin" });
  expect(noOrigin.status, noOrigin.text).toBe(403);
  expect((noOrigin.json as { error?: string }).error).toBe("forbidden");
  expect(await sessionCount()).toBe(before);

  const sameOrigin = await servers.raw
    .with({ cookie, origin: servers.url })
    .post("/api/sessions", { title: "same origin" });
  expect(sameOrigin.status, sameOrigin.text).toBe(201);
  const bearer = await servers.api.post("/api/sessions", { title: "bearer, no origin" });
  expect(bearer.status, bearer.text).toBe(201);
  // a cookie GET needs no Origin (reads are not state changes)
  expect((await servers.raw.with({ cookie }).get("/api/sessions")).status).toBe(200);
});

test("a foreign Host is refused with 403 before anything else, loopback names are served", async () => {
  const port = servers.port;
  for (const host of ["attacker.example", `attacker.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
    for (const path of ["/api/sessions", "/", "/api/sessions/x/messages"]) {
      const answer = await servers.api.with({ host }).get(path);
      expect(answer.status, `Host ${host} ${path}: ${answer.text.slice(0, 200)}`).toBe(403);
      expect((answer.json as { error?: string } | undefined)?.error).toBe("forbidden");
    }
    // checked before authentication: no credential gets the same answer, not a 401
    const anonymous = await servers.raw.with({ host }).get("/api/sessions");
    expect(anonymous.status).toBe(403);
    const post = await servers.api.with({ host }).post("/api/sessions", { title: "rebinding" });
    expect(post.status).toBe(403);
  }
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    const answer = await servers.api.with({ host }).get("/api/sessions");
    expect(answer.status, `Host ${host}`).toBe(200);
  }
});

test("CORS stays closed: no Access-Control-Allow-* header, preflight refused", async () => {
  const preflight = await servers.raw.request("OPTIONS", "/api/sessions", {
    headers: {
      origin: EVIL,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, authorization",
    },
  });
  expect([403, 405], `${preflight.status} ${preflight.text}`).toContain(preflight.status);
  expectNoCors(preflight, "preflight");
  const read = await servers.api.with({ origin: EVIL }).get("/api/sessions");
  expectNoCors(read, "GET with a foreign Origin");
  const own = await servers.api.get("/api/sessions");
  expectNoCors(own, "GET");
});
