import { mayApprove, type Session, type SessionRelation } from "@arbor/core";
import { forbidden, HttpError } from "../http";
import type { Actor } from "./actor";

// Who may approve or deny a session's tool calls (issue #25): the session's `approvers` setting
// (core model/approvers.ts mayApprove) applied to how the actor stands to the session.

/**
 * How `actor` stands to `session`. TODO(lead): the relation must come from authorize() (the
 * session's owner, its shares, the actor's role). Until session ownership is wired, every caller
 * but a viewer counts as the session's owner (a viewer never decides, whatever the session says).
 */
export function sessionRelation(actor: Actor, _session: Session): SessionRelation {
  return actor.role === "viewer" ? "viewer" : "owner";
}

/** Throws HttpError(403 forbidden) unless `actor` may decide `session`'s tool calls. */
export function requireMayApprove(actor: Actor, session: Session): void {
  const approvers = session.config.approvers;
  if (mayApprove(sessionRelation(actor, session), approvers)) return;
  throw new HttpError(
    forbidden(
      approvers === "owner"
        ? "only the session's owner may approve or deny its tool calls"
        : "only the session's owner and collaborators may approve or deny its tool calls",
    ),
  );
}
