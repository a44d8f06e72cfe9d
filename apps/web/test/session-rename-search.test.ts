import { describe, expect, it } from "vitest";
import * as search from "@/app/api/search/route";
import * as session from "@/app/api/sessions/[id]/route";
import * as sessions from "@/app/api/sessions/route";
import { authedRequest, jsonRequest, params, sendText, useTestServer } from "./support";

// PATCH /api/sessions/{id} (rename) and GET /api/search (full-text over messages), issue #18.

const server = useTestServer();

async function createSession(title?: string): Promise<string> {
  const response = await sessions.POST(
    jsonRequest("POST", "/api/sessions", title ? { title } : {}),
    params({}),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { session_id: string }).session_id;
}

function rename(id: string, body: unknown): Promise<Response> {
  return session.PATCH(jsonRequest("PATCH", `/api/sessions/${id}`, body), params({ id }));
}

function find(query: string): Promise<Response> {
  return search.GET(authedRequest(`http://localhost/api/search${query}`), params({}));
}

describe("PATCH /api/sessions/{id}", () => {
  it("renames the session; the list and the detail show the new title", async () => {
    const id = await createSession("Old");
    const response = await rename(id, { title: "  Parser work " });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { title: string }).title).toBe("Parser work");
    const list = await sessions.GET(authedRequest("http://localhost/api/sessions"), params({}));
    const summaries = (await list.json()) as Array<{ id: string; title: string }>;
    expect(summaries.find((s) => s.id === id)?.title).toBe("Parser work");
  });

  it("answers 400 naming the field for a missing or blank title, 404 for an unknown session", async () => {
    const id = await createSession();
    for (const body of [{}, { title: "   " }, { title: 5 }]) {
      const response = await rename(id, body);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { fields: Array<{ field: string }> };
      expect(error.fields.map((f) => f.field)).toEqual(["title"]);
    }
    expect((await rename("nope", { title: "x" })).status).toBe(404);
  });

  it("needs the token", async () => {
    const id = await createSession();
    const response = await session.PATCH(
      new Request(`http://localhost/api/sessions/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "x" }),
      }),
      params({ id }),
    );
    expect(response.status).toBe(401);
  });
});

describe("GET /api/search", () => {
  it("finds the messages of every session holding every word, newest first", async () => {
    const a = await createSession("Alpha");
    server.llm.enqueue({ blocks: [{ type: "text", text: "The tokenizer is in src/lex.ts." }] });
    await sendText(a, "where is the tokenizer?");
    const b = await createSession("Beta");
    server.llm.enqueue({ blocks: [{ type: "text", text: "Sunny." }] });
    await sendText(b, "weather today");

    const response = await find("?q=TOKENIZER%20the");
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      query: string;
      results: Array<{ session_id: string; session_title: string; role: string; snippet: string }>;
    };
    expect(body.query).toBe("TOKENIZER the");
    expect(body.results.map((r) => [r.session_title, r.role])).toEqual([
      ["Alpha", "assistant"],
      ["Alpha", "user"],
    ]);
    expect(body.results[0]?.snippet).toBe("The tokenizer is in src/lex.ts.");
    const limited = (await (await find("?q=the&limit=1")).json()) as { results: unknown[] };
    expect(limited.results).toHaveLength(1);
  });

  it("answers 400 naming q or limit when they are wrong", async () => {
    for (const [query, field] of [
      ["", "q"],
      ["?q=%20", "q"],
      ["?q=x&limit=0", "limit"],
      ["?q=x&limit=abc", "limit"],
    ] as const) {
      const response = await find(query);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { fields: Array<{ field: string }> };
      expect(error.fields.map((f) => f.field)).toEqual([field]);
    }
  });
});

describe("titles from the model", () => {
  it("after the first answer the model names the session; the list shows it", async () => {
    await server.restart({ ARBOR_TITLES: "model" });
    const id = await createSession();
    server.llm.enqueue({ blocks: [{ type: "text", text: "Use ripgrep with --type ts." }] });
    server.llm.enqueue({ blocks: [{ type: "text", text: "Searching TypeScript files" }] });
    await sendText(id, "how do I search only the ts files?");
    await expect
      .poll(async () => {
        const list = await sessions.GET(authedRequest("http://localhost/api/sessions"), params({}));
        return ((await list.json()) as Array<{ id: string; title: string }>).find(
          (s) => s.id === id,
        )?.title;
      })
      .toBe("Searching TypeScript files");
    expect(JSON.stringify(server.llm.requests.at(-1))).toContain(
      "how do I search only the ts files?",
    );
  });
});
