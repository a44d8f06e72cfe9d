import { describe, expect, it } from "vitest";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import { authedRequest, createSessionId, jsonRequest, params, useTestServer } from "./support";

// GET /api/sessions/{id}/messages?type= (issue #26 finding 10): messages listed by type; the
// query is strict, a bad or unknown parameter is a 400 naming it.

const server = useTestServer();

async function list(id: string, query: string): Promise<Response> {
  return messages.GET(
    authedRequest(`http://localhost/api/sessions/${id}/messages${query}`),
    params({ id }),
  );
}

async function types(response: Response): Promise<string[]> {
  expect(response.status).toBe(200);
  const body = (await response.json()) as { messages: Array<{ body: { message_type: string } }> };
  return body.messages.map((m) => m.body.message_type);
}

describe("GET /api/sessions/{id}/messages?type=", () => {
  it("lists only the asked types, in order; repeated or comma-separated", async () => {
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    server.llm.enqueue(
      { blocks: [{ type: "toolCall", id: "c1", name: "list_files", arguments: {} }] },
      { blocks: [{ type: "text", text: "listed" }] },
    );
    await (
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "list" },
        }),
        params({ id }),
      )
    ).text();
    expect(await types(await list(id, ""))).toEqual([
      "text",
      "tool_request",
      "tool_result",
      "text",
    ]);
    expect(await types(await list(id, "?type=tool_request"))).toEqual(["tool_request"]);
    expect(await types(await list(id, "?type=tool_result&type=tool_request"))).toEqual([
      "tool_request",
      "tool_result",
    ]);
    expect(await types(await list(id, "?type=text,tool_result&view=optimized"))).toEqual([
      "text",
      "tool_result",
      "text",
    ]);
  });

  it("refuses an unknown type and an unknown parameter with 400 naming it", async () => {
    const id = await createSessionId();
    const badType = await list(id, "?type=tool_call");
    expect(badType.status).toBe(400);
    const typeBody = (await badType.json()) as { fields: Array<{ field: string }> };
    expect(typeBody.fields.map((f) => f.field)).toEqual(["type.0"]);
    const empty = await list(id, "?type=");
    expect(empty.status).toBe(400);
    const unknown = await list(id, "?kind=text");
    expect(unknown.status).toBe(400);
    const unknownBody = (await unknown.json()) as { fields: Array<{ field: string }> };
    expect(unknownBody.fields.map((f) => f.field)).toEqual(["kind"]);
    const badView = await list(id, "?view=raw");
    expect(badView.status).toBe(400);
  });
});
