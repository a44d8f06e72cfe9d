import { describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as edit from "@/app/api/sessions/[id]/messages/[message_id]/edit/route";
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

// Issue #26 finding 10 (REQ-180): the loop tree says how each run continues.
describe("the loop tree of regenerate and edit & resend", () => {
  it("regenerate is a `rerun` of the first answer's loop, edit & resend a `branch` of it", async () => {
    const id = await createSessionId();
    server.llm.enqueue({ blocks: [{ type: "text", text: "Paris." }] });
    await (
      await messages.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages`, {
          session_id: id,
          payload: { type: "text", text: "capital of France?" },
        }),
        params({ id }),
      )
    ).text();
    const listed = (await (
      await messages.GET(
        authedRequest(`http://localhost/api/sessions/${id}/messages`),
        params({ id }),
      )
    ).json()) as { messages: Array<{ id: string }> };
    const [question, answer] = listed.messages;

    server.llm.enqueue({ blocks: [{ type: "text", text: "It is Paris." }] });
    const rerun = await readSse(
      await regenerate.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages/${answer?.id}/regenerate`),
        params({ id, message_id: answer?.id ?? "" }),
      ),
    );
    expect(finalState(rerun)).toBe("Idle");
    server.llm.enqueue({ blocks: [{ type: "text", text: "Berlin." }] });
    const branched = await readSse(
      await edit.POST(
        jsonRequest("POST", `/api/sessions/${id}/messages/${question?.id}/edit`, {
          text: "capital of Germany?",
        }),
        params({ id, message_id: question?.id ?? "" }),
      ),
    );
    expect(branched.some((e) => e.event === "error")).toBe(false);
    expect(finalState(branched)).toBe("Idle");

    const tree = (await (
      await loops.GET(jsonRequest("GET", `/api/admin/sessions/${id}/loops`), params({ id }))
    ).json()) as {
      loops: Array<{
        loop_id: string;
        parent_loop_id?: string;
        continuation_kind?: { type: string; tag?: string };
        child_loop_ids: string[];
      }>;
    };
    expect(tree.loops).toHaveLength(3);
    const [first, second, third] = tree.loops;
    expect(first?.continuation_kind).toBeUndefined();
    expect(second).toMatchObject({
      parent_loop_id: first?.loop_id,
      continuation_kind: { type: "rerun" },
    });
    // edit & resend forks from the rerun's branch: its parent answered the edited question there
    expect(third).toMatchObject({
      parent_loop_id: second?.loop_id,
      continuation_kind: { type: "branch" },
    });
    expect(Date.parse(second?.continuation_kind?.tag ?? "")).not.toBeNaN();
    expect(Date.parse(third?.continuation_kind?.tag ?? "")).not.toBeNaN();
  });
});
