import type { SessionSummary } from "@arbor/core";
import type { Runtime } from "../runtime";
import type { Actor } from "./actor";
import {
  type Action,
  type Approvers,
  authorize,
  type Decision,
  isAdmin,
  type Relation,
  SESSION_ACTIONS,
  type SessionAction,
} from "./authorize";

// authorize() as the routes meet it: the person's relation to a session looked up in the
// database, the decision, and what a refusal answers. handle() calls `check` for every route.

export interface AccessOutcome {
  decision: Decision;
  /** the session's id, for a session action */
  sessionId?: string;
  relation?: Relation;
  /** 404 instead of 403: the session is not theirs to know of */
  hidden?: boolean;
  /** an admin read a session that is neither theirs nor shared with them (audited) */
  adminRead?: boolean;
}

export function isSessionAction(action: Action): action is SessionAction {
  return (SESSION_ACTIONS as readonly string[]).includes(action);
}

/**
 * A person's relation to a session. A session with no owner recorded (made before accounts)
 * belongs to the install's owner.
 */
export async function relationTo(
  runtime: Runtime,
  actor: Actor,
  sessionId: string,
): Promise<Relation> {
  const { store, owner } = runtime.people;
  const direct = await store.relation(sessionId, actor.id);
  if (direct !== undefined) return direct;
  if (actor.id === owner.id && (await store.sessionOwner(sessionId)) === undefined) return "owner";
  return "none";
}

export async function approversOf(runtime: Runtime, sessionId: string): Promise<Approvers> {
  const session = await runtime.manager.get(sessionId).catch(() => undefined);
  return session?.config.approvers ?? "collaborators";
}

export async function check(
  runtime: Runtime,
  actor: Actor,
  action: Action,
  sessionId: string | undefined,
): Promise<AccessOutcome> {
  if (!isSessionAction(action)) return { decision: authorize(actor, action, { kind: "install" }) };
  if (sessionId === undefined) {
    return { decision: { allowed: false, reason: `${action} needs a session` } };
  }
  const relation = await relationTo(runtime, actor, sessionId);
  const approvers =
    action === "session.approve" ? await approversOf(runtime, sessionId) : "collaborators";
  const decision = authorize(actor, action, { kind: "session", relation, approvers });
  return {
    decision,
    sessionId,
    relation,
    hidden: relation === "none" && !isAdmin(actor),
    adminRead: decision.allowed && relation === "none" && action === "session.read",
  };
}

/** The sessions a person may see: every one for an admin, else theirs and those shared with them. */
export async function visibleSessions(
  runtime: Runtime,
  actor: Actor,
  sessions: readonly SessionSummary[],
): Promise<SessionSummary[]> {
  if (isAdmin(actor)) return [...sessions];
  const reachable = await runtime.people.store.reachable(actor.id);
  return sessions.filter((session) => reachable.has(session.id));
}

/** Records the person who made a session as its owner. */
export async function ownSession(runtime: Runtime, actor: Actor, sessionId: string): Promise<void> {
  await runtime.people.store.grant({
    sessionId,
    userId: actor.id,
    relation: "owner",
    grantedBy: actor.id,
  });
}
