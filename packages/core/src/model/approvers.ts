import { z } from "zod";

// Who may approve or deny a session's tool calls (issue #25, "authorization that knows it
// guards an agent"): the session setting `approvers`, and the rule authorize() applies with it.

/**
 * `owner`: only the session's owner decides; `collaborators` (default): its owner and the people
 * it is shared with as collaborators. Viewers never decide, whatever the setting.
 */
export const ApproversSchema = z.enum(["owner", "collaborators"]);
export type Approvers = z.infer<typeof ApproversSchema>;

/**
 * How the person asking stands to the session: its `owner`, a `collaborator` or `viewer` it is
 * shared with, an install `admin` (who sees every session), or `none` of these.
 */
export type SessionRelation = "owner" | "collaborator" | "viewer" | "admin" | "none";

/**
 * Whether a person in `relation` to a session may approve or deny its tool calls under its
 * `approvers` setting. Pure: authorize() calls it with the relation it resolved. An admin who is
 * not the session's owner decides only where collaborators do (seeing a session is not owning it).
 */
export function mayApprove(relation: SessionRelation, approvers: Approvers): boolean {
  switch (relation) {
    case "owner":
      return true;
    case "collaborator":
    case "admin":
      return approvers === "collaborators";
    case "viewer":
    case "none":
      return false;
    default:
      return relation satisfies never;
  }
}
