import { describe, expect, it } from "vitest";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as events from "@/app/api/sessions/[id]/events/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as session from "@/app/api/sessions/[id]/route";
import * as sessions from "@/app/api/sessions/route";
import {
  authedRequest,
  finalState,
  jsonRequest,
  params,
  parseSse,
  postText,
  readSse,
  useTestServer,
} from "./support";

// The core flows over the route handlers, with the runtime's model being the fake LLM server
// spoken to over HTTP: create, send (SSE), read back, approvals, reconnect with Last-Event-ID.

const server = useTestServer();

async function createSession(body: unknown = {}): Promise<string> {
  const response = await sessions.POST(jsonRequest("POST", "/api/sessions", body), params({}));
  expect(response.status).toBe(201);
  const created = (await response.json()) as { session_id: string; branch_id: string };
  expect(created.branch_id).toEqual(expect.any(String));
  return created.session_id;
}

describe("sessions and messages", () => {
  it("creates a session, streams a message's events as SSE, and reads the messages back", async () => {
    server.llm.enqueue({
      blocks: [{ type: "text", text: "Hello from the fake model, in chunks." }],
    });
    const id = await createSession({ title: "First chat" });

    const response = await postText(id, "hi there");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const stream = await readSse(response);

    const sequenced = stream.filter((e) => e.id !== undefined).map((e) => e.id ?? 0);
    expect(sequenced.length).toBe(stream.length);
    for (let i = 1; i < sequenced.length; i++) {
      expect(sequenced[i]).toBeGreaterThan(sequenced[i - 1] ?? 0);
    }
    const names = new Set(stream.map((e) => e.event));
    expect(names).toEqual(new Set(["context_update", "content_delta", "content_final"]));
    const text = stream
      .filter((e) => e.event === "content_delta")
      .map((e) => e.data.delta)
      .join("");
    expect(text).toBe("Hello from the fake model, in chunks.");
    expect(finalState(stream)).toBe("Idle");
    // the answer's lifecycle: announced before its first delta, finished once stored
    const answerId = stream.find((e) => e.event === "content_delta")?.data.message_id;
    const steps = stream.flatMap((e) => {
      if (e.event === "content_delta") return e.data.message_id === answerId ? ["delta"] : [];
      const update = e.data.message_update as
        | { kind: string; message_id: string; status?: string; role?: string }
        | undefined;
      if (update === undefined || update.message_id !== answerId) return [];
      return [update.status ? `${update.kind}:${update.status}` : `${update.kind}`];
    });
    expect(steps.slice(0, 3)).toEqual(["created", "status_changed:streaming", "delta"]);
    expect(steps.slice(-2)).toEqual(["status_changed:complete", "completed"]);
    // the model was reached over HTTP with the configured key
    expect(server.llm.requests).toHaveLength(1);
    expect(server.llm.requests[0]?.headers["x-api-key"]).toBe("test");

    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages?view=full`),
      params({ id }),
    );
    expect(read.status).toBe(200);
    const body = (await read.json()) as {
      view: string;
      messages: Array<{ role: string; body: { message_type: string; text?: string } }>;
    };
    expect(body.view).toBe("full");
    expect(body.messages.map((m) => [m.role, m.body.text])).toEqual([
      ["user", "hi there"],
      ["assistant", "Hello from the fake model, in chunks."],
    ]);

    const list = (await (
      await sessions.GET(jsonRequest("GET", "/api/sessions"), params({}))
    ).json()) as Array<{
      id: string;
      title: string;
      message_count: number;
      state: { type: string };
    }>;
    expect(list.map((s) => [s.id, s.title, s.message_count, s.state.type])).toEqual([
      [id, "First chat", 2, "Idle"],
    ]);

    const detail = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
    const parsed = (await detail.json()) as {
      id: string;
      branches: unknown[];
      config: { workspace: string };
    };
    expect(parsed.id).toBe(id);
    expect(parsed.branches).toHaveLength(1);
    // the server pins the workspace, whatever a client asks for
    expect(parsed.config.workspace).toBe(server.runtime.workspace);
  });

  it("keeps the pipeline's timings on the user's message, and logs a failing processor with its trace", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const id = await createSession();
    await (await postText(id, "hi")).text();
    const read = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const body = (await read.json()) as {
      messages: Array<{
        role: string;
        meta?: { pipeline?: { processors: Array<{ processor: string; ms: number }> } };
      }>;
    };
    const pipeline = body.messages.find((m) => m.role === "user")?.meta?.pipeline;
    expect(pipeline?.processors.map((p) => p.processor)).toEqual([
      "file_reference",
      "tool_enhancement",
      "system_prompt",
      "optimization",
    ]);

    const refused = await readSse(
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "file_reference", path: "missing.txt" },
        }),
        params({ id }),
      ),
    );
    expect(refused.find((e) => e.event === "error")?.data).toMatchObject({ code: "file_read" });
    const logged = server.logs.find((l) => l.message === "the message pipeline failed");
    expect(logged?.fields).toMatchObject({ session: id, processor: "file_reference" });
    expect(String(logged?.fields?.trace)).toContain("at ");
  });

  it("refuses a client-sent workspace, naming it, and makes no session (the server chooses it)", async () => {
    const before = await server.runtime.manager.list();
    const refused = await sessions.POST(
      jsonRequest("POST", "/api/sessions", { config: { workspace: "/" } }),
      params({}),
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: "invalid_request",
      fields: [{ field: "config.workspace", message: "Unrecognized field" }],
    });
    expect(await server.runtime.manager.list()).toHaveLength(before.length);
    const id = await createSession({});
    const detail = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
    const parsed = JSON.parse(await detail.text()) as { config: { workspace: string } };
    expect(parsed.config.workspace).toBe(server.runtime.workspace);
  });

  it("answers 404 for an unknown session on every session route", async () => {
    const id = "no-such-session";
    const answers = [
      await postText(id, "hello"),
      await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id })),
      await session.DELETE(jsonRequest("DELETE", `/api/sessions/${id}`), params({ id })),
      await messages.GET(jsonRequest("GET", `/api/sessions/${id}/messages`), params({ id })),
      await events.GET(jsonRequest("GET", `/api/sessions/${id}/events`), params({ id })),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ error: "not_found" });
    }
  });

  it("deletes a session", async () => {
    const id = await createSession();
    const deleted = await session.DELETE(
      jsonRequest("DELETE", `/api/sessions/${id}`),
      params({ id }),
    );
    expect(deleted.status).toBe(204);
    const after = await session.GET(jsonRequest("GET", `/api/sessions/${id}`), params({ id }));
    expect(after.status).toBe(404);
  });
});

describe("tool approvals", () => {
  it("ends the stream in AwaitingToolApproval under the manual policy; POST approvals continues the loop", async () => {
    server.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_read",
            name: "read_file",
            arguments: { path: "notes.txt" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "The file lists alpha, beta and gamma." }] },
    );
    const id = await createSession({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });

    const first = await readSse(await postText(id, "what is in notes.txt?"));
    expect(finalState(first)).toBe("AwaitingToolApproval");
    const waiting = first.filter((e) => e.event === "context_update").at(-1)?.data
      .current_state as {
      pending_requests: string[];
      tool_names: string[];
    };
    expect(waiting.tool_names).toEqual(["read_file"]);
    const callId = waiting.pending_requests[0] ?? "";

    const response = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: callId, decision: "approve" }],
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const second = await readSse(response);
    const states = second
      .filter((e) => e.event === "context_update")
      .map((e) => (e.data.current_state as { type: string }).type);
    expect(states).toContain("ExecutingTool");
    expect(finalState(second)).toBe("Idle");
    // the continuation's ids carry on from the first stream's
    const lastOfFirst = Math.max(...first.map((e) => e.id ?? 0));
    expect(Math.min(...second.map((e) => e.id ?? Number.POSITIVE_INFINITY))).toBeGreaterThan(
      lastOfFirst,
    );
    // the tool really ran: its result went to the model in the second request
    expect(JSON.stringify(server.llm.requests[1]?.body)).toContain("gamma");
  });

  it("streams an invalid_transition error when nothing waits for approval", async () => {
    const id = await createSession();
    const response = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "call_x", decision: "deny" }],
      }),
      params({ id }),
    );
    const stream = await readSse(response);
    expect(stream).toHaveLength(1);
    expect(stream[0]).toMatchObject({
      id: undefined,
      event: "error",
      data: { code: "invalid_transition" },
    });
  });
});

describe("reconnecting", () => {
  it("replays exactly the events after Last-Event-ID, then streams live ones", async () => {
    server.llm.enqueue({
      blocks: [{ type: "text", text: "A reply long enough for several chunks." }],
    });
    const id = await createSession();
    const all = await readSse(await postText(id, "hello"));
    const ids = all.map((e) => e.id ?? 0);
    const cut = ids[Math.floor(ids.length / 2)] ?? 0;

    const abort = new AbortController();
    const request = authedRequest(`http://localhost/api/sessions/${id}/events`, {
      headers: { "last-event-id": String(cut) },
      signal: abort.signal,
    });
    const response = await events.GET(request, params({ id }));
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    const expected = all.filter((e) => (e.id ?? 0) > cut);
    // read until every missed event has arrived (the stream itself stays open for live events)
    while (!text.includes(`id: ${ids.at(-1)}\n`)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    // then a live event: a second message's events follow on the same stream
    server.llm.enqueue({ blocks: [{ type: "text", text: "live" }] });
    await readSse(await postText(id, "again"));
    while (!text.includes('"delta":"live"')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    abort.abort();
    const received = parseSse(text);
    expect(received.slice(0, expected.length)).toEqual(expected);
    const liveIds = received.slice(expected.length).map((e) => e.id ?? 0);
    expect(liveIds.length).toBeGreaterThan(0);
    expect(Math.min(...liveIds)).toBe((ids.at(-1) ?? 0) + 1);
    // the client went away: the stream is closed, not left hanging
    const end = await reader.read();
    expect(end.done).toBe(true);
  });

  it("accepts ?after=N and rejects a malformed Last-Event-ID naming it", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const id = await createSession();
    const all = await readSse(await postText(id, "hello"));
    const abort = new AbortController();
    const last = all.at(-1)?.id ?? 0;
    const response = await events.GET(
      authedRequest(`http://localhost/api/sessions/${id}/events?after=${last - 1}`, {
        signal: abort.signal,
      }),
      params({ id }),
    );
    const reader = response.body?.getReader();
    let text = "";
    while (reader && !text.includes(`id: ${last}\n`)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    abort.abort();
    expect(text.match(/^id: /gm)).toHaveLength(1);

    const bad = await events.GET(
      authedRequest(`http://localhost/api/sessions/${id}/events`, {
        headers: { "last-event-id": "seven" },
      }),
      params({ id }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: "invalid_request",
      fields: [{ field: "Last-Event-ID" }],
    });
  });
});
