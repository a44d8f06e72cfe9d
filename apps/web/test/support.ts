import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemorySessionStore, type Logger } from "@arbor/core";
import { type FakeLlmServer, startFakeLlmServer } from "@arbor/core/testing";
import { afterEach, beforeEach, expect } from "vitest";
import { newToken } from "@/lib/server/people/people";
import { createRuntime, type Runtime, setRuntime } from "@/lib/server/runtime";

// Shared fixtures of the route-handler tests: a runtime over the in-memory store whose model is
// the fake LLM server over HTTP (the real Anthropic adapter, as the running app uses it), route
// contexts, and an SSE body parser.

export interface LogEntry {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

export function capturingLogger(entries: LogEntry[]): Logger {
  const add =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      entries.push(fields === undefined ? { level, message } : { level, message, fields });
    };
  return { debug: add("debug"), info: add("info"), warn: add("warn"), error: add("error") };
}

export interface TestServer {
  runtime: Runtime;
  llm: FakeLlmServer;
  workspace: string;
  logs: LogEntry[];
  close(): Promise<void>;
}

/** Starts the fake LLM server and installs a runtime pointed at it. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const llm = await startFakeLlmServer();
  const workspace = mkdtempSync(join(tmpdir(), "arbor-web-"));
  writeFileSync(join(workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
  const logs: LogEntry[] = [];
  const runtime = await createRuntime({
    env: {
      // the install token the requests carry (the owner's Bearer)
      ARBOR_TOKEN: TEST_TOKEN,
      ARBOR_PROVIDER: "anthropic",
      ANTHROPIC_BASE_URL: llm.url,
      ANTHROPIC_API_KEY: "test",
      WORKSPACE_DIR: workspace,
      // the model's title request would take the next scripted answer (tests of it turn it on)
      ARBOR_TITLES: "first_message",
      ...env,
    },
    store: new InMemorySessionStore(),
    logger: capturingLogger(logs),
  });
  await setRuntime(runtime);
  return {
    runtime,
    llm,
    workspace,
    logs,
    async close() {
      await setRuntime(undefined);
      await llm.close();
    },
  };
}

export function params<P extends Record<string, string>>(values: P): { params: Promise<P> } {
  return { params: Promise.resolve(values) };
}

/** A person of the given role with a personal token (full scope unless given), for requests as them. */
export async function personWithToken(
  runtime: Runtime,
  role: "owner" | "admin" | "member" | "viewer",
  options: { name?: string; scope?: "read" | "write" | "admin" } = {},
): Promise<{ id: string; name: string; token: string; authorization: string }> {
  const name =
    options.name ?? `${role[0]?.toUpperCase()}${role.slice(1)} ${randomUUID().slice(0, 4)}`;
  const person = await runtime.people.store.createPerson({
    name,
    email: `${randomUUID()}@people.test`,
    role,
  });
  const made = newToken();
  await runtime.people.store.createToken({
    userId: person.id,
    name: "test",
    scope: options.scope ?? "admin",
    hash: made.hash,
    prefix: made.prefix,
    expiresAt: null,
  });
  return { id: person.id, name, token: made.token, authorization: `Bearer ${made.token}` };
}

/** The install token of the tests' runtime (test/setup.ts puts it in ARBOR_TOKEN). */
export const TEST_TOKEN = "web-test-token-0123456789abcdef";

/** A request to the app as an API client makes it: with the install token as a Bearer. */
export function authedRequest(url: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", `Bearer ${TEST_TOKEN}`);
  return new Request(url, { ...init, headers });
}

export function jsonRequest(method: string, url: string, body?: unknown): Request {
  return authedRequest(`http://localhost${url}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

export interface ParsedSseEvent {
  id: number | undefined;
  event: string;
  data: Record<string, unknown>;
}

/** Parses an SSE body per the EventSource rules this server uses (comments skipped). */
export function parseSse(text: string): ParsedSseEvent[] {
  const events: ParsedSseEvent[] = [];
  for (const block of text.split("\n\n")) {
    let id: number | undefined;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = Number(value);
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push({ id, event, data: JSON.parse(data.join("\n")) });
  }
  return events;
}

export async function readSse(response: Response): Promise<ParsedSseEvent[]> {
  return parseSse(await response.text());
}

/** Reads the SSE stream until `done` holds (then stops reading; the operation goes on). */
export async function readUntil(
  response: Response,
  done: (events: ParsedSseEvent[]) => boolean,
): Promise<{ seen: ParsedSseEvent[]; rest: () => Promise<ParsedSseEvent[]> }> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  let text = "";
  const decoder = new TextDecoder();
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
    const seen = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    if (done(seen)) break;
  }
  const seen = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
  return {
    seen,
    rest: async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      return parseSse(text);
    },
  };
}

/** The last context_update's state type. */
export function finalState(events: readonly ParsedSseEvent[]): string | undefined {
  const updates = events.filter((e) => e.event === "context_update");
  const state = updates.at(-1)?.data.current_state as { type?: string } | undefined;
  return state?.type;
}

/** The current test's server; `restart` replaces it with one started with other settings. */
export type TestServerHandle = TestServer & {
  restart(env: Record<string, string>): Promise<void>;
};

/**
 * A test server for each test of the file (or of the describe block it is called in): started
 * before each test, closed after it. The value stands for the current test's server.
 */
export function useTestServer(env: Record<string, string> = {}): TestServerHandle {
  let current: TestServer | undefined;
  const restart = async (other: Record<string, string>): Promise<void> => {
    await current?.close();
    current = await startTestServer(other);
  };
  beforeEach(async () => {
    current = await startTestServer(env);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as TestServerHandle, {
    get(_, key) {
      if (key === "restart") return restart;
      if (current === undefined) throw new Error("the test server runs only inside a test");
      return Reflect.get(current, key);
    },
  });
}

/** POST /api/sessions/{id}/messages with a text payload: the streaming response. */
export async function postText(id: string, text: string): Promise<Response> {
  const { POST } = await import("@/app/api/sessions/[id]/messages/route");
  return POST(
    jsonRequest("POST", `/api/sessions/${id}/messages`, {
      session_id: id,
      payload: { type: "text", text },
    }),
    params({ id }),
  );
}

/** Sends a text message (200 expected) and reads the whole run's SSE events. */
export async function sendText(id: string, text: string): Promise<ParsedSseEvent[]> {
  const response = await postText(id, text);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  return readSse(response);
}

/** Creates a session through POST /api/sessions (201) and returns its id. */
export async function createSessionId(body: unknown = {}): Promise<string> {
  const { POST } = await import("@/app/api/sessions/route");
  const response = await POST(jsonRequest("POST", "/api/sessions", body), params({}));
  expect(response.status).toBe(201);
  return ((await response.json()) as { session_id: string }).session_id;
}
