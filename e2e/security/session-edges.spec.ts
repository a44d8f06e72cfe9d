import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "@playwright/test";
import { type Answer, errorEvents, fieldsOf, type Json, Servers, summary } from "./harness.js";

// Issue #9, finding 11: a message posted during a DELETE got 200 and was lost; Edit & resend and
// system_prompt took 10 MB; client_metadata was dropped; Last-Event-ID ≥ 2^63 answered a Prisma
// message and one above the last sequence dropped every live event; no CSP, X-Frame-Options or
// nosniff. Contract §9 (session edges), §3 (text limits), §2 (headers on every answer).

const LIMIT = 1_000_000;
let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
});

test.afterAll(async () => {
  await servers?.close();
});

test("a message to a session being deleted is refused with 409, and the running one is not lost", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  const answer = Array.from({ length: 40 }, (_, i) => `word${i} `).join("");
  await servers.resetFake();
  await servers.script([{ blocks: [{ type: "text", text: answer }], chunkDelayMs: 80 }]);
  const running = api.send(id, { type: "text", text: "A slow answer, please." });
  await api.waitForState(id, (s) => s.type === "StreamingLLMResponse");

  // DELETE waits for the running operation; a message sent meanwhile must not be accepted
  const deleting = api.delete(`/api/sessions/${id}`);
  await sleep(150);
  const late = await api.request("POST", `/api/sessions/${id}/messages`, {
    body: { session_id: id, payload: { type: "text", text: "posted during the delete" } },
    signal: AbortSignal.timeout(15_000),
  });
  expect(late.status, late.text.slice(0, 500)).toBe(409);
  expect((late.json as { error?: string }).error).toBe("conflict");

  const events = await running;
  expect(errorEvents(events), summary(events)).toEqual([]);
  expect(events.some((e) => e.event === "content_final")).toBe(true);
  const deleted = await deleting;
  expect(deleted.status, deleted.text).toBe(204);
  expect((await api.get(`/api/sessions/${id}`)).status).toBe(404);
});

test("texts over 1,000,000 characters are refused naming the field: message, edit, system_prompt", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  const tooLong = "x".repeat(LIMIT + 1);

  const message = await api.post(`/api/sessions/${id}/messages`, {
    session_id: id,
    payload: { type: "text", text: tooLong },
  });
  expect(message.status, message.text.slice(0, 300)).toBe(400);
  expect(fieldsOf(message)).toContain("payload.text");

  await api.send(id, { type: "text", text: "a message to edit" });
  const user = (await api.messages(id)).find((m) => m.role === "user");
  expect(user).toBeDefined();
  const edit = await api.post(`/api/sessions/${id}/messages/${user?.id}/edit`, { text: tooLong });
  expect(edit.status, edit.text.slice(0, 300)).toBe(400);
  expect(fieldsOf(edit)).toContain("text");

  const created = await api.post("/api/sessions", { config: { system_prompt: tooLong } });
  expect(created.status, created.text.slice(0, 300)).toBe(400);
  expect(fieldsOf(created)).toContain("config.system_prompt");
});

test("client_metadata is stored with the user message, returned by GET /messages, never sent to the model", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  await servers.resetFake();
  const metadata: { [key: string]: Json } = {
    draft_id: "draft-7f3a9c-unique",
    nested: { n: 1, tags: ["a", "b"] },
  };
  const events = await api.send(
    id,
    { type: "text", text: "with metadata" },
    { client_metadata: metadata },
  );
  expect(errorEvents(events)).toEqual([]);
  const user = (await api.messages(id)).find((m) => m.role === "user");
  expect(user?.client_metadata).toEqual(metadata);
  for (const request of await servers.fakeRequests()) {
    expect(JSON.stringify(request.body)).not.toContain("draft-7f3a9c-unique");
  }
});

test("Last-Event-ID and ?after= outside 0..last sequence are refused with 400 naming them", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  await api.send(id, { type: "text", text: "some events" });
  const last = ((await api.get(`/api/sessions/${id}`)).json as { last_sequence: number })
    .last_sequence;
  expect(last).toBeGreaterThan(0);

  const bad = [
    "9223372036854775808",
    "9223372036854775807",
    "18446744073709551616",
    String(last + 1),
    "-1",
    "1.5",
    "abc",
  ];
  for (const value of bad) {
    const header = await api.get(`/api/sessions/${id}/events`, {
      headers: { "last-event-id": value },
      signal: AbortSignal.timeout(5_000),
    });
    expect(header.status, `Last-Event-ID ${value}: ${header.text.slice(0, 300)}`).toBe(400);
    expect(fieldsOf(header), value).toContain("Last-Event-ID");
    expect(header.text).not.toMatch(/prisma|StoreError|64-bit/i);

    const query = await api.get(`/api/sessions/${id}/events?after=${encodeURIComponent(value)}`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(query.status, `after=${value}: ${query.text.slice(0, 300)}`).toBe(400);
    expect(fieldsOf(query), value).toContain("after");
  }

  // the stored range itself is served (the stream stays open: read its head only)
  for (const value of ["0", String(last)]) {
    const response = await api.fetch("GET", `/api/sessions/${id}/events`, {
      headers: { "last-event-id": value },
    });
    expect(response.status, `Last-Event-ID ${value}`).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    await response.body?.cancel();
  }
});

function expectSecurityHeaders(answer: Answer, what: string, page: boolean): void {
  const csp = answer.headers.get("content-security-policy") ?? "";
  const directives = new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name = "", ...values]) => [name.toLowerCase(), values] as const),
  );
  expect(directives.get("default-src"), `${what}: ${csp}`).toContain("'self'");
  expect(directives.get("frame-ancestors"), `${what}: ${csp}`).toEqual(["'none'"]);
  expect(directives.get("object-src"), `${what}: ${csp}`).toEqual(["'none'"]);
  expect(directives.get("base-uri"), `${what}: ${csp}`).toEqual(["'none'"]);
  const scripts = directives.get("script-src") ?? directives.get("default-src") ?? [];
  expect(scripts, `${what}: ${csp}`).not.toContain("'unsafe-inline'");
  if (page)
    expect(
      scripts.some((s) => s.startsWith("'nonce-")),
      `${what}: ${csp}`,
    ).toBe(true);
  expect(answer.headers.get("x-frame-options"), what).toBe("DENY");
  expect(answer.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(answer.headers.get("referrer-policy"), what).toBe("no-referrer");
}

test("security headers on a page, an API answer, a 400, a 401, a 404 and a static asset", async () => {
  const api = servers.api;
  const page = await api.get("/");
  expect(page.status).toBe(200);
  expectSecurityHeaders(page, "page", true);
  // the page's own inline scripts carry the nonce the policy names
  const nonce = /'nonce-([^']+)'/.exec(page.headers.get("content-security-policy") ?? "")?.[1];
  const inline = [...page.text.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => !/\btype=["']?application\/(?:ld\+)?json/.test(tag));
  for (const tag of inline)
    expect(tag, "an inline script without the nonce").toContain(`nonce="${nonce}"`);

  expectSecurityHeaders(await api.get("/api/sessions"), "API", false);
  expectSecurityHeaders(await api.post("/api/sessions", { title: "" }), "400", false);
  expectSecurityHeaders(await servers.raw.get("/api/sessions"), "401", false);
  expectSecurityHeaders(await servers.raw.get("/"), "401 page", false);
  expectSecurityHeaders(await api.get("/api/sessions/no-such-session"), "404", false);
  expectSecurityHeaders(await servers.raw.get("/icon.svg"), "static", false);
});
