import type {
  CreatedLink,
  SessionAccessResponse,
  SessionSummary,
  SharedBranchResponse,
  SharesResponse,
} from "@arbor/core";
import { describe, expect, it } from "vitest";
import * as linkFork from "@/app/api/links/[token]/fork/route";
import * as link from "@/app/api/links/[token]/route";
import * as search from "@/app/api/search/route";
import * as access from "@/app/api/sessions/[id]/access/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as sessionLink from "@/app/api/sessions/[id]/links/[link_id]/route";
import * as links from "@/app/api/sessions/[id]/links/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as session from "@/app/api/sessions/[id]/route";
import * as unshare from "@/app/api/sessions/[id]/shares/[user_id]/route";
import * as shares from "@/app/api/sessions/[id]/shares/route";
import * as sessions from "@/app/api/sessions/route";
import {
  finalState,
  jsonRequest,
  params,
  personWithToken,
  readSse,
  useTestServer,
} from "./support";

// Sharing (docs/sharing.md) over the route handlers, as two people with personal tokens: A's
// session is invisible to B until A shares it; a viewer reads and is refused sending and
// approving; a collaborator sends; a read-only link opens, forks, and stops when revoked or
// expired.

const server = useTestServer();

type Person = Awaited<ReturnType<typeof personWithToken>>;

function as(person: Person, method: string, url: string, body?: unknown): Request {
  const request = jsonRequest(method, url, body);
  request.headers.set("authorization", person.authorization);
  return request;
}

async function twoPeople(): Promise<{ a: Person; b: Person }> {
  const a = await personWithToken(server.runtime, "member", { name: "Ana" });
  const b = await personWithToken(server.runtime, "member", { name: "Ben" });
  return { a, b };
}

async function sessionOf(person: Person, body: unknown = {}): Promise<string> {
  const response = await sessions.POST(as(person, "POST", "/api/sessions", body), params({}));
  expect(response.status).toBe(201);
  return ((await response.json()) as { session_id: string }).session_id;
}

async function send(person: Person, id: string, text: string): Promise<Response> {
  return messages.POST(
    as(person, "POST", `/api/sessions/${id}/messages`, {
      session_id: id,
      payload: { type: "text", text },
    }),
    params({ id }),
  );
}

async function shareWith(owner: Person, id: string, body: unknown): Promise<Response> {
  return shares.POST(as(owner, "POST", `/api/sessions/${id}/shares`, body), params({ id }));
}

async function listed(person: Person): Promise<string[]> {
  const response = await sessions.GET(as(person, "GET", "/api/sessions"), params({}));
  return ((await response.json()) as SessionSummary[]).map((s) => s.id);
}

async function found(person: Person, q: string): Promise<string[]> {
  const response = await search.GET(as(person, "GET", `/api/search?q=${q}`), params({}));
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Array<{ session_id: string }> }).results.map(
    (hit) => hit.session_id,
  );
}

async function makeLink(owner: Person, id: string, body: unknown): Promise<CreatedLink> {
  const response = await links.POST(
    as(owner, "POST", `/api/sessions/${id}/links`, body),
    params({ id }),
  );
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedLink;
}

function open(person: Person, token: string): Promise<Response> {
  return link.GET(as(person, "GET", `/api/links/${token}`), params({ token }));
}

describe("sharing a session with people", () => {
  it("keeps A's session from B until A shares it, then lists who shared it", async () => {
    const { a, b } = await twoPeople();
    server.llm.enqueue({ blocks: [{ type: "text", text: "zanzibar answered" }] });
    const id = await sessionOf(a, { title: "Ana's plans" });
    await readSse(await send(a, id, "about zanzibar"));

    expect(await listed(b)).not.toContain(id);
    expect(await found(b, "zanzibar")).toEqual([]);
    const hidden = await session.GET(as(b, "GET", `/api/sessions/${id}`), params({ id }));
    expect(hidden.status).toBe(404);
    // B cannot share it with themselves either: for them it does not exist
    const selfShare = await shareWith(b, id, { user_id: b.id, role: "collaborator" });
    expect(selfShare.status).toBe(404);

    const shared = await shareWith(a, id, {
      email: (await emailOf(b)).toUpperCase(),
      role: "viewer",
    });
    expect(shared.status).toBe(201);
    expect(await shared.json()).toMatchObject({
      user_id: b.id,
      name: "Ben",
      role: "viewer",
      granted_by: { id: a.id, name: "Ana" },
    });

    expect(await listed(b)).toContain(id);
    expect(await found(b, "zanzibar")).toContain(id);
    const read = await session.GET(as(b, "GET", `/api/sessions/${id}`), params({ id }));
    expect(read.status).toBe(200);
    const list = (await (
      await shares.GET(as(b, "GET", `/api/sessions/${id}/shares`), params({ id }))
    ).json()) as SharesResponse;
    expect(list.people).toEqual([
      expect.objectContaining({
        user_id: b.id,
        role: "viewer",
        granted_by: { id: a.id, name: "Ana" },
      }),
    ]);
    expect(Date.parse(list.people[0]?.granted_at ?? "")).not.toBeNaN();

    // an empty id matches nobody (to the store an absent filter would match every share)
    const empty = await unshare.DELETE(
      as(a, "DELETE", `/api/sessions/${id}/shares/`),
      params({ id, user_id: "" }),
    );
    expect(empty.status).toBe(404);
    expect(await listed(b)).toContain(id);
    // unsharing hides it again
    const removed = await unshare.DELETE(
      as(a, "DELETE", `/api/sessions/${id}/shares/${b.id}`),
      params({ id, user_id: b.id }),
    );
    expect(removed.status).toBe(204);
    expect(await listed(b)).not.toContain(id);
    const again = await unshare.DELETE(
      as(a, "DELETE", `/api/sessions/${id}/shares/${b.id}`),
      params({ id, user_id: b.id }),
    );
    expect(again.status).toBe(404);
  });

  it("answers 400 naming the field for an unknown person, a bad role or the owner", async () => {
    const { a, b } = await twoPeople();
    const id = await sessionOf(a);
    const cases: Array<[unknown, string]> = [
      [{ email: "nobody@people.test", role: "viewer" }, "email"],
      [{ user_id: "no-such-person", role: "viewer" }, "user_id"],
      [{ user_id: b.id, role: "owner" }, "role"],
      [{ role: "viewer" }, "email"],
      [{ user_id: a.id, role: "collaborator" }, "user_id"],
    ];
    for (const [body, field] of cases) {
      const response = await shareWith(a, id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const answer = (await response.json()) as { fields: Array<{ field: string }> };
      expect(answer.fields.map((f) => f.field)).toContain(field);
    }
  });

  it("lets a viewer read but not send or approve, and a collaborator send and approve", async () => {
    const { a, b } = await twoPeople();
    const carl = await personWithToken(server.runtime, "member", { name: "Carl" });
    server.llm.enqueue({
      blocks: [
        { type: "toolCall", id: "call_read", name: "read_file", arguments: { path: "notes.txt" } },
      ],
    });
    const id = await sessionOf(a, {
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    const first = await readSse(await send(a, id, "read notes.txt"));
    expect(finalState(first)).toBe("AwaitingToolApproval");
    expect((await shareWith(a, id, { user_id: b.id, role: "viewer" })).status).toBe(201);
    expect((await shareWith(a, id, { user_id: carl.id, role: "collaborator" })).status).toBe(201);

    const decide = (person: Person) =>
      approvals.POST(
        as(person, "POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: "call_read", decision: "approve" }],
        }),
        params({ id }),
      );
    const viewerSend = await send(b, id, "let me in");
    expect(viewerSend.status).toBe(403);
    const viewerApprove = await decide(b);
    expect(viewerApprove.status).toBe(403);
    // and nothing changed: the call still waits
    const detail = await session.GET(as(b, "GET", `/api/sessions/${id}`), params({ id }));
    expect(((await detail.json()) as { state: { type: string } }).state.type).toBe(
      "AwaitingToolApproval",
    );
    // the viewer may not share it onwards
    expect((await shareWith(b, id, { user_id: carl.id, role: "viewer" })).status).toBe(403);

    const accessOf = async (person: Person) =>
      (await (
        await access.GET(as(person, "GET", `/api/sessions/${id}/access`), params({ id }))
      ).json()) as SessionAccessResponse;
    expect(await accessOf(b)).toEqual({
      relation: "viewer",
      can_send: false,
      can_approve: false,
      can_share: false,
    });
    expect(await accessOf(carl)).toEqual({
      relation: "collaborator",
      can_send: true,
      can_approve: true,
      can_share: false,
    });
    expect(await accessOf(a)).toMatchObject({ relation: "owner", can_share: true });

    server.llm.enqueue({ blocks: [{ type: "text", text: "alpha, beta, gamma" }] });
    const approved = await decide(carl);
    expect(approved.status).toBe(200);
    expect(finalState(await readSse(approved))).toBe("Idle");
    server.llm.enqueue({ blocks: [{ type: "text", text: "you are welcome" }] });
    const sent = await send(carl, id, "thanks");
    expect(sent.status).toBe(200);
    expect(finalState(await readSse(sent))).toBe("Idle");
  });
});

describe("read-only links", () => {
  it("opens one branch live for any signed-in person, forks it, and stops when revoked", async () => {
    const { a, b } = await twoPeople();
    server.llm.enqueue({ blocks: [{ type: "text", text: "first answer" }] });
    const id = await sessionOf(a, { title: "Linked" });
    await readSse(await send(a, id, "first question"));
    const detail = (await (
      await session.GET(as(a, "GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as { active_branch_id: string };

    const made = await makeLink(a, id, { branch_id: detail.active_branch_id });
    expect(made.url).toBe(`http://localhost/share/${made.token}`);
    expect(made.created_by).toEqual({ id: a.id, name: "Ana" });
    expect(made.expires_at).toBeNull();
    // only its hash is stored
    const stored = await server.runtime.people.store.links(id);
    expect(JSON.stringify(stored)).not.toContain(made.token);

    const opened = await open(b, made.token);
    expect(opened.status).toBe(200);
    const branch = (await opened.json()) as SharedBranchResponse;
    expect(branch).toMatchObject({
      session_title: "Linked",
      branch_id: detail.active_branch_id,
      shared_by: { id: a.id, name: "Ana" },
    });
    expect(JSON.stringify(branch.messages)).toContain("first answer");
    // the link shows the branch, not the session: B still cannot open the session itself
    const hidden = await session.GET(as(b, "GET", `/api/sessions/${id}`), params({ id }));
    expect(hidden.status).toBe(404);
    // live: a later message is there too
    server.llm.enqueue({ blocks: [{ type: "text", text: "second answer" }] });
    await readSse(await send(a, id, "second question"));
    const later = (await (await open(b, made.token)).json()) as SharedBranchResponse;
    expect(JSON.stringify(later.messages)).toContain("second answer");

    const forked = await linkFork.POST(
      as(b, "POST", `/api/links/${made.token}/fork`),
      params({ token: made.token }),
    );
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as { session_id: string; message_count: number };
    expect(fork.message_count).toBe(later.messages.length);
    expect(await listed(b)).toContain(fork.session_id);
    expect(await listed(a)).not.toContain(fork.session_id);
    const forkAccess = (await (
      await access.GET(
        as(b, "GET", `/api/sessions/${fork.session_id}/access`),
        params({ id: fork.session_id }),
      )
    ).json()) as SessionAccessResponse;
    expect(forkAccess.relation).toBe("owner");

    const list = (await (
      await shares.GET(as(a, "GET", `/api/sessions/${id}/shares`), params({ id }))
    ).json()) as SharesResponse;
    expect(list.links).toEqual([
      expect.objectContaining({
        id: made.id,
        created_by: { id: a.id, name: "Ana" },
        revoked_at: null,
      }),
    ]);

    // only the owner revokes
    const byB = await sessionLink.DELETE(
      as(b, "DELETE", `/api/sessions/${id}/links/${made.id}`),
      params({ id, link_id: made.id }),
    );
    expect(byB.status).toBe(404);
    const revoked = await sessionLink.DELETE(
      as(a, "DELETE", `/api/sessions/${id}/links/${made.id}`),
      params({ id, link_id: made.id }),
    );
    expect(revoked.status).toBe(204);
    expect((await open(b, made.token)).status).toBe(404);
    expect((await open(a, made.token)).status).toBe(404);
    const forkAfter = await linkFork.POST(
      as(b, "POST", `/api/links/${made.token}/fork`),
      params({ token: made.token }),
    );
    expect(forkAfter.status).toBe(404);
  });

  it("stops at its expiry, refuses a viewer's fork, and checks its body", async () => {
    const { a } = await twoPeople();
    const viewer = await personWithToken(server.runtime, "viewer", { name: "Vera" });
    const id = await sessionOf(a);
    const detail = (await (
      await session.GET(as(a, "GET", `/api/sessions/${id}`), params({ id }))
    ).json()) as { active_branch_id: string };

    for (const [body, field] of [
      [{ branch_id: "no-such-branch" }, "branch_id"],
      [{ branch_id: detail.active_branch_id, expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
      [{ branch_id: detail.active_branch_id, expires_at: "tomorrow" }, "expires_at"],
    ] as const) {
      const response = await links.POST(
        as(a, "POST", `/api/sessions/${id}/links`, body),
        params({ id }),
      );
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { fields: Array<{ field: string }> };
      expect(answer.fields.map((f) => f.field)).toContain(field);
    }

    const soon = new Date(Date.now() + 1_500).toISOString();
    const made = await makeLink(a, id, { branch_id: detail.active_branch_id, expires_at: soon });
    expect(made.expires_at).toBe(soon);
    expect((await open(viewer, made.token)).status).toBe(200);
    const viewerFork = await linkFork.POST(
      as(viewer, "POST", `/api/links/${made.token}/fork`),
      params({ token: made.token }),
    );
    expect(viewerFork.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await open(viewer, made.token)).status).toBe(404);
    // a made-up token is just as gone
    expect((await open(viewer, "arbor_link_nothing")).status).toBe(404);
  });
});

async function emailOf(person: Person): Promise<string> {
  const found = await server.runtime.people.store.person(person.id);
  return found?.email ?? "";
}
