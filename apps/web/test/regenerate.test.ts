import { describe, expect, it } from "vitest";
import * as regenerate from "@/app/api/sessions/[id]/messages/[message_id]/regenerate/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as session from "@/app/api/sessions/[id]/route";
import {
  authedRequest,
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  useTestServer,
} from "./support";

// POST /api/sessions/{id}/messages/{message_id}/regenerate (issue #18).

const server = useTestServer();

async function texts(id: string): Promise<string[]> {
  const response = await messages.GET(
    authedRequest(`http://localhost/api/sessions/${id}/messages`),
    params({ id }),
  );
  const body = (await response.json()) as {
    messages: Array<{ id: string; body: { message_type: string; text?: string } }>;
  };
  return body.messages.map((m) => m.body.text ?? m.body.message_type);
}

describe("POST …/messages/{message_id}/regenerate", () => {
  it("streams a new answer on a new active branch; the first answer stays on the old one", async () => {
    const id = await createSessionId();
    server.llm.enqueue({ blocks: [{ type: "text", text: "Paris." }] });
    const sent = await messages.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages`, {
        session_id: id,
        payload: { type: "text", text: "capital of France?" },
      }),
      params({ id }),
    );
    await sent.text();
    const listed = await messages.GET(
      authedRequest(`http://localhost/api/sessions/${id}/messages`),
      params({ id }),
    );
    const answer = ((await listed.json()) as { messages: Array<{ id: string }> }).messages[1];
    const before = (await (
      await session.GET(authedRequest(`http://localhost/api/sessions/${id}`), params({ id }))
    ).json()) as { active_branch_id: string };

    server.llm.enqueue({ blocks: [{ type: "text", text: "It is Paris." }] });
    const response = await regenerate.POST(
      jsonRequest("POST", `/api/sessions/${id}/messages/${answer?.id}/regenerate`),
      params({ id, message_id: answer?.id ?? "" }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await readSse(response);
    expect(events.some((e) => e.event === "error")).toBe(false);
    expect(finalState(events)).toBe("Idle");
    expect(await texts(id)).toEqual(["capital of France?", "It is Paris."]);

    const after = (await (
      await session.GET(authedRequest(`http://localhost/api/sessions/${id}`), params({ id }))
    ).json()) as { active_branch_id: string; branches: Array<{ id: string }> };
    expect(after.active_branch_id).not.toBe(before.active_branch_id);
    expect(after.branches).toHaveLength(2);
    // the model was asked the user's message again, without the first answer
    const asked = JSON.stringify(server.llm.requests.at(-1));
    expect(asked).toContain("capital of France?");
    expect(asked).not.toContain("Paris.");
  });

  it("refuses an unknown message with an error event, a missing session with 404, and needs the token", async () => {
    const id = await createSessionId();
    const refused = await readSse(
      await regenerate.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages/nope/regenerate`),
        params({ id, message_id: "nope" }),
      ),
    );
    expect(refused.find((e) => e.event === "error")?.data).toMatchObject({
      code: "invalid_request",
    });
    const missing = await regenerate.POST(
      jsonRequest("POST", "/api/sessions/none/messages/x/regenerate"),
      params({ id: "none", message_id: "x" }),
    );
    expect(missing.status).toBe(404);
    const anonymous = await regenerate.POST(
      new Request(`http://localhost/api/sessions/${id}/messages/x/regenerate`, { method: "POST" }),
      params({ id, message_id: "x" }),
    );
    expect(anonymous.status).toBe(401);
  });
});
