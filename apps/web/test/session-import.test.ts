import { describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as session from "@/app/api/sessions/[id]/route";
import * as importRoute from "@/app/api/sessions/import/route";
import * as sessions from "@/app/api/sessions/route";
import {
  authedRequest,
  finalState,
  jsonRequest,
  params,
  postText,
  readSse,
  sendText,
  useTestServer,
} from "./support";

// POST /api/sessions/import: a file written by Export › JSON becomes a new session (issue #18).

const server = useTestServer();

async function getJson<T>(url: string, handler: typeof session.GET, id: string): Promise<T> {
  const response = await handler(authedRequest(`http://localhost${url}`), params({ id }));
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** The file the chat's Export › JSON writes (packages/ui session-export.ts). */
async function exportFile(id: string): Promise<unknown> {
  const detail = await getJson<unknown>(`/api/sessions/${id}`, session.GET, id);
  const list = await getJson<{ messages: unknown[] }>(
    `/api/sessions/${id}/messages`,
    messages.GET,
    id,
  );
  return { format: "arbor-session", version: 1, session: detail, messages: list.messages };
}

function postImport(body: unknown): Promise<Response> {
  return importRoute.POST(jsonRequest("POST", "/api/sessions/import", body), params({}));
}

describe("POST /api/sessions/import", () => {
  it("brings an exported session back as a new one that the conversation goes on in", async () => {
    const created = await sessions.POST(
      jsonRequest("POST", "/api/sessions", {
        title: "Lexer questions",
        config: {
          system_prompt: "You answer about lexers.",
          approval_policy: { type: "auto_approve_all" },
        },
      }),
      params({}),
    );
    const { session_id: original } = (await created.json()) as { session_id: string };
    server.llm.enqueue({ blocks: [{ type: "text", text: "The tokenizer is in src/lex.ts." }] });
    await sendText(original, "where is the tokenizer?");

    const response = await postImport(await exportFile(original));
    expect(response.status).toBe(201);
    const imported = (await response.json()) as {
      session_id: string;
      branch_id: string;
      message_count: number;
    };
    expect(imported.session_id).not.toBe(original);
    expect(imported.message_count).toBe(2);

    const detail = await getJson<{
      title: string;
      state: { type: string };
      config: Record<string, unknown>;
    }>(`/api/sessions/${imported.session_id}`, session.GET, imported.session_id);
    expect(detail).toMatchObject({ title: "Lexer questions", state: { type: "Idle" } });
    // the prompt travels; the approval policy is this server's default, never the file's
    expect(detail.config.system_prompt).toBe("You answer about lexers.");
    expect(detail.config.approval_policy).not.toEqual({ type: "auto_approve_all" });

    server.llm.enqueue({ blocks: [{ type: "text", text: "Yes, still src/lex.ts." }] });
    await sendText(imported.session_id, "still there?");
    const last = server.llm.requests.at(-1);
    expect(JSON.stringify(last)).toContain("where is the tokenizer?");
    expect(JSON.stringify(last)).toContain("The tokenizer is in src/lex.ts.");
  });

  it("answers 400 naming the field for a file that is not a session export", async () => {
    for (const [body, field] of [
      [{ format: "other", version: 1, messages: [] }, "format"],
      [{ format: "arbor-session", version: 2, messages: [] }, "version"],
      [{ format: "arbor-session", version: 1 }, "messages"],
      [{ format: "arbor-session", version: 1, messages: [{ id: "x" }] }, "messages.0.session_id"],
    ] as const) {
      const response = await postImport(body);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { fields: Array<{ field: string }> };
      expect(error.fields.map((f) => f.field)).toContain(field);
    }
    const list = await sessions.GET(authedRequest("http://localhost/api/sessions"), params({}));
    expect(await list.json()).toEqual([]);
  });

  it("answers 400 naming the field of a message id the file holds twice, and stores nothing", async () => {
    const created = await sessions.POST(jsonRequest("POST", "/api/sessions", {}), params({}));
    const { session_id: original } = (await created.json()) as { session_id: string };
    server.llm.enqueue({ blocks: [{ type: "text", text: "Hello." }] });
    await sendText(original, "hi");
    const file = (await exportFile(original)) as { messages: Array<{ id: string }> };
    const [first, second] = file.messages;
    if (!first || !second) throw new Error("setup");
    const doubled = { ...file, messages: [first, second, { ...second }, { ...first }] };

    const response = await postImport(doubled);
    expect(response.status).toBe(400);
    const error = (await response.json()) as {
      error: string;
      fields: Array<{ field: string; message: string }>;
    };
    expect(error.error).toBe("invalid_request");
    expect(error.fields).toEqual([
      {
        field: "messages.2.id",
        message: `duplicate message id "${second.id}" (also messages.1.id)`,
      },
      {
        field: "messages.3.id",
        message: `duplicate message id "${first.id}" (also messages.0.id)`,
      },
    ]);
    const list = await sessions.GET(authedRequest("http://localhost/api/sessions"), params({}));
    expect(((await list.json()) as unknown[]).length).toBe(1);
  });

  it("answers 400 naming the data of an imported image whose bytes are not its type; cleans attachment names", async () => {
    const user = (id: string, body: Record<string, unknown>) => ({
      id,
      session_id: "old",
      role: "user",
      status: "complete",
      created_at: "2026-01-01T00:00:00.000Z",
      body,
    });
    const svg = Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64");
    const attachment = (data: string, name: string) => ({
      message_type: "attachment",
      name,
      mime_type: "image/png",
      size: 10,
      content: [{ type: "image", data, mimeType: "image/png" }],
    });
    const lying = await postImport({
      format: "arbor-session",
      version: 1,
      messages: [user("m1", attachment(svg, "logo.png"))],
    });
    expect(lying.status).toBe(400);
    expect(await lying.json()).toMatchObject({
      fields: [
        {
          field: "messages.0.body.content.0.data",
          message: "the bytes are not image/png (they have no png, jpeg, gif or webp signature)",
        },
      ],
    });

    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
    const fine = await postImport({
      format: "arbor-session",
      version: 1,
      messages: [user("m1", attachment(png, "../../.ssh/\u0000pixel.png"))],
    });
    expect(fine.status).toBe(201);
    const { session_id: id } = (await fine.json()) as { session_id: string };
    const list = await getJson<{ messages: Array<{ body: { name?: string } }> }>(
      `/api/sessions/${id}/messages`,
      messages.GET,
      id,
    );
    expect(list.messages.map((m) => m.body.name)).toEqual(["pixel.png"]);
  });

  it("imports a session that waited for an approval at rest: the call is cancelled, the next request answers every tool_use", async () => {
    const created = await sessions.POST(
      jsonRequest("POST", "/api/sessions", {
        config: { approval_policy: { type: "manual" }, approve_read_only: false },
      }),
      params({}),
    );
    const { session_id: original } = (await created.json()) as { session_id: string };
    server.llm.enqueue({
      blocks: [
        { type: "toolCall", id: "call_wait", name: "read_file", arguments: { path: "notes.txt" } },
      ],
    });
    expect(finalState(await readSse(await postText(original, "read notes")))).toBe(
      "AwaitingToolApproval",
    );

    const response = await postImport(await exportFile(original));
    expect(response.status).toBe(201);
    const { session_id: id } = (await response.json()) as { session_id: string };
    const detail = await getJson<{ state: { type: string } }>(
      `/api/sessions/${id}`,
      session.GET,
      id,
    );
    expect(detail.state.type).toBe("Idle");
    const list = await getJson<{ messages: Array<{ body: Record<string, unknown> }> }>(
      `/api/sessions/${id}/messages`,
      messages.GET,
      id,
    );
    const bodies = list.messages.map((m) => m.body);
    expect(bodies.map((b) => b.message_type)).toEqual(["text", "tool_request", "tool_result"]);
    expect(bodies[1]?.calls).toMatchObject([{ id: "call_wait", approval: "denied" }]);
    expect(bodies[2]).toMatchObject({ tool_call_id: "call_wait", status: "cancelled" });

    server.llm.enqueue({ blocks: [{ type: "text", text: "Fine." }] });
    await sendText(id, "go on");
    const sent = JSON.stringify(server.llm.requests.at(-1));
    expect(sent).toContain('"tool_use_id":"call_wait"');
  });

  it("needs the token", async () => {
    const response = await importRoute.POST(
      new Request("http://localhost/api/sessions/import", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ format: "arbor-session", version: 1, messages: [] }),
      }),
      params({}),
    );
    expect(response.status).toBe(401);
  });
});
