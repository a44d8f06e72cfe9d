import type { Action } from "./authorize";

// Every route handler's action, by the name its handle() gives it: handle() asks authorize()
// with it before the handler runs (access.ts), so no route decides access by itself, and a route
// missing here answers 500 (test/authorization.test.ts walks every route × every role).
// `{id}` in a name is the session the action is on.

export const ROUTE_ACTIONS = {
  "GET /api/sessions": "sessions.list",
  "POST /api/sessions": "sessions.create",
  "POST /api/sessions/import": "sessions.create",
  "GET /api/search": "sessions.list",
  "GET /api/sessions/{id}": "session.read",
  "PATCH /api/sessions/{id}": "session.configure",
  "DELETE /api/sessions/{id}": "session.delete",
  "PATCH /api/sessions/{id}/config": "session.configure",
  "GET /api/sessions/{id}/instructions": "session.read",
  "GET /api/sessions/{id}/events": "session.read",
  "GET /api/sessions/{id}/messages": "session.read",
  "POST /api/sessions/{id}/messages": "session.send",
  "POST /api/sessions/{id}/messages/parallel": "session.send",
  "POST /api/sessions/{id}/parallel/{group_id}/choose": "session.send",
  "POST /api/sessions/{id}/messages/{message_id}/edit": "session.send",
  "POST /api/sessions/{id}/messages/{message_id}/regenerate": "session.send",
  "POST /api/sessions/{id}/approvals": "session.approve",
  "POST /api/sessions/{id}/plan/approve": "session.approve",
  "POST /api/sessions/{id}/interrupt": "session.send",
  "POST /api/sessions/{id}/resume": "session.send",
  "POST /api/sessions/{id}/optimize": "session.send",
  "GET /api/sessions/{id}/folds": "session.read",
  "GET /api/sessions/{id}/branches": "session.read",
  "POST /api/sessions/{id}/branches": "session.send",
  "PATCH /api/sessions/{id}/branches/{branch_id}": "session.send",
  "DELETE /api/sessions/{id}/branches/{branch_id}": "session.send",
  "POST /api/sessions/{id}/branches/{branch_id}/checkout": "session.send",
  "POST /api/sessions/{id}/merges": "session.send",
  "POST /api/sessions/{id}/merges/{merge_id}/resolve": "session.send",
  // the workspace's files are not the session's: a viewer of a shared session does not read them
  "GET /api/sessions/{id}/files": "session.send",
  "GET /api/sessions/{id}/files/content": "session.send",
  // sharing (docs/sharing.md): the session's owner shares; whoever reads it sees with whom
  "GET /api/sessions/{id}/shares": "session.read",
  "POST /api/sessions/{id}/shares": "session.share",
  "DELETE /api/sessions/{id}/shares/{user_id}": "session.share",
  "POST /api/sessions/{id}/links": "session.share",
  "DELETE /api/sessions/{id}/links/{link_id}": "session.share",
  "GET /api/sessions/{id}/access": "session.read",
  // a link's routes name no session: the token is the capability, checked by the handler
  "GET /api/links/{token}": "links.open",
  "POST /api/links/{token}/fork": "sessions.create",
  "GET /api/settings": "install.read",
  // the price table costs are computed with (docs/cost.md)
  "GET /api/settings/prices": "install.read",
  // provider keys kept in Settings: the owner's and admins' (docs/decisions/0054)
  "GET /api/settings/provider-keys": "install.configure",
  "PUT /api/settings/provider-keys/{provider}": "install.configure",
  "DELETE /api/settings/provider-keys/{provider}": "install.configure",
  "GET /api/skills": "install.read",
  "GET /api/agents": "install.read",
  // switching a skill or sub-agent off for every session is the install's (decision 0057)
  "PATCH /api/skills/{name}": "install.configure",
  "PATCH /api/agents/{name}": "install.configure",
  "GET /api/mcp/servers": "install.read",
  "POST /api/mcp/servers/{name}/prompts/{prompt}": "install.read",
  "POST /api/mcp/servers/{name}/reconnect": "install.configure",
  "POST /api/mcp/servers": "install.configure",
  "PATCH /api/mcp/servers/{name}": "install.configure",
  "DELETE /api/mcp/servers/{name}": "install.configure",
  "GET /api/openapi/specs": "install.read",
  "GET /api/workspace/trust": "install.read",
  "POST /api/workspace/trust": "install.configure",
  "DELETE /api/workspace/trust": "install.configure",
  "POST /api/mcp": "mcp.serve",
  "GET /api/mcp": "mcp.serve",
  "DELETE /api/mcp": "mcp.serve",
  "GET /api/me": "account.read",
  "GET /api/me/tokens": "account.read",
  "POST /api/me/tokens": "account.manage",
  "DELETE /api/me/tokens/{token_id}": "account.manage",
  "GET /api/people": "people.manage",
  "PATCH /api/people/{person_id}": "people.manage",
  // token budgets: an admin's; a person reads their own at /api/me/usage
  "GET /api/people/{person_id}/budget": "people.manage",
  "PUT /api/people/{person_id}/budget": "people.manage",
  "GET /api/me/usage": "account.read",
  "GET /api/invitations": "people.manage",
  "POST /api/invitations": "people.manage",
  "DELETE /api/invitations/{invitation_id}": "people.manage",
  "GET /api/admin/sessions": "admin.view",
  "GET /api/admin/sessions/{id}/loops": "admin.view",
  "GET /api/audit": "audit.read",
  "GET /api/audit/verify": "audit.read",
  "POST /api/me/password": "account.manage",
} as const satisfies Record<string, Action>;

/** Sign-in routes: reached without a person (handle's `signIn`), so they have no action. */
export const SIGN_IN_ROUTES = ["GET /api/auth/{path}", "POST /api/auth/{path}"] as const;

export type RouteName = keyof typeof ROUTE_ACTIONS;

export function routeAction(name: string): Action | undefined {
  return (ROUTE_ACTIONS as Record<string, Action>)[name];
}
