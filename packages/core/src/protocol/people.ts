import { z } from "zod";
import { strictRequest } from "./strict.js";

// The people of an install on the wire (docs/accounts.md): who is signed in (GET /api/me), their
// personal API tokens, the people an admin manages and the invitations that bring new ones.

export const RoleSchema = z
  .enum(["owner", "admin", "member", "viewer"])
  .describe("a role across the install: owner (one), admin, member, viewer");
export type RoleName = z.infer<typeof RoleSchema>;

export const TokenScopeSchema = z
  .enum(["read", "write", "admin"])
  .describe(
    "read: only reads; write: reads and acts (send, approve, create, share); admin: everything the person's role allows",
  );

export const PersonSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: RoleSchema,
  disabled: z.boolean(),
  created_at: z.string(),
});
export type PersonResponse = z.infer<typeof PersonSchema>;

export const MeResponseSchema = PersonSchema.extend({
  via: z
    .enum(["session", "token", "install_token"])
    .describe(
      "how this request proved who it is: the browser's session, a personal token, ARBOR_TOKEN",
    ),
  scope: TokenScopeSchema.nullable().describe("a personal token's scope; null for full access"),
  sign_in: z.object({
    password: z.boolean().describe("the person has a password"),
    passkeys: z.number().int().describe("passkeys registered"),
    sso: z.array(z.string()).describe("SSO providers linked"),
  }),
  sso: z
    .object({ name: z.string() })
    .nullable()
    .describe("the install's SSO provider (its button label), when configured"),
}).describe("GET /api/me: the person asking.");
export type MeResponse = z.infer<typeof MeResponseSchema>;

export const ApiTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: TokenScopeSchema,
  prefix: z.string().describe("the token's first characters, to tell tokens apart"),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  install: z.boolean().describe("the install token (ARBOR_TOKEN, or the one printed at start)"),
});
export type ApiTokenResponse = z.infer<typeof ApiTokenSchema>;

export const TokenListResponseSchema = z
  .object({ tokens: z.array(ApiTokenSchema) })
  .describe("GET /api/me/tokens: the caller's personal tokens, newest first (never the secret)");
export type TokenListResponse = z.infer<typeof TokenListResponseSchema>;

export const CreateTokenRequestSchema = strictRequest(
  z
    .strictObject({
      name: z.string().trim().min(1).max(100).describe("what the token is for"),
      scope: TokenScopeSchema,
      expires_at: z.iso
        .datetime({ offset: true })
        .nullable()
        .optional()
        .describe("when it stops working (ISO 8601, in the future); null or absent: never"),
    })
    .describe("Body of POST /api/me/tokens."),
);
export type CreateTokenRequest = z.infer<typeof CreateTokenRequestSchema>;

export const CreatedTokenResponseSchema = ApiTokenSchema.extend({
  token: z.string().describe("the secret, shown this once: send it as Authorization: Bearer"),
}).describe("POST /api/me/tokens: the new token, its secret shown once.");
export type CreatedTokenResponse = z.infer<typeof CreatedTokenResponseSchema>;

export const PeopleResponseSchema = z
  .object({ people: z.array(PersonSchema) })
  .describe("GET /api/people: everyone of the install, oldest first.");
export type PeopleResponse = z.infer<typeof PeopleResponseSchema>;

export const UpdatePersonRequestSchema = strictRequest(
  z
    .strictObject({
      role: RoleSchema.exclude(["owner"]).optional().describe("a new role (never owner)"),
      disabled: z
        .boolean()
        .optional()
        .describe("true: they cannot sign in; their sessions and tokens are refused at once"),
    })
    .refine((body) => body.role !== undefined || body.disabled !== undefined, {
      message: "give role or disabled",
    })
    .describe("Body of PATCH /api/people/{person_id}."),
);
export type UpdatePersonRequest = z.infer<typeof UpdatePersonRequestSchema>;

export const InvitationSchema = z.object({
  id: z.string(),
  email: z.string().nullable().describe("only this address can use it; null: whoever has the link"),
  role: RoleSchema,
  created_by: z.object({ id: z.string(), name: z.string() }),
  created_at: z.string(),
  expires_at: z.string(),
  used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  status: z.enum(["open", "used", "revoked", "expired"]),
});
export type InvitationResponse = z.infer<typeof InvitationSchema>;

export const InvitationListResponseSchema = z
  .object({ invitations: z.array(InvitationSchema) })
  .describe("GET /api/invitations: newest first.");
export type InvitationListResponse = z.infer<typeof InvitationListResponseSchema>;

export const CreateInvitationRequestSchema = strictRequest(
  z
    .strictObject({
      email: z.email().max(254).nullable().optional().describe("bind it to this address"),
      role: RoleSchema.exclude(["owner"]).default("member"),
      expires_in_hours: z
        .number()
        .int()
        .min(1)
        .max(24 * 30)
        .default(72)
        .describe("how long the link works (1 hour to 30 days; default 72 hours)"),
    })
    .describe("Body of POST /api/invitations."),
);
export type CreateInvitationRequest = z.infer<typeof CreateInvitationRequestSchema>;

export const CreatedInvitationResponseSchema = InvitationSchema.extend({
  token: z.string().describe("the one-time secret, shown this once"),
  url: z.string().describe("the link to give the person: <public URL>/invite/<token>"),
}).describe("POST /api/invitations: the invitation and its link, shown once.");
export type CreatedInvitationResponse = z.infer<typeof CreatedInvitationResponseSchema>;
