import { describe, expect, it } from "vitest";
import * as loops from "@/app/api/admin/sessions/[id]/loops/route";
import * as usage from "@/app/api/me/usage/route";
import * as budget from "@/app/api/people/[person_id]/budget/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as config from "@/app/api/sessions/[id]/config/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as resume from "@/app/api/sessions/[id]/resume/route";
import {
  authedRequest,
  createSessionId,
  finalState,
  jsonRequest,
  params,
  personWithToken,
  postText,
  readSse,
  useTestServer,
} from "./support";

// Authorization that knows it guards an agent (issue #25): who decided each tool call
// (decided_by), who started each run (started_by in the admin loop tree), who may decide
// (approvers), and per-person monthly token budgets, over the real route handlers, the real
// Anthropic adapter and the fake model server over HTTP. The caller is the install's owner
// ("Owner", id "owner") until the lead's accounts land.

const server = useTestServer();
const owner = { id: "owner", name: "Owner" };

async function storedCalls(id: string) {
  const response = await messages.GET(
    authedRequest(`http://localhost/api/sessions/${id}/messages`),
    params({ id }),
  );
  const body = (await response.json()) as {
    messages: Array<{ body: { message_type: string; calls?: Array<Record<string, unknown>> } }>;
  };
  return body.messages.flatMap((m) => m.body.calls ?? []);
}

async function loopTree(id: string) {
  const response = await loops.GET(
    authedRequest(`http://localhost/api/admin/sessions/${id}/loops`),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { loops: Array<Record<string, unknown>> }).loops;
}

const writeCall = (id: string) => ({
  blocks: [
    {
      type: "toolCall" as const,
      id,
      name: "write_file",
      arguments: { path: "out.txt", content: "x" },
    },
  ],
});

async function putBudget(personId: string, body: unknown): Promise<Response> {
  return budget.PUT(
    jsonRequest("PUT", `/api/people/${personId}/budget`, body),
    params({ person_id: personId }),
  );
}

describe("decided_by and started_by", () => {
  it("an approval is stored and streamed with its person; each run records who started it", async () => {
    const id = await createSessionId();
    server.llm.enqueue(writeCall("w1"), { blocks: [{ type: "text", text: "Written." }] });
    const first = await readSse(await postText(id, "write out.txt"));
    expect(finalState(first)).toBe("AwaitingToolApproval");
    expect((await storedCalls(id)).map((c) => c.decided_by ?? null)).toEqual([null]);

    const response = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "w1", decision: "approve" }],
      }),
      params({ id }),
    );
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(finalState(events)).toBe("Idle");
    // the approval event carries the person
    const decisions = events.flatMap((e) =>
      e.event === "context_update" && (e.data.metadata as Record<string, unknown>)?.decisions
        ? [(e.data.metadata as Record<string, unknown>).decisions]
        : [],
    );
    expect(decisions).toEqual([
      { w1: { approval: "approved", approval_note: "user", decided_by: owner } },
    ]);
    expect((await storedCalls(id)).map((c) => [c.approval, c.decided_by])).toEqual([
      ["approved", owner],
    ]);
    // the run the message started and the one the approval continued both name their person
    const tree = await loopTree(id);
    expect(tree.map((l) => l.started_by)).toEqual([owner, owner]);
  });
});

describe("approvers", () => {
  it("is a session setting: collaborators by default, owner by PATCH, anything else is a 400 naming it", async () => {
    const id = await createSessionId();
    const patch = (body: unknown) =>
      config.PATCH(jsonRequest("PATCH", `/api/sessions/${id}/config`, body), params({ id }));
    const set = await patch({ approvers: "owner" });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { config: { approvers: string } }).config.approvers).toBe(
      "owner",
    );
    const bad = await patch({ approvers: "anyone" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { fields: Array<{ field: string }> }).fields[0]?.field).toBe(
      "approvers",
    );
    // the owner still decides in an owner-only session
    server.llm.enqueue(writeCall("w2"), { blocks: [{ type: "text", text: "Done." }] });
    await readSse(await postText(id, "write"));
    const decided = await approvals.POST(
      jsonRequest("POST", `/api/sessions/${id}/approvals`, {
        decisions: [{ tool_call_id: "w2", decision: "deny" }],
      }),
      params({ id }),
    );
    expect(decided.status).toBe(200);
    await readSse(decided);
    expect((await storedCalls(id)).map((c) => [c.approval, c.decided_by])).toEqual([
      ["denied", owner],
    ]);
  });
});

describe("who may decide", () => {
  it("a collaborator's decision is stored with their name; approvers = owner refuses them with 403, and a viewer always", async () => {
    const id = await createSessionId();
    const runtime = server.runtime;
    const ana = await personWithToken(runtime, "member", { name: "Ana" });
    const ben = await personWithToken(runtime, "member", { name: "Ben" });
    const share = (userId: string, relation: "collaborator" | "viewer") =>
      runtime.people.store.grant({ sessionId: id, userId, relation, grantedBy: "owner" });
    await share(ana.id, "collaborator");
    await share(ben.id, "viewer");
    const decide = (authorization: string, callId: string, decision: "approve" | "deny") =>
      approvals.POST(
        authedRequest(`http://localhost/api/sessions/${id}/approvals`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization },
          body: JSON.stringify({ decisions: [{ tool_call_id: callId, decision }] }),
        }),
        params({ id }),
      );

    server.llm.enqueue(writeCall("w1"), { blocks: [{ type: "text", text: "Written." }] });
    await readSse(await postText(id, "write"));
    // the viewer may not decide
    const byViewer = await decide(ben.authorization, "w1", "approve");
    expect(byViewer.status).toBe(403);
    expect(((await byViewer.json()) as { error: string }).error).toBe("forbidden");
    // the collaborator may (approvers: collaborators, the default)
    const byAna = await decide(ana.authorization, "w1", "approve");
    expect(byAna.status).toBe(200);
    await readSse(byAna);
    expect((await storedCalls(id)).map((c) => c.decided_by)).toEqual([{ id: ana.id, name: "Ana" }]);
    expect((await loopTree(id)).map((l) => (l.started_by as { name: string }).name)).toEqual([
      "Owner",
      "Ana",
    ]);

    // owner only: the collaborator is refused, nothing is decided
    const patched = await config.PATCH(
      jsonRequest("PATCH", `/api/sessions/${id}/config`, { approvers: "owner" }),
      params({ id }),
    );
    expect(patched.status).toBe(200);
    server.llm.enqueue(writeCall("w2"), { blocks: [{ type: "text", text: "Again." }] });
    await readSse(await postText(id, "write again"));
    const refused = await decide(ana.authorization, "w2", "deny");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "forbidden" });
    expect((await storedCalls(id)).map((c) => c.approval)).toEqual(["approved", "pending"]);
  });
});

describe("token budgets", () => {
  it("PUT sets a budget, GET and /api/me/usage show it; a bad body is a 400 naming the field", async () => {
    expect((await putBudget("owner", { monthly_tokens: -1 })).status).toBe(400);
    const missing = await putBudget("owner", {});
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { fields: Array<{ field: string }> }).fields[0]?.field).toBe(
      "monthly_tokens",
    );
    const set = await putBudget("u-ana", { monthly_tokens: 5000 });
    expect(set.status).toBe(200);
    const month = new Date().toISOString().slice(0, 7);
    expect(await set.json()).toEqual({
      person_id: "u-ana",
      monthly_tokens: 5000,
      used_tokens: 0,
      month,
    });
    const read = await budget.GET(
      authedRequest("http://localhost/api/people/u-ana/budget"),
      params({ person_id: "u-ana" }),
    );
    expect(await read.json()).toMatchObject({ person_id: "u-ana", monthly_tokens: 5000 });
    const mine = await usage.GET(authedRequest("http://localhost/api/me/usage"), params({}));
    expect(await mine.json()).toEqual({
      person_id: "owner",
      monthly_tokens: null,
      used_tokens: 0,
      month,
    });
    // lifted with null
    expect(await (await putBudget("u-ana", { monthly_tokens: null })).json()).toMatchObject({
      monthly_tokens: null,
    });
  });

  it("counts the runs' tokens and refuses the request past the budget before the model server sees it", async () => {
    const id = await createSessionId();
    // room for the first request (its system prompt and tools), not for what it used
    expect((await putBudget("owner", { monthly_tokens: 50_000 })).status).toBe(200);
    server.llm.enqueue({
      blocks: [{ type: "text", text: "A long answer." }],
      usage: { input: 60_000, output: 400 },
    });
    const first = await readSse(await postText(id, "hello"));
    expect(finalState(first)).toBe("Idle");
    const after = (await (
      await usage.GET(authedRequest("http://localhost/api/me/usage"), params({}))
    ).json()) as { used_tokens: number };
    expect(after.used_tokens).toBe(60_400);

    const seen = server.llm.requests.length;
    server.llm.enqueue({ blocks: [{ type: "text", text: "never sent" }] });
    const refused = await readSse(await postText(id, "and more?"));
    // the model server received nothing
    expect(server.llm.requests.length).toBe(seen);
    const errors = refused.filter((e) => e.event === "error").map((e) => e.data.message);
    expect(errors).toEqual([
      "monthly token budget of 50000 tokens for Owner is used up (60400 used)",
    ]);
    // the run ended cleanly: the prompt is kept, the session rests recoverably
    expect(finalState(refused)).toBe("Failed");
    const listed = await messages.GET(
      authedRequest(`http://localhost/api/sessions/${id}/messages`),
      params({ id }),
    );
    const texts = ((await listed.json()) as { messages: Array<{ body: { text?: string } }> })
      .messages;
    expect(texts.map((m) => m.body.text)).toEqual(["hello", "A long answer.", "and more?"]);

    // a raised budget lets the person resume
    expect((await putBudget("owner", { monthly_tokens: 200_000 })).status).toBe(200);
    const resumed = await readSse(
      await resume.POST(jsonRequest("POST", `/api/sessions/${id}/resume`), params({ id })),
    );
    expect(finalState(resumed)).toBe("Idle");
    expect(server.llm.requests.length).toBe(seen + 1);
  });
});
