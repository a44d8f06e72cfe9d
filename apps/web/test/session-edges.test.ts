import { existsSync } from "node:fs";
import { join } from "node:path";
import { MAX_TEXT_CHARS } from "@arbor/core";
import { describe, expect, it } from "vitest";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as events from "@/app/api/sessions/[id]/events/route";
import * as edit from "@/app/api/sessions/[id]/messages/[message_id]/edit/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as session from "@/app/api/sessions/[id]/route";
import * as sessions from "@/app/api/sessions/route";
import {
  authedRequest,
  createSessionId,
  jsonRequest,
  params,
  readSse,
  useTestServer,
} from "./support";

// Issue #9 finding 11 and friends, over the route handlers: text and path limits (400 naming the
// field), Last-Event-ID / ?after outside the stored range, a message during a DELETE (409),
// client_metadata stored and returned, a workflow in plan mode refused.

const server = useTestServer();

const createSession = createSessionId;

function post(id: string, payload: unknown, extra: Record<string, unknown> = {}) {
  return messages.POST(
    jsonRequest("POST", `/api/sessions/${id}/messages`, { session_id: id, payload, ...extra }),
    params({ id }),
  );
}

async function fields(response: Response): Promise<string[]> {
  const body = (await response.json()) as { fields?: Array<{ field: string }> };
  return (body.fields ?? []).map((f) => f.field);
}

const TOO_LONG = "x".repeat(MAX_TEXT_CHARS + 1);

describe("text and path limits", () => {
  it("a message's text over the limit → 400 payload.text; nothing reaches the model", async () => {
    const id = await createSession();
    const response = await post(id, { type: "text", text: TOO_LONG });
    expect(response.status).toBe(400);
    expect(await fields(response)).toEqual(["payload.text"]);
    expect(server.llm.requests).toHaveLength(0);
  });

  it("an edit's text over the limit → 400 text", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const id = await createSession();
    await readSse(await post(id, { type: "text", text: "first" }));
    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const first = ((await read.json()) as { messages: Array<{ id: string }> }).messages[0];
    const response = await edit.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages/${first?.id}/edit`, { text: TOO_LONG }),
      params({ id, message_id: first?.id ?? "" }),
    );
    expect(response.status).toBe(400);
    expect(await fields(response)).toEqual(["text"]);
  });

  it("system_prompt over the limit → 400 config.system_prompt on create, system_prompt on PATCH", async () => {
    const created = await sessions.POST(
      jsonRequest("POST", "/api/sessions", { config: { system_prompt: TOO_LONG } }),
      params({}),
    );
    expect(created.status).toBe(400);
    expect(await fields(created)).toEqual(["config.system_prompt"]);
    const id = await createSession({ config: { system_prompt: "Be brief." } });
    const patched = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { system_prompt: TOO_LONG }),
      params({ id }),
    );
    expect(patched.status).toBe(400);
    expect(await fields(patched)).toEqual(["system_prompt"]);
    const ok = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { system_prompt: "Be terse." }),
      params({ id }),
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ config: { system_prompt: "Be terse." } });
  });

  it("a 100 KB file_reference path → 400 payload.path within 100 ms", async () => {
    const id = await createSession();
    const started = performance.now();
    const response = await post(id, { type: "file_reference", path: "a/".repeat(50_000) });
    expect(performance.now() - started).toBeLessThan(100);
    expect(response.status).toBe(400);
    expect(await fields(response)).toEqual(["payload.path"]);
  });
});

describe("Last-Event-ID and ?after", () => {
  async function sessionWithEvents(): Promise<{ id: string; last: number }> {
    server.llm.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const id = await createSession();
    const stream = await readSse(await post(id, { type: "text", text: "hello" }));
    return { id, last: stream.at(-1)?.id ?? 0 };
  }

  function replay(id: string, init: { header?: string; after?: string }, signal?: AbortSignal) {
    const query = init.after === undefined ? "" : `?after=${encodeURIComponent(init.after)}`;
    return events.GET(
      authedRequest(`http://localhost/api/sessions/${id}/events${query}`, {
        headers: init.header === undefined ? {} : { "last-event-id": init.header },
        ...(signal ? { signal } : {}),
      }),
      params({ id }),
    );
  }

  it("outside [0, last sequence] → 400 naming Last-Event-ID or after", async () => {
    const { id, last } = await sessionWithEvents();
    const bad = [
      String(last + 1),
      "9223372036854775808",
      "99999999999999999999",
      "-1",
      "1.5",
      "1e3",
      "0x10",
    ];
    for (const value of bad) {
      const byHeader = await replay(id, { header: value });
      expect(byHeader.status, value).toBe(400);
      expect(await fields(byHeader)).toEqual(["Last-Event-ID"]);
      const byQuery = await replay(id, { after: value });
      expect(byQuery.status, value).toBe(400);
      expect(await fields(byQuery)).toEqual(["after"]);
    }
  });

  it("0 and the last sequence itself are accepted", async () => {
    const { id, last } = await sessionWithEvents();
    for (const value of ["0", String(last)]) {
      const abort = new AbortController();
      const response = await replay(id, { header: value }, abort.signal);
      expect(response.status).toBe(200);
      abort.abort();
      await response.body?.cancel();
    }
  });
});

describe("a session being deleted", () => {
  it("a message posted while a DELETE waits is refused with 409 before anything is accepted", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "slow answer" }], firstChunkDelayMs: 300 });
    const id = await createSession();
    const running = post(id, { type: "text", text: "first" });
    const first = await running;
    const firstEvents = readSse(first);
    // the delete waits for the running operation; meanwhile nothing more is accepted
    const deleting = session.DELETE(jsonRequest("DELETE", `/api/sessions/${id}`), params({ id }));
    await new Promise((r) => setTimeout(r, 20));
    const late = await post(id, { type: "text", text: "lost?" });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: "conflict" });
    const again = await session.DELETE(
      jsonRequest("DELETE", `/api/sessions/${id}`),
      params({ id }),
    );
    expect(again.status).toBe(409);
    expect((await deleting).status).toBe(204);
    await firstEvents;
    // the late message never reached the model: only the first one did
    expect(server.llm.requests).toHaveLength(1);
    const gone = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
    expect(gone.status).toBe(404);
  });
});

describe("client_metadata", () => {
  it("is stored with the user message, returned by GET /messages, and never sent to the model", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const id = await createSession();
    const clientMetadata = { draft: "d-42", marker: "NOT-FOR-THE-MODEL" };
    await readSse(
      await post(id, { type: "text", text: "hi" }, { client_metadata: clientMetadata }),
    );
    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const body = (await read.json()) as {
      messages: Array<{ role: string; client_metadata?: unknown }>;
    };
    expect(body.messages[0]).toMatchObject({ role: "user", client_metadata: clientMetadata });
    expect(body.messages[1]?.client_metadata).toBeUndefined();
    expect(JSON.stringify(server.llm.requests)).not.toContain("NOT-FOR-THE-MODEL");
  });
});

describe("workflows over HTTP", () => {
  it("plan mode + manual: a bash workflow is refused with an error event and nothing runs", async () => {
    const id = await createSession({
      config: { agent_mode: "plan", approval_policy: { type: "manual" }, approve_read_only: false },
    });
    const response = await post(id, {
      type: "workflow",
      workflow: "bash",
      parameters: { command: "id > pwned.txt" },
    });
    const stream = await readSse(response);
    expect(stream.map((e) => [e.event, e.data.code])).toEqual([["error", "invalid_request"]]);
    expect(existsSync(join(server.workspace, "pwned.txt"))).toBe(false);
  });
});
