import { z } from "zod";
import { ContextMessageSchema } from "../model/message-types.js";
import { strictRequest } from "./strict.js";

// Sharing a session (docs/sharing.md): with people of the install, as viewer or collaborator,
// and one branch by a read-only link. The wire shapes of /api/sessions/{id}/shares,
// /api/sessions/{id}/links, /api/sessions/{id}/access and /api/links/{token}.

/** What a session can be shared as: read (viewer) or send, approve and branch (collaborator). */
export const ShareRoleSchema = z
  .enum(["viewer", "collaborator"])
  .describe("viewer: reads the session; collaborator: also sends, approves and branches");
export type ShareRole = z.infer<typeof ShareRoleSchema>;

const PersonRefSchema = z.object({ id: z.string(), name: z.string() });

export const ShareRequestSchema = strictRequest(
  z
    .object({
      email: z.string().trim().min(1).max(320).optional().describe("the person's email address"),
      user_id: z.string().min(1).max(200).optional().describe("or the person's id"),
      role: ShareRoleSchema,
    })
    .superRefine((body, ctx) => {
      if (body.email === undefined && body.user_id === undefined) {
        ctx.addIssue({ code: "custom", path: ["email"], message: "give email or user_id" });
      }
    })
    .describe(
      "Body of POST /api/sessions/{id}/shares: the person (by email or id) and the role. Sharing again with the same person changes their role.",
    ),
);
export type ShareRequest = z.infer<typeof ShareRequestSchema>;

export const SharedPersonSchema = z.object({
  user_id: z.string(),
  name: z.string(),
  email: z.string(),
  role: ShareRoleSchema,
  granted_by: PersonRefSchema.describe("who shared it"),
  granted_at: z.string().describe("ISO-8601"),
});
export type SharedPerson = z.infer<typeof SharedPersonSchema>;

export const LinkShareSchema = z.object({
  id: z.string(),
  branch_id: z.string(),
  branch_name: z.string().describe("the branch's name now (empty when it was deleted)"),
  created_by: PersonRefSchema,
  created_at: z.string().describe("ISO-8601"),
  expires_at: z.string().nullable().describe("ISO-8601; null: never"),
  revoked_at: z.string().nullable().describe("ISO-8601; null: not revoked"),
});
export type LinkShare = z.infer<typeof LinkShareSchema>;

export const SharesResponseSchema = z
  .object({
    people: z.array(SharedPersonSchema).describe("the people it is shared with (not its owner)"),
    links: z.array(LinkShareSchema).describe("its read-only links, revoked ones included"),
  })
  .describe("Answer to GET /api/sessions/{id}/shares.");
export type SharesResponse = z.infer<typeof SharesResponseSchema>;

export const CreateLinkRequestSchema = strictRequest(
  z
    .object({
      branch_id: z.string().min(1).max(200).describe("the branch the link shows"),
      expires_at: z.iso
        .datetime({ offset: true })
        .optional()
        .describe("ISO-8601, in the future; omitted: the link never expires"),
    })
    .describe("Body of POST /api/sessions/{id}/links."),
);
export type CreateLinkRequest = z.infer<typeof CreateLinkRequestSchema>;

export const CreatedLinkSchema = z
  .object({
    id: z.string(),
    url: z.string().describe("the page that shows the branch: /share/{token}"),
    token: z.string().describe("shown once: only its SHA-256 is stored"),
    branch_id: z.string(),
    expires_at: z.string().nullable(),
    created_by: PersonRefSchema,
  })
  .describe("Answer to POST /api/sessions/{id}/links.");
export type CreatedLink = z.infer<typeof CreatedLinkSchema>;

export const SessionAccessResponseSchema = z
  .object({
    relation: z
      .enum(["owner", "collaborator", "viewer", "none"])
      .describe("the caller's relation to the session (none: an admin reading another's)"),
    can_send: z.boolean().describe("may send, edit, branch and stop (session.send)"),
    can_approve: z.boolean().describe("may decide tool calls (session.approve)"),
    can_share: z.boolean().describe("may share it and make links (session.share)"),
  })
  .describe("Answer to GET /api/sessions/{id}/access: what the caller may do in the session.");
export type SessionAccessResponse = z.infer<typeof SessionAccessResponseSchema>;

export const SharedBranchResponseSchema = z
  .object({
    session_title: z.string(),
    branch_id: z.string(),
    branch_name: z.string(),
    shared_by: PersonRefSchema,
    expires_at: z.string().nullable(),
    messages: z
      .array(ContextMessageSchema)
      .describe("the branch's messages now (live, not a snapshot), as GET /messages gives them"),
  })
  .describe("Answer to GET /api/links/{token}: one branch, read-only.");
export type SharedBranchResponse = z.infer<typeof SharedBranchResponseSchema>;

export const ForkLinkResponseSchema = z
  .object({
    session_id: z.string(),
    branch_id: z.string(),
    message_count: z.number().int().nonnegative(),
  })
  .describe("Answer to POST /api/links/{token}/fork: the caller's new session.");
export type ForkLinkResponse = z.infer<typeof ForkLinkResponseSchema>;
