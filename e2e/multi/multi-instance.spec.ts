import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { APP_TOKEN, type ServerProcess } from "../crash/app-server.js";
import { createSession, fakeRequestBodies, scriptFake } from "../crash/client.js";
import { readSse, type SseEvent } from "../crash/sse.js";
import { Client } from "../security/harness.js";
import { multiInstance } from "./cluster.js";

// Issue #17 over HTTP: two production servers (`next start`) on one throwaway PostgreSQL and one
// fake LLM (./cluster.ts). Each test starts its own database and instances.

const multi = multiInstance({ prefix: "multi", env: { ARBOR_SHUTDOWN_GRACE_MS: "3000" } });
const twoInstances = () => multi.twoInstances();

function call(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${APP_TOKEN}`);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  return fetch(url, { ...init, headers });
}

const longAnswer = (chunks: number, delayMs: number) => ({
  blocks: [
    {
      type: "text" as const,
      text: Array.from({ length: chunks }, (_, i) => `w${String(i).padStart(4, "0")} `).join(""),
    },
  ],
  chunkSize: 6,
  chunkDelayMs: delayMs,
});

/** POST a message; the response (its SSE body unread) */
function send(app: ServerProcess, sessionId: string, text: string): Promise<Response> {
  return call(`${app.url}/api/sessions/${sessionId}/messages`, {
    method: "POST",
    body: JSON.stringify({ session_id: sessionId, payload: { type: "text", text } }),
  });
}

/** Reads a stream in the background into `events`. */
function collect(response: Response) {
  const events: SseEvent[] = [];
  const done = (async () => {
    try {
      for await (const event of readSse(response.body!)) events.push(event);
    } catch {
      // the server went away
    }
  })();
  return { events, done };
}

async function watch(app: ServerProcess, sessionId: string, after: number, signal: AbortSignal) {
  const response = await call(`${app.url}/api/sessions/${sessionId}/events`, {
    headers: { "last-event-id": String(after) },
    signal,
  });
  expect(response.status).toBe(200);
  return collect(response);
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ids = (events: SseEvent[]) => events.map((e) => e.id).filter((id) => id !== undefined);
const resting = (e: SseEvent, type = "Idle") =>
  e.event === "context_update" &&
  (e.data as { current_state: { type: string } }).current_state.type === type;

async function detail(app: ServerProcess, id: string) {
  const response = await call(`${app.url}/api/sessions/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { state: { type: string } };
}

async function messages(app: ServerProcess, id: string) {
  const response = await call(`${app.url}/api/sessions/${id}/messages`);
  return ((await response.json()) as { messages: Array<{ role: string; status: string }> })
    .messages;
}

test("live events on B for a stream on A; B's reads reflect the database", async () => {
  const [a, b] = await twoInstances();
  await scriptFake(multi.fake.url, [longAnswer(80, 5)]);
  const id = await createSession(a.url, "live");
  const stop = new AbortController();
  const onB = await watch(b, id, 0, stop.signal);
  const onA = collect(await send(a, id, "hello"));
  await onA.done;
  await until(() => onB.events.some((e) => resting(e)), "B to see the answer end");
  stop.abort();
  const seen = ids(onB.events);
  expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
  expect(onB.events.filter((e) => e.event === "content_delta").length).toBeGreaterThan(10);
  expect((await messages(b, id)).map((m) => m.role)).toEqual(["user", "assistant"]);
});

test("sends through A and B at once: B's message is queued by A and answered next, in order; another operation through B gets 409", async () => {
  const [a, b] = await twoInstances();
  // A answers for about 4 s: long enough for both requests through B
  await scriptFake(multi.fake.url, [
    longAnswer(400, 10),
    { blocks: [{ type: "text", text: "two" }] },
  ]);
  const id = await createSession(a.url, "concurrent");
  const onA = collect(await send(a, id, "one"));
  await until(() => onA.events.some((e) => e.event === "content_delta"), "A streaming");
  // an operation that cannot join A's run is refused by B
  const refused = await call(`${b.url}/api/sessions/${id}/resume`, { method: "POST", body: "{}" });
  expect(refused.status).toBe(409);
  expect(((await refused.json()) as { message: string }).message).toMatch(/another instance/);
  // a message joins it: B hands it to A, which stores it as queued, as on one instance
  const queued = await send(b, id, "two");
  expect(queued.status).toBe(200);
  const queuedEvents = collect(queued);
  await queuedEvents.done;
  expect(
    queuedEvents.events.map(
      (e) => (e.data as { message_update?: { kind?: string } }).message_update?.kind,
    ),
  ).toEqual(["queued"]);
  await onA.done;
  // A's run answers it next; the model sees every earlier message, once
  await until(async () => (await messages(a, id)).length === 4, "the queued message's answer");
  expect((await messages(b, id)).map((m) => m.role)).toEqual([
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
  const bodies = (await fakeRequestBodies(multi.fake.url)) as Array<{ messages: unknown[] }>;
  expect(bodies.at(-1)?.messages.length).toBe(3);
});

test("an approval decided through B runs the tool once", async () => {
  const [a, b] = await twoInstances();
  await scriptFake(multi.fake.url, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "c1",
          name: "bash",
          arguments: { command: "echo run >> runs.txt" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "done" }] },
  ]);
  const id = await createSession(a.url, "approval");
  await collect(await send(a, id, "count")).done;
  expect((await detail(b, id)).state.type).toBe("AwaitingToolApproval");
  const decide = (app: ServerProcess) =>
    call(`${app.url}/api/sessions/${id}/approvals`, {
      method: "POST",
      body: JSON.stringify({ decisions: [{ tool_call_id: "c1", decision: "approve" }] }),
    });
  await collect(await decide(b)).done;
  const again = await decide(a);
  const text = await again.text();
  expect(again.status === 409 || text.includes("event: error")).toBe(true);
  expect(readFileSync(join(multi.workspace, "runs.txt"), "utf8").trim().split("\n")).toEqual([
    "run",
  ]);
});

test("interrupt through B stops A's run", async () => {
  const [a, b] = await twoInstances();
  await scriptFake(multi.fake.url, [longAnswer(2000, 10)]);
  const id = await createSession(a.url, "interrupt");
  const onA = collect(await send(a, id, "long"));
  await until(() => onA.events.some((e) => e.event === "content_delta"), "A streaming");
  const response = await call(`${b.url}/api/sessions/${id}/interrupt`, { method: "POST" });
  expect(response.status).toBe(200);
  await onA.done;
  expect((await detail(a, id)).state.type).toBe("Paused");
  expect((await messages(b, id)).find((m) => m.role === "assistant")?.status).toBe("incomplete");
});

test("kill -9 of the owner mid-answer: the client reconnects to B and the session recovers", async () => {
  const [a, b] = await twoInstances();
  await scriptFake(multi.fake.url, [
    longAnswer(2000, 10),
    { blocks: [{ type: "text", text: "after" }] },
  ]);
  const id = await createSession(a.url, "crash");
  const onA = collect(await send(a, id, "first question"));
  await until(() => onA.events.filter((e) => e.event === "content_delta").length >= 5, "deltas");
  await a.kill("SIGKILL");
  await onA.done;
  const lastId = ids(onA.events).at(-1) ?? 0;
  const stop = new AbortController();
  const onB = await watch(b, id, lastId, stop.signal);
  // the next request on B recovers the session (the lease freed with A's connections)
  await until(async () => (await detail(b, id)).state.type === "Idle", "recovery");
  await until(() => onB.events.some((e) => resting(e)), "B's stream to see the recovery");
  stop.abort();
  const all = [...ids(onA.events), ...ids(onB.events)];
  expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
  expect((await messages(b, id)).find((m) => m.role === "assistant")?.status).toBe("incomplete");
  await collect(await send(b, id, "second question")).done;
  const bodies = (await fakeRequestBodies(multi.fake.url)) as Array<{ messages: unknown[] }>;
  expect(JSON.stringify(bodies.at(-1))).toContain("first question");
});

test("SIGTERM of A mid-stream ends its streams with a retry hint; the client goes on through B", async () => {
  const [a, b] = await twoInstances();
  await scriptFake(multi.fake.url, [longAnswer(300, 10)]);
  const id = await createSession(a.url, "sigterm");
  const stop = new AbortController();
  const watching = await call(`${a.url}/api/sessions/${id}/events`, { signal: stop.signal });
  let raw = "";
  const rawDone = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of watching.body!) raw += decoder.decode(chunk as Uint8Array);
    } catch {
      // ended
    }
  })();
  const onA = collect(await send(a, id, "long"));
  await until(() => onA.events.some((e) => e.event === "content_delta"), "A streaming");
  const killed = a.kill("SIGTERM");
  await rawDone;
  expect(raw).toContain("retry: ");
  await killed;
  const lastId = Math.max(0, ...[...raw.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
  const onB = await watch(b, id, lastId, stop.signal);
  await until(() => onB.events.some((e) => resting(e) || resting(e, "Paused")), "the run's end");
  stop.abort();
  expect(ids(onB.events)[0]).toBe(lastId + 1);
});

test("a sign-out or a token revoked through B is refused on A within 1 s", async () => {
  const [a, b] = await twoInstances();
  // the printed URL signs a browser in through A
  const traded = await fetch(`${a.url}/?token=${encodeURIComponent(APP_TOKEN)}`, {
    redirect: "manual",
  });
  expect(traded.status).toBe(303);
  const cookie =
    traded.headers
      .getSetCookie()
      .map((c) => c.split(";")[0] ?? "")
      .find((c) => c.startsWith("arbor.session_token=")) ?? "";
  const me = async (app: ServerProcess, headers: Record<string, string>) =>
    (await new Client(app.url, headers).get("/api/me")).status;
  expect(await me(a, { cookie })).toBe(200);
  // B sees A's sign-in: the session is in the database
  expect(await me(b, { cookie })).toBe(200);
  const out = await new Client(b.url, { cookie, origin: b.url }).post("/api/auth/sign-out", {});
  expect(out.status, out.text).toBe(200);
  // A remembers who a cookie is for at most 0.5 s (docs/accounts.md); the bound here adds the
  // requests' own time on a loaded machine
  await expect.poll(() => me(a, { cookie }), { timeout: 1_500, intervals: [50] }).toBe(401);

  const made = await call(`${a.url}/api/me/tokens`, {
    method: "POST",
    body: JSON.stringify({ name: "ci", scope: "read" }),
  });
  expect(made.status).toBe(201);
  const { id, token } = (await made.json()) as { id: string; token: string };
  const bearer = { authorization: `Bearer ${token}` };
  expect(await me(a, bearer)).toBe(200);
  const revoked = await call(`${b.url}/api/me/tokens/${id}`, { method: "DELETE" });
  expect(revoked.status).toBe(204);
  await expect.poll(() => me(a, bearer), { timeout: 1_500, intervals: [50] }).toBe(401);
});
