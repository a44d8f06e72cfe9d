import { z } from "zod";

// GET /api/audit and GET /api/audit/verify: the audit log of security-relevant events
// (docs/audit.md). Rows are appended by @arbor/db's AuditLog and never updated or deleted; each
// carries the hash of the row before it, so an edited, deleted or inserted row is detectable.

/**
 * Every action the audit log records, with what its row means. `target` says what the action
 * was done to; `detail` adds what the target alone does not say.
 */
export const AUDIT_ACTION_MEANINGS = {
  sign_in: "a person signed in (target `person:<id>`)",
  sign_out: "a person signed out; their session ended server-side (target `person:<id>`)",
  sign_in_failed:
    "a sign-in was refused (actor null: anonymous; target `person:<id>` when the account is known, else `email:<address>`)",
  invitation_created: "an admin invited someone (target `invitation:<id>`)",
  invitation_accepted: "an invitation was used to create an account (target `person:<id>`)",
  role_changed: "a person's role changed (target `person:<id>`; detail `from`, `to`)",
  share_created: "a session or branch was shared (target `share:<id>`)",
  share_revoked: "a share was revoked (target `share:<id>`)",
  token_created: "a personal API token was created (target `token:<id>`; detail `scope`)",
  token_revoked: "a personal API token was revoked (target `token:<id>`)",
  tool_approved:
    "a person approved a tool call (target `session:<id>`; detail `tool_call_id`, `tool`)",
  tool_denied: "a person denied a tool call (target `session:<id>`; detail `tool_call_id`, `tool`)",
  session_config_changed:
    "a session's configuration was changed (target `session:<id>`; detail `fields`: the names changed)",
  mcp_config_loaded:
    "an MCP server's definition was loaded and the server started (actor null: the system; target `mcp_server:<name>`; detail `file`, `transport`, `hash`)",
  openapi_config_loaded:
    "an OpenAPI spec was read and its tools offered (actor null: the system; target `openapi_spec:<name>`; detail `operations`, `hash`)",
  session_opened_by_admin: "an admin opened another person's session (target `session:<id>`)",
  workspace_trusted:
    "a person trusted a workspace definition (target `definition:<file>#<name>`; detail `kind`, `hash`)",
  mcp_server_added:
    "a person added an MCP server in the settings, trusting it by that act (target `mcp_server:<name>`; detail `transport`, `hash`)",
  mcp_server_enabled:
    "a person turned on an MCP server they or another admin added in the settings (target `mcp_server:<name>`)",
  mcp_server_disabled:
    "a person turned off an MCP server added in the settings: it stays listed, its tools go (target `mcp_server:<name>`)",
  mcp_server_removed:
    "a person removed an MCP server added in the settings (target `mcp_server:<name>`)",
  skill_enabled:
    "a person switched a skill back on in the settings: sessions offer it again (target `skill:<name>`)",
  skill_disabled:
    "a person switched a skill off in the settings: no session offers it (target `skill:<name>`)",
  agent_enabled:
    "a person switched a sub-agent back on in the settings: sessions offer it again (target `agent:<name>`)",
  agent_disabled:
    "a person switched a sub-agent off in the settings: no session can start it (target `agent:<name>`)",
  workspace_trust_revoked:
    "a person took the trust of a workspace definition back (target `definition:<file>#<name>`)",
  provider_key_set:
    "an admin kept a model provider's key in Settings (target `provider_key:<provider>`; detail `hint`: its last four characters, never the key)",
  provider_key_removed:
    "an admin removed a model provider's kept key (target `provider_key:<provider>`)",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTION_MEANINGS;

/** The audit log's actions, in the order of AUDIT_ACTION_MEANINGS. */
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_MEANINGS) as AuditAction[];

export const AuditActionSchema = z
  .enum(AUDIT_ACTIONS as [AuditAction, ...AuditAction[]])
  .describe("what happened (docs/audit.md lists each action's target and detail)");

export const AuditEntrySchema = z
  .object({
    sequence: z
      .number()
      .int()
      .positive()
      .describe("the row's place in the chain: 1, 2, 3, … with no gap"),
    time: z.string().describe("when, ISO 8601 UTC"),
    actor_id: z
      .string()
      .nullable()
      .describe("the person who acted; null for the system or an anonymous caller"),
    actor_name: z.string().nullable().describe("their name as it was then"),
    action: AuditActionSchema,
    target: z.string().describe("what it was done to: `session:<id>`, `person:<id>`, …"),
    address: z.string().nullable().describe("the client's address; null for the system"),
    detail: z.record(z.string(), z.unknown()).describe("what the target alone does not say"),
    prev_hash: z.string().describe("the previous row's hash (64 zeros for the first row)"),
    hash: z
      .string()
      .describe('sha256 hex of this row\'s fields and prev_hash (docs/audit.md, "The chain")'),
  })
  .describe("One row of the audit log.");
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditListResponseSchema = z
  .object({
    entries: z.array(AuditEntrySchema).describe("newest first"),
    next_cursor: z
      .string()
      .nullable()
      .describe("pass as `cursor` for the next (older) page; null when there is none"),
  })
  .describe("Answer of GET /api/audit.");
export type AuditListResponse = z.infer<typeof AuditListResponseSchema>;

export const AuditVerifyResponseSchema = z
  .object({
    ok: z.boolean().describe("true when every row's hash and link hold and no sequence is missing"),
    rows: z.number().int().nonnegative().describe("how many rows were read"),
    first_bad: z
      .object({
        sequence: z.number().int().describe("the first row that does not hold"),
        reason: z
          .enum(["hash_mismatch", "broken_link", "gap"])
          .describe(
            "`hash_mismatch`: its fields were edited; `broken_link`: its prev_hash is not the previous row's hash; `gap`: rows before it are missing",
          ),
      })
      .optional()
      .describe("present when ok is false"),
    head: z
      .object({ sequence: z.number().int(), hash: z.string() })
      .nullable()
      .optional()
      .describe(
        "the last row's sequence and hash: kept outside the database, it also reveals rows deleted from the end",
      ),
  })
  .describe("Answer of GET /api/audit/verify.");
export type AuditVerifyResponse = z.infer<typeof AuditVerifyResponseSchema>;

/** The most rows one GET /api/audit answers. */
export const MAX_AUDIT_PAGE = 500;

const isoTime = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), "expected an ISO 8601 time")
  .transform((value) => new Date(value).toISOString());

export const AuditQuerySchema = z
  .object({
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, "expected the next_cursor of a previous answer")
      .optional()
      .describe("the previous answer's next_cursor: rows older than it"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_AUDIT_PAGE)
      .default(50)
      .describe(`rows per page (1 to ${MAX_AUDIT_PAGE}, default 50)`),
    actor: z.string().min(1).max(200).optional().describe("only this person's rows (their id)"),
    action: AuditActionSchema.optional().describe("only this action's rows"),
    since: isoTime.optional().describe("only rows at or after this time (ISO 8601)"),
    until: isoTime.optional().describe("only rows before this time (ISO 8601)"),
  })
  .refine((query) => !(query.since && query.until && query.since >= query.until), {
    message: "must be after since",
    path: ["until"],
  })
  .describe("GET /api/audit's query parameters.");
export type AuditQuery = z.infer<typeof AuditQuerySchema>;
