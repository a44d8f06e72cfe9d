import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, type ServerProcess, startApp, startFakeLlm } from "../crash/app-server.js";
import {
  createSession,
  fakeRequestBodies,
  getMessages,
  getSession,
  listSessionIds,
  patchConfig,
  readEvents,
  resume,
  type SessionDetail,
  scriptFake,
  sendAndWait,
  sendMessage,
} from "../crash/client.js";
import { isContentDelta, type SseEvent } from "../crash/sse.js";

// Storage issue's "Crash" requirement: the app's production server, a real child process, is
// killed with SIGKILL (its whole process group) in the middle of a streamed answer and started
// again on the same SQLite file. Every session must come back by the Context Manager's recovery
// rules, and nothing the client had been sent may be lost. No browser: plain HTTP against servers
// this test starts on ports of its own, so it does not touch the suite's shared app.

const CHUNKS = 200;
// 200 five-character words ("w000 " … "w199 "), one per chunk, so any prefix is recognisable
const LONG_ANSWER = Array.from(
  { length: CHUNKS },
  (_, i) => `w${String(i).padStart(3, "0")} `,
).join("");
const DELTAS_BEFORE_KILL = 12;

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

function textDeltas(events: SseEvent[]): Array<{ message_id: string; delta: string }> {
  return events.flatMap((e) =>
    e.event === "content_delta" && isContentDelta(e.data) && e.data.channel === "text"
      ? [{ message_id: e.data.message_id, delta: e.data.delta }]
      : [],
  );
}

test("a SIGKILL mid-stream loses nothing the client was sent, and every session recovers", async () => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "arbor-crash-"));
  fake = await startFakeLlm();
  const port = await freePort();
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });

  // 1. An idle session with a finished exchange, and an empty one.
  await scriptFake(fake.url, [{ blocks: [{ type: "text", text: "A short, finished answer." }] }]);
  const idleId = await createSession(app.url, "finished exchange");
  const idleStream = await sendAndWait(app.url, idleId, "Say something short.");
  expect(idleStream.map((e) => e.event)).toContain("content_final");
  const idleBefore = {
    detail: await getSession(app.url, idleId),
    messages: await getMessages(app.url, idleId),
  };
  expect(idleBefore.detail.state.type).toBe("Idle");
  const emptyId = await createSession(app.url, "never used");

  // 2. A session mid-stream: a long, slow answer, killed after a dozen deltas reached us.
  await scriptFake(fake.url, [
    { blocks: [{ type: "text", text: LONG_ANSWER }], chunkSize: 5, chunkDelayMs: 20 },
  ]);
  const midId = await createSession(app.url, "cut off mid-stream");
  const received: SseEvent[] = [];
  const stream = await sendMessage(app.url, midId, "Tell me a long story.");
  // next() by hand, not for-await with break: a break would close the connection before the kill
  while (textDeltas(received).length < DELTAS_BEFORE_KILL) {
    const next = await stream.next();
    if (next.done) break;
    received.push(next.value);
  }
  await app.kill("SIGKILL");
  // whatever was already on the wire before the kill was sent too, so it counts as acknowledged
  try {
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      received.push(next.value);
    }
  } catch {
    // the connection was reset by the kill
  }
  const deltas = textDeltas(received);
  expect(deltas.length).toBeGreaterThanOrEqual(DELTAS_BEFORE_KILL);
  expect(deltas.length).toBeLessThan(CHUNKS); // the kill really was mid-stream
  const messageIds = new Set(deltas.map((d) => d.message_id));
  expect(messageIds.size).toBe(1);
  const [partialId] = [...messageIds];
  const receivedText = deltas.map((d) => d.delta).join("");
  expect(LONG_ANSWER.startsWith(receivedText)).toBe(true);
  const sequences = received.flatMap((e) => (e.id === undefined ? [] : [e.id]));
  expect(sequences).toEqual([...sequences].sort((a, b) => a - b));

  // 3. Start again on the same data directory.
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });

  // every session is there
  expect(await listSessionIds(app.url)).toEqual(expect.arrayContaining([idleId, emptyId, midId]));
  expect((await getSession(app.url, emptyId)).state.type).toBe("Idle");
  expect(await getMessages(app.url, emptyId)).toEqual([]);

  // the idle session is unchanged
  const idleAfter = await getSession(app.url, idleId);
  expect(idleAfter.state).toEqual(idleBefore.detail.state);
  // A branch's updated_at in memory is stamped after the store's write, the stored one by the
  // store, so they can differ by a few ms (a core/db divergence reported to their owners): the
  // rest must be equal, and the time close.
  const withoutTime = (branches: SessionDetail["branches"]) =>
    branches.map(({ updated_at: _, ...rest }) => rest);
  expect(withoutTime(idleAfter.branches)).toEqual(withoutTime(idleBefore.detail.branches));
  idleAfter.branches.forEach((branch, i) => {
    const before = Date.parse(idleBefore.detail.branches[i]?.updated_at ?? "");
    expect(Math.abs(Date.parse(branch.updated_at) - before)).toBeLessThan(1_000);
  });
  expect(await getMessages(app.url, idleId)).toEqual(idleBefore.messages);

  // the mid-stream session: safe state, partial answer kept as incomplete, a recovered notice.
  // A crash while the model streams (no tool had run) recovers to Idle by the recovery rules.
  const mid = await getSession(app.url, midId);
  expect(mid.state.type).toBe("Idle");
  const midMessages = await getMessages(app.url, midId);
  const partial = midMessages.find((m) => m.id === partialId);
  expect(partial, `the partial answer ${partialId} is kept`).toBeDefined();
  expect(partial?.role).toBe("assistant");
  expect(partial?.status).toBe("incomplete");
  const keptText = partial?.body.text ?? "";
  // at least every delta the client had received, and nothing that was not streamed
  expect(keptText.startsWith(receivedText)).toBe(true);
  expect(LONG_ANSWER.startsWith(keptText)).toBe(true);
  console.log(
    `crash: client had ${deltas.length} deltas (${receivedText.length} chars, events up to #${Math.max(...sequences)}); recovered answer keeps ${keptText.length} chars`,
  );
  const notice = midMessages.find(
    (m) => m.role === "system" && m.body.message_type === "system_control",
  );
  expect(notice?.body.kind).toBe("recovered");
  expect(midMessages.map((m) => m.role)).toEqual(["user", "assistant", "system"]);

  // the events replay holds every event the client saw, with the same sequences and payloads
  const maxSeen = Math.max(...sequences);
  const replay = await readEvents(
    app.url,
    midId,
    0,
    (events) => events.some((e) => (e.id ?? 0) >= maxSeen),
    15_000,
  );
  const replayed = new Map(replay.flatMap((e) => (e.id === undefined ? [] : [[e.id, e] as const])));
  for (const seen of received) {
    if (seen.id === undefined) continue;
    const again = replayed.get(seen.id);
    expect(again?.event, `event ${seen.id} is replayed`).toBe(seen.event);
    expect(again?.data).toEqual(seen.data);
  }
  const replayIds = replay.flatMap((e) => (e.id === undefined ? [] : [e.id]));
  expect(replayIds).toEqual(Array.from({ length: replayIds.length }, (_, i) => i + 1));

  // 4. The recovered session takes a new message and answers it in full.
  await scriptFake(fake.url, [{ blocks: [{ type: "text", text: "Back after the restart." }] }]);
  const next = await sendAndWait(app.url, midId, "Are you still there?");
  expect(next.filter((e) => e.event === "error")).toEqual([]);
  expect(next.map((e) => e.event)).toContain("content_final");
  expect(
    textDeltas(next)
      .map((d) => d.delta)
      .join(""),
  ).toBe("Back after the restart.");
  const after = await getMessages(app.url, midId);
  expect(after.at(-1)).toMatchObject({
    role: "assistant",
    status: "complete",
    body: { text: "Back after the restart." },
  });
  expect((await getSession(app.url, midId)).state.type).toBe("Idle");
});

test("a SIGKILL during a tool run: the call gets a stored error result, and /resume continues from Failed", async () => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "arbor-crash-tool-"));
  fake = await startFakeLlm();
  const port = await freePort();
  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });

  await scriptFake(fake.url, [
    {
      blocks: [
        { type: "toolCall", id: "call-sleep", name: "bash", arguments: { command: "sleep 30" } },
      ],
    },
  ]);
  const id = await createSession(app.url, "killed during a tool");
  await patchConfig(app.url, id, { approval_policy: { type: "auto_approve_all" } });
  const received: SseEvent[] = [];
  const stream = await sendMessage(app.url, id, "Wait a while.");
  const executing = (e: SseEvent) =>
    e.event === "context_update" &&
    (e.data as { current_state?: { type?: string } }).current_state?.type === "ExecutingTool";
  while (!received.some(executing)) {
    const next = await stream.next();
    if (next.done) break;
    received.push(next.value);
  }
  expect(received.some(executing)).toBe(true);
  await app.kill("SIGKILL");
  try {
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      received.push(next.value);
    }
  } catch {
    // the connection was reset by the kill
  }

  app = await startApp({ port, dataDir, fakeLlmUrl: fake.url });
  const detail = await getSession(app.url, id);
  expect(detail.state).toMatchObject({ type: "Failed", recoverable: true });
  const messages = await getMessages(app.url, id);
  const calls = messages.flatMap((m) =>
    m.body.message_type === "tool_request"
      ? (m.body.calls as Array<{ id: string }>).map((c) => c.id)
      : [],
  );
  const results = messages.filter((m) => m.body.message_type === "tool_result");
  expect(calls).toEqual(["call-sleep"]);
  // every tool_use has its tool_result, stored
  expect(results.map((m) => m.body.tool_call_id)).toEqual(["call-sleep"]);
  expect(results[0]?.body).toMatchObject({
    status: "error",
    content: [{ type: "text", text: "interrupted by a server restart" }],
  });

  await scriptFake(fake.url, [{ blocks: [{ type: "text", text: "Resumed after the restart." }] }]);
  const before = (await fakeRequestBodies(fake.url)).length;
  const resumed = await resume(app.url, id);
  expect(resumed.filter((e) => e.event === "error")).toEqual([]);
  expect((await getSession(app.url, id)).state.type).toBe("Idle");
  // the model request after the restart carries the tool_use with its tool_result
  const bodies = await fakeRequestBodies(fake.url);
  expect(bodies.length).toBe(before + 1);
  const sent = bodies.at(-1) as { messages: Array<{ role: string; content: unknown }> };
  const blocks = sent.messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : [],
  );
  const toolUse = blocks.find((b) => b.type === "tool_use");
  const toolResult = blocks.find((b) => b.type === "tool_result");
  expect(toolUse?.id).toBe("call-sleep");
  expect(toolResult).toMatchObject({ tool_use_id: "call-sleep", is_error: true });
  expect(JSON.stringify(toolResult)).toContain("interrupted by a server restart");
  expect((await getMessages(app.url, id)).at(-1)?.body).toMatchObject({
    message_type: "text",
    text: "Resumed after the restart.",
  });
});
