import { APP_TOKEN } from "./app-server.js";
import { readSse, type SseEvent } from "./sse.js";

// The HTTP calls the crash test and the benches make, with plain fetch (docs/api.md).

export interface FakeTurn {
  blocks: Array<
    | { type: "text"; text: string }
    | { type: "toolCall"; id?: string; name: string; arguments: Record<string, unknown> }
  >;
  chunkSize?: number;
  chunkDelayMs?: number;
  firstChunkDelayMs?: number;
}

export interface StoredMessage {
  id: string;
  role: "user" | "assistant" | "system" | "tool";
  status: "pending" | "streaming" | "complete" | "incomplete" | "failed";
  body: { message_type: string; text?: string; kind?: string } & Record<string, unknown>;
}

export interface SessionDetail {
  id: string;
  title: string;
  state: { type: string } & Record<string, unknown>;
  active_branch_id: string;
  branches: Array<
    { id: string; message_ids: string[]; updated_at: string } & Record<string, unknown>
  >;
}

/** fetch to the app, with its install token (the apps started by app-server.ts use APP_TOKEN) */
function appFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${APP_TOKEN}`);
  return fetch(url, { ...init, headers });
}

/**
 * fetch to the fake LLM's control routes, bounded: the fake answers them at once, so a request
 * that does not is a hang to name (`what`), not one to wait out in a test's timeout
 */
async function fakeFetch(url: string, what: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await ok(await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) }), what);
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") {
      throw new Error(`${what}: no answer within 30 s`, { cause: error });
    }
    throw error;
  }
}

async function ok(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

export async function scriptFake(fakeUrl: string, turns: FakeTurn[]): Promise<void> {
  await fakeFetch(`${fakeUrl}/__fake/script`, "script the fake LLM", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ turns }),
  });
}

/** Forgets queued turns and recorded requests (the fake keeps every request body). */
export async function resetFake(fakeUrl: string): Promise<void> {
  await fakeFetch(`${fakeUrl}/__fake/reset`, "reset the fake LLM", { method: "POST" });
}

export async function createSession(
  appUrl: string,
  title: string,
  config?: Record<string, unknown>,
): Promise<string> {
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(config === undefined ? { title } : { title, config }),
    }),
    "create a session",
  );
  const body = (await response.json()) as { session_id: string };
  return body.session_id;
}

/** POSTs a text message; the answer's SSE events, read as they arrive. */
export async function sendMessage(
  appUrl: string,
  sessionId: string,
  text: string,
  signal?: AbortSignal,
): Promise<AsyncGenerator<SseEvent>> {
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ session_id: sessionId, payload: { type: "text", text } }),
      ...(signal ? { signal } : {}),
    }),
    "send a message",
  );
  if (response.body === null) throw new Error("send a message: no body");
  return readSse(response.body);
}

/** POST …/messages/parallel (ask N ways): `n` candidates with the session's settings. */
export async function askParallel(
  appUrl: string,
  sessionId: string,
  text: string,
  n: number,
  strategy = "pick_first",
): Promise<AsyncGenerator<SseEvent>> {
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/messages/parallel`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        session_id: sessionId,
        payload: { type: "text", text },
        candidates: Array.from({ length: n }, (_, i) => ({ label: `way ${i + 1}` })),
        judge: { strategy },
      }),
    }),
    "ask several ways",
  );
  if (response.body === null) throw new Error("ask several ways: no body");
  return readSse(response.body);
}

/**
 * POSTs a message to the bench's bare route (bench/bare-route): the AI SDK's UI message stream,
 * read as it arrives (`data:` only; text arrives as `{ type: "text-delta", delta }`).
 */
export async function sendBare(
  bareUrl: string,
  text: string,
  signal?: AbortSignal,
): Promise<AsyncGenerator<SseEvent>> {
  const response = await ok(
    await fetch(`${bareUrl}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: text }),
      ...(signal ? { signal } : {}),
    }),
    "send to the bare route",
  );
  if (response.body === null) throw new Error("send to the bare route: no body");
  return readSse(response.body);
}

/** The text of a UI message stream's text-delta event, or undefined for any other event. */
export function bareTextDelta(event: SseEvent): string | undefined {
  const data = event.data as { type?: unknown; delta?: unknown } | null;
  return typeof data === "object" && data !== null && data.type === "text-delta"
    ? String(data.delta)
    : undefined;
}

/** Sends a message and reads its stream to the end. */
export async function sendAndWait(
  appUrl: string,
  sessionId: string,
  text: string,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of await sendMessage(appUrl, sessionId, text)) events.push(event);
  return events;
}

/** GET /events with Last-Event-ID: the replay and live events, until `until` says stop. */
export async function readEvents(
  appUrl: string,
  sessionId: string,
  after: number,
  until: (events: SseEvent[]) => boolean,
  timeoutMs: number,
): Promise<SseEvent[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/events`, {
      headers: { "last-event-id": String(after) },
      signal,
    }),
    "read the events",
  );
  if (response.body === null) throw new Error("read the events: no body");
  const events: SseEvent[] = [];
  // the events stream stays open for live events: stop reading once we have what we need
  for await (const event of readSse(response.body)) {
    events.push(event);
    if (until(events)) break;
  }
  return events;
}

export async function getSession(appUrl: string, sessionId: string): Promise<SessionDetail> {
  const response = await ok(await appFetch(`${appUrl}/api/sessions/${sessionId}`), "get a session");
  return (await response.json()) as SessionDetail;
}

export async function listSessionIds(appUrl: string): Promise<string[]> {
  const response = await ok(await appFetch(`${appUrl}/api/sessions`), "list sessions");
  return ((await response.json()) as Array<{ id: string }>).map((s) => s.id);
}

export async function getMessages(appUrl: string, sessionId: string): Promise<StoredMessage[]> {
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/messages?view=full`),
    "get messages",
  );
  return ((await response.json()) as { messages: StoredMessage[] }).messages;
}

/** PATCH /config (e.g. the approval policy). */
export async function patchConfig(
  appUrl: string,
  sessionId: string,
  patch: Record<string, unknown>,
): Promise<void> {
  await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/config`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(patch),
    }),
    "patch the config",
  );
}

/** POST /resume, read to the end. */
export async function resume(appUrl: string, sessionId: string): Promise<SseEvent[]> {
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/resume`, { method: "POST" }),
    "resume",
  );
  if (response.body === null) throw new Error("resume: no body");
  const events: SseEvent[] = [];
  for await (const event of readSse(response.body)) events.push(event);
  return events;
}

/** POST /approvals with the given decisions, read to the end. */
export async function decideToolCalls(
  appUrl: string,
  sessionId: string,
  decisions: Array<{ tool_call_id: string; decision: "approve" | "deny" }>,
): Promise<SseEvent[]> {
  const response = await ok(
    await appFetch(`${appUrl}/api/sessions/${sessionId}/approvals`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decisions }),
    }),
    "decide tool calls",
  );
  if (response.body === null) throw new Error("decide tool calls: no body");
  const events: SseEvent[] = [];
  for await (const event of readSse(response.body)) events.push(event);
  return events;
}

/** One loop of the admin loop tree, in the route's snake_case wire shape. */
export interface LoopSummary {
  loop_id: string;
  status: string;
  turns: number;
  parent_loop_id?: string;
  child_loop_ids: string[];
  config?: { provider: string; model: string; config_id?: string };
}

/** GET /api/admin/sessions/{id}/loops: the session's loop tree (as the owner, by the install token). */
export async function getLoopTree(appUrl: string, sessionId: string): Promise<LoopSummary[]> {
  const response = await ok(
    await appFetch(`${appUrl}/api/admin/sessions/${sessionId}/loops`),
    "get the loop tree",
  );
  return ((await response.json()) as { loops: LoopSummary[] }).loops;
}

/** The request bodies the fake LLM has received, oldest first. */
export async function fakeRequestBodies(fakeUrl: string): Promise<unknown[]> {
  const response = await fakeFetch(`${fakeUrl}/__fake/requests`, "read the fake's requests");
  return ((await response.json()) as { requests: Array<{ body?: unknown }> }).requests.map(
    (r) => r.body,
  );
}
