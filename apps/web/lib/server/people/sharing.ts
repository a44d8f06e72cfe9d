import { randomBytes } from "node:crypto";
import type {
  CreatedLink,
  CreateLinkRequest,
  ForkLinkResponse,
  LinkShare,
  SessionAccessResponse,
  SharedBranchResponse,
  SharedPerson,
  ShareRequest,
  SharesResponse,
} from "@arbor/core";
import type { LinkShareRow, Person } from "@arbor/db";
import { badRequest, HttpError, loadSession, notFound } from "../http";
import type { Runtime } from "../runtime";
import { approversOf, ownSession, relationTo } from "./access";
import type { Actor } from "./actor";
import { authorize } from "./authorize";
import { sha256 } from "./people";

// Sharing a session (docs/sharing.md): with people, as viewer or collaborator, and one branch by
// a read-only link. The routes under /api/sessions/{id}/shares, /links and /api/links/{token}
// call these after handle() has authorized them (route-actions.ts); what is left here is what
// the decision table cannot know: that the person exists, that the branch does, that a link
// still opens.

/** Link tokens start with this, so a person (and a secret scanner) knows what they hold. */
export const LINK_TOKEN_PREFIX = "arbor_link_";

function ref(people: Map<string, Person>, id: string): { id: string; name: string } {
  return { id, name: people.get(id)?.name ?? "(deleted person)" };
}

export async function sharesOf(runtime: Runtime, sessionId: string): Promise<SharesResponse> {
  const { store } = runtime.people;
  const session = await loadSession(runtime, sessionId);
  const [access, links] = await Promise.all([store.access(sessionId), store.links(sessionId)]);
  const people = await store.peopleByIds([
    ...access.flatMap((row) => [row.userId, row.grantedBy]),
    ...links.map((row) => row.createdBy),
  ]);
  const shared: SharedPerson[] = [];
  for (const row of access) {
    if (row.relation === "owner") continue;
    const person = people.get(row.userId);
    if (person === undefined) continue;
    shared.push({
      user_id: row.userId,
      name: person.name,
      email: person.email,
      role: row.relation,
      granted_by: ref(people, row.grantedBy),
      granted_at: row.grantedAt,
    });
  }
  const branchNames = new Map(session.branches.map((branch) => [branch.id, branch.name]));
  return {
    people: shared,
    links: links.map((row) => linkView(row, people, branchNames.get(row.branchId) ?? "")),
  };
}

function linkView(row: LinkShareRow, people: Map<string, Person>, branchName: string): LinkShare {
  return {
    id: row.id,
    branch_id: row.branchId,
    branch_name: branchName,
    created_by: ref(people, row.createdBy),
    created_at: row.createdAt,
    expires_at: row.expiresAt,
    revoked_at: row.revokedAt,
  };
}

/** Shares the session with a person (again: changes their role). 400 naming the field. */
export async function share(
  runtime: Runtime,
  actor: Actor,
  sessionId: string,
  body: ShareRequest,
): Promise<SharedPerson> {
  const { store } = runtime.people;
  await loadSession(runtime, sessionId);
  const field = body.user_id !== undefined ? "user_id" : "email";
  const person =
    body.user_id !== undefined
      ? await store.person(body.user_id)
      : await store.personByEmail(body.email ?? "");
  if (person === undefined || person.disabled) {
    throw new HttpError(badRequest([{ field, message: "no person of this install has it" }]));
  }
  if ((await relationTo(runtime, { ...actor, id: person.id }, sessionId)) === "owner") {
    throw new HttpError(badRequest([{ field, message: "this person owns the session" }]));
  }
  const row = await store.grant({
    sessionId,
    userId: person.id,
    relation: body.role,
    grantedBy: actor.id,
  });
  return {
    user_id: person.id,
    name: person.name,
    email: person.email,
    role: body.role,
    granted_by: { id: actor.id, name: actor.name },
    granted_at: row.grantedAt,
  };
}

/** Stops sharing with a person; 404 when it was not shared with them. */
export async function unshare(runtime: Runtime, sessionId: string, userId: string): Promise<void> {
  // never an empty filter: to the store an undefined id would match every share of the session
  if (!present(userId) || !(await runtime.people.store.revokeAccess(sessionId, userId))) {
    throw new HttpError(notFound(`session ${sessionId} is not shared with ${userId}`));
  }
}

/** A new read-only link to one branch: the token is in this answer only. */
export async function createLink(
  runtime: Runtime,
  actor: Actor,
  sessionId: string,
  body: CreateLinkRequest,
  origin: string,
): Promise<CreatedLink> {
  const session = await loadSession(runtime, sessionId);
  if (!session.branches.some((branch) => branch.id === body.branch_id)) {
    throw new HttpError(
      badRequest([{ field: "branch_id", message: `no branch ${body.branch_id} in this session` }]),
    );
  }
  const expiresAt = body.expires_at === undefined ? null : new Date(body.expires_at).toISOString();
  if (expiresAt !== null && expiresAt <= new Date().toISOString()) {
    throw new HttpError(badRequest([{ field: "expires_at", message: "must be in the future" }]));
  }
  const token = `${LINK_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await runtime.people.store.createLink({
    sessionId,
    branchId: body.branch_id,
    hash: sha256(token),
    createdBy: actor.id,
    expiresAt,
  });
  return {
    id: row.id,
    url: `${origin}/share/${token}`,
    token,
    branch_id: row.branchId,
    expires_at: row.expiresAt,
    created_by: { id: actor.id, name: actor.name },
  };
}

export async function revokeLink(runtime: Runtime, sessionId: string, id: string): Promise<void> {
  // never an empty filter: to the store an undefined id would match every link of the session
  if (!present(id) || !(await runtime.people.store.revokeLink(sessionId, id))) {
    throw new HttpError(notFound(`no open link ${id} in session ${sessionId}`));
  }
}

function present(id: unknown): id is string {
  return typeof id === "string" && id !== "";
}

const LINK_GONE = "this link does not exist, was revoked or has expired";

/** The link's row and its session's branch, or 404 (unknown, revoked, expired, branch gone). */
async function openLink(runtime: Runtime, token: string) {
  const row =
    present(token) && token.startsWith(LINK_TOKEN_PREFIX)
      ? await runtime.people.store.openLink(sha256(token))
      : undefined;
  if (row === undefined) throw new HttpError(notFound(LINK_GONE));
  const session = await runtime.manager.get(row.sessionId).catch(() => undefined);
  const branch = session?.branches.find((b) => b.id === row.branchId);
  if (session === undefined || session.deleting || branch === undefined) {
    throw new HttpError(notFound(LINK_GONE));
  }
  return { row, session, branch };
}

/** The branch behind a link, live: what it holds now. */
export async function sharedBranch(runtime: Runtime, token: string): Promise<SharedBranchResponse> {
  const { row, session, branch } = await openLink(runtime, token);
  const people = await runtime.people.store.peopleByIds([row.createdBy]);
  return {
    session_title: session.title,
    branch_id: branch.id,
    branch_name: branch.name,
    shared_by: ref(people, row.createdBy),
    expires_at: row.expiresAt,
    messages: session.messages({ branchId: branch.id, view: "full" }).messages,
  };
}

/** A new session of the caller's own holding the linked branch's messages (the import path). */
export async function forkLink(
  runtime: Runtime,
  actor: Actor,
  token: string,
): Promise<ForkLinkResponse> {
  const { session, branch } = await openLink(runtime, token);
  const messages = session.messages({ branchId: branch.id, view: "full" }).messages;
  const fork = await runtime.importSession({
    format: "arbor-session",
    version: 1,
    session: { title: `${session.title} (fork)`.slice(0, 200) },
    messages,
  });
  await ownSession(runtime, actor, fork.id);
  return {
    session_id: fork.id,
    branch_id: fork.activeBranchId,
    message_count: fork.messages().messages.length,
  };
}

/** What the caller may do in a session: the client hides what they may not (the composer). */
export async function accessOf(
  runtime: Runtime,
  actor: Actor,
  sessionId: string,
): Promise<SessionAccessResponse> {
  const relation = await relationTo(runtime, actor, sessionId);
  const approvers = await approversOf(runtime, sessionId);
  const may = (action: "session.send" | "session.approve" | "session.share") =>
    authorize(actor, action, { kind: "session", relation, approvers }).allowed;
  return {
    relation,
    can_send: may("session.send"),
    can_approve: may("session.approve"),
    can_share: may("session.share"),
  };
}
