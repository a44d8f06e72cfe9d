import type { Actor, Role, TokenScope } from "./actor";

// The one place that decides who may do what (docs/accounts.md, "The decision table"). Pure: a
// person, an action and (for a session's actions) the person's relation to that session in, a
// decision out. Routes ask it through access.ts and never decide access themselves.

/** What a person can be to a session: its owner, someone it was shared with, or nobody. */
export type Relation = "owner" | "collaborator" | "viewer" | "none";
/** A session setting: who may approve its tool calls. */
export type Approvers = "owner" | "collaborators";

/** Actions on the install as a whole. */
export const INSTALL_ACTIONS = [
  "sessions.list",
  "sessions.create",
  "install.read",
  "install.configure",
  "people.manage",
  "audit.read",
  "admin.view",
  "mcp.serve",
  "account.read",
  "account.manage",
] as const;
export type InstallAction = (typeof INSTALL_ACTIONS)[number];

/** Actions on one session. */
export const SESSION_ACTIONS = [
  "session.read",
  "session.send",
  "session.approve",
  "session.configure",
  "session.share",
  "session.delete",
] as const;
export type SessionAction = (typeof SESSION_ACTIONS)[number];

export type Action = InstallAction | SessionAction;

export type Resource =
  | { kind: "install" }
  | { kind: "session"; relation: Relation; approvers: Approvers };

export type Decision = { allowed: true } | { allowed: false; reason: string };

/** Which roles may take each install action. */
export const INSTALL_TABLE: Record<InstallAction, readonly Role[]> = {
  "sessions.list": ["owner", "admin", "member", "viewer"],
  "sessions.create": ["owner", "admin", "member"],
  "install.read": ["owner", "admin", "member"],
  "install.configure": ["owner", "admin"],
  "people.manage": ["owner", "admin"],
  "audit.read": ["owner", "admin"],
  "admin.view": ["owner", "admin"],
  "mcp.serve": ["owner", "admin", "member"],
  "account.read": ["owner", "admin", "member", "viewer"],
  "account.manage": ["owner", "admin", "member", "viewer"],
};

/**
 * Which relations to a session may take each session action. Admins (and the owner of the
 * install) read every session; acting in one needs a relation like anyone else's.
 */
export const SESSION_TABLE: Record<SessionAction, readonly Relation[]> = {
  "session.read": ["owner", "collaborator", "viewer"],
  "session.send": ["owner", "collaborator"],
  // narrowed by the session's `approvers` setting (mayApprove)
  "session.approve": ["owner", "collaborator"],
  "session.configure": ["owner"],
  "session.share": ["owner"],
  "session.delete": ["owner"],
};

/** The least token scope each action needs. */
export const SCOPE_NEEDED: Record<Action, TokenScope> = {
  "sessions.list": "read",
  "sessions.create": "write",
  "install.read": "read",
  "install.configure": "admin",
  "people.manage": "admin",
  "audit.read": "admin",
  "admin.view": "admin",
  "mcp.serve": "write",
  "account.read": "read",
  "account.manage": "admin",
  "session.read": "read",
  "session.send": "write",
  "session.approve": "write",
  "session.configure": "write",
  "session.share": "write",
  "session.delete": "write",
};

const SCOPE_RANK: Record<TokenScope, number> = { read: 0, write: 1, admin: 2 };

/** Whether someone of this relation may decide a session's tool calls. Viewers never. */
export function mayApprove(relation: Relation, approvers: Approvers): boolean {
  if (relation === "owner") return true;
  return relation === "collaborator" && approvers === "collaborators";
}

export function isAdmin(actor: Pick<Actor, "role">): boolean {
  return actor.role === "owner" || actor.role === "admin";
}

export function authorize(actor: Actor, action: Action, resource: Resource): Decision {
  const scope = actor.scope;
  if (scope !== undefined && SCOPE_RANK[scope] < SCOPE_RANK[SCOPE_NEEDED[action]]) {
    return deny(`this token's scope is ${scope}; ${action} needs ${SCOPE_NEEDED[action]}`);
  }
  if (resource.kind === "install") {
    if (!(INSTALL_ACTIONS as readonly string[]).includes(action)) {
      return deny(`${action} is an action on a session`);
    }
    return INSTALL_TABLE[action as InstallAction].includes(actor.role)
      ? ALLOW
      : deny(`a ${actor.role} may not ${describe(action)}`);
  }
  if (!(SESSION_ACTIONS as readonly string[]).includes(action)) {
    return deny(`${action} is an action on the install`);
  }
  const sessionAction = action as SessionAction;
  const { relation, approvers } = resource;
  // viewers of the install read what is shared with them and nothing else: never act
  if (actor.role === "viewer" && sessionAction !== "session.read") {
    return deny("a viewer may only read");
  }
  if (sessionAction === "session.read" && isAdmin(actor)) return ALLOW;
  if (sessionAction === "session.delete" && isAdmin(actor)) return ALLOW;
  if (!SESSION_TABLE[sessionAction].includes(relation)) {
    return deny(
      relation === "none"
        ? "this session is not shared with you"
        : `the session's ${relation} may not ${describe(action)}`,
    );
  }
  if (sessionAction === "session.approve" && !mayApprove(relation, approvers)) {
    return deny("only the session's owner may approve its tool calls (approvers: owner)");
  }
  return ALLOW;
}

const ALLOW: Decision = { allowed: true };

function deny(reason: string): Decision {
  return { allowed: false, reason };
}

function describe(action: Action): string {
  return action
    .replace(".", " ")
    .replace(/^session /, "")
    .replace(/^sessions /, "");
}
