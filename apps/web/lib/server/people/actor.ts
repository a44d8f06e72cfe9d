// Who is asking: the person behind a request, as every route handler receives it from handle()
// (lib/server/http.ts). Resolved from the request's credential: the browser's session cookie, a
// personal API token, or ARBOR_TOKEN (a bearer credential of the owner). docs/accounts.md.

/** Roles across the install, strongest first. */
export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** A personal API token's scope: what it may do at most, whatever its person's role. */
export const TOKEN_SCOPES = ["read", "write", "admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export interface Actor {
  /** the person's id (users.id) */
  id: string;
  /** their display name, as cards and audit rows show it */
  name: string;
  email: string | null;
  role: Role;
  /** how the request proved who it is */
  via: "session" | "token" | "install_token";
  /** the browser session's token when via is "session" (a password change keeps only this one) */
  sessionToken?: string;
  /** a personal token's scope; absent for a browser session and ARBOR_TOKEN (full) */
  scope?: TokenScope;
  /** the client's address (x-forwarded-for, else the socket's), for the audit log and limits */
  address: string;
}

/** The owner as a request with the install's own credential (ARBOR_TOKEN, the token cookie). */
export function installActor(
  owner: { id: string; name: string; email: string | null },
  address: string,
): Actor {
  return { ...owner, role: "owner", via: "install_token", address };
}
