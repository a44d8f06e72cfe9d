import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  APP_TOKEN,
  freePort,
  type ServerProcess,
  startApp,
  startFakeLlm,
} from "../crash/app-server.js";
import {
  createSession,
  getMessages,
  getSession,
  resume,
  scriptFake,
  sendMessage,
} from "../crash/client.js";
import type { SseEvent } from "../crash/sse.js";

// Issue #17, item 6: SIGTERM to the production server in the middle of a streamed answer. The
// server stops taking operations (503 shutting_down), ends every open event stream with a
// `retry:` hint (a watcher no longer sits on a dead stream saying "Ready"), interrupts the
// answer after its grace (the partial answer kept, incomplete), closes the store and exits by
// itself. Started again on the same data, the session continues with /resume.

const CHUNKS = 200;
const LONG_ANSWER = Array.from(
  { length: CHUNKS },
  (_, i) => `w${String(i).padStart(3, "0")} `,
).join("");

let fake: ServerProcess | undefined;
let app: ServerProcess | undefined;
let dataDir = "";

test.afterEach(async () => {
  await app?.kill();
  await fake?.kill();
  app = undefined;
  fake = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${APP_TOKEN}` };

test("SIGTERM mid-answer: streams end with a retry hint, operations are refused, the answer is kept and resumes", async () => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "arbor-shutdown-"));
  fake = await startFakeLlm();
  const port = await freePort();
  const env = { ARBOR_SHUTDOWN_GRACE_MS: "300" };
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url, env });

  await scriptFake(fake.url, [
    { blocks: [{ type: "text", text: LONG_ANSWER }], chunkSize: 5, chunkDelayMs: 20 },
  ]);
  const id = await createSession(app.url, "cut by a shutdown");
  // a watcher on the session's event stream, read as raw text (to see the retry: line)
  const watcher = await fetch(`${app.url}/api/sessions/${id}/events?after=0`, { headers: auth });
  expect(watcher.status).toBe(200);
  const watched = watcher.text();

  const stream = await sendMessage(app.url, id, "Tell me a long story.");
  const received: SseEvent[] = [];
  const deltas = () => received.filter((e) => e.event === "content_delta").length;
  while (deltas() < 10) {
    const next = await stream.next();
    if (next.done) break;
    received.push(next.value);
  }
  expect(deltas()).toBe(10);

  const exited = app.kill("SIGTERM");
  // the open event stream ends, with the hint to reconnect
  const text = await watched;
  expect(text).toMatch(/\nretry: 1000\n/);
  // the answer's own stream ends too (whatever was on the wire still arrives)
  for (let next = await stream.next(); !next.done; next = await stream.next()) {
    received.push(next.value);
  }
  await exited;
  expect(app.output()).toContain("shutting down");

  // again on the same data: the answer is kept, incomplete, and /resume finishes the run
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url, env });
  const detail = await getSession(app.url, id);
  expect(["Paused", "Idle"]).toContain(detail.state.type);
  const messages = await getMessages(app.url, id);
  const partial = messages.find((m) => m.role === "assistant");
  expect(partial?.status).toBe("incomplete");
  const kept = partial?.body.text ?? "";
  expect(kept.length).toBeGreaterThan(0);
  expect(LONG_ANSWER.startsWith(kept)).toBe(true);
  const sent = received
    .filter((e) => e.event === "content_delta")
    .map((e) => (e.data as { delta: string }).delta)
    .join("");
  // nothing the client was sent is lost
  expect(kept.startsWith(sent) || sent.startsWith(kept)).toBe(true);
  expect(kept.length).toBeGreaterThanOrEqual(Math.min(sent.length, kept.length));

  await scriptFake(fake.url, [{ blocks: [{ type: "text", text: "And so it ended." }] }]);
  const resumed = await resume(app.url, id);
  expect(resumed.map((e) => e.event)).toContain("content_final");
  expect((await getSession(app.url, id)).state.type).toBe("Idle");
});

test("while draining, reads answer and operations are refused with 503 shutting_down", async () => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "arbor-shutdown-"));
  fake = await startFakeLlm();
  const port = await freePort();
  // a long grace, and a session that keeps the drain busy: the server stays up meanwhile
  app = await startApp({
    port,
    dataDir,
    fakeLlmUrl: fake.url,
    env: { ARBOR_SHUTDOWN_GRACE_MS: "3000" },
  });
  await scriptFake(fake.url, [
    { blocks: [{ type: "text", text: LONG_ANSWER }], chunkSize: 5, chunkDelayMs: 20 },
  ]);
  const busy = await createSession(app.url, "busy");
  const other = await createSession(app.url, "other");
  const stream = await sendMessage(app.url, busy, "Tell me a long story.");
  for (let n = 0; n < 5; n++) await stream.next();

  const exited = app.kill("SIGTERM");
  // a new event stream is refused once the drain has begun (a read that changes nothing)
  const url = app.url;
  await expect
    .poll(async () => {
      const events = await fetch(`${url}/api/sessions/${other}/events`, { headers: auth });
      await events.body?.cancel();
      return [events.status, events.headers.get("retry-after")];
    })
    .toEqual([503, "1"]);
  const send = await fetch(`${url}/api/sessions/${other}/messages`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ session_id: other, payload: { type: "text", text: "hello?" } }),
  });
  expect(send.status).toBe(503);
  expect(await send.json()).toMatchObject({ error: "shutting_down" });
  // plain reads are still answered
  const read = await fetch(`${url}/api/sessions/${other}`, { headers: auth });
  expect(read.status).toBe(200);
  await exited;
  // nothing was stored for the refused message
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });
  expect(await getMessages(app.url, other)).toEqual([]);
});
