import { z } from "zod";
import { ApproversSchema } from "../model/approvers.js";
import {
  attachmentBody,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENT_NAME_CHARS,
  mismatchedImages,
} from "../model/attachments.js";
import { MergeStrategyNameSchema, PipelineConfigSchema } from "../model/branch.js";
import { duplicateIds } from "../model/duplicate-ids.js";
import { MAX_PATH_CHARS } from "../model/limits.js";
import { ConflictResolutionSchema, type MergeDecision } from "../model/merge-types.js";
import {
  ContextMessageSchema,
  LineRangeSchema,
  MessageDeliverySchema,
  MessageTypeSchema,
} from "../model/message-types.js";
import {
  AgentModeSchema,
  AgentRoleSchema,
  AllowRuleSchema,
  ApprovalPolicySchema,
  FoldingSettingsSchema,
  OptimizationConfigSchema,
  SessionConfigSchema,
  SessionModelSchema,
  ToolExecutionModeSchema,
} from "../model/session-config.js";
import { SessionDetailSchema } from "./http-responses.js";
import { strictRequest } from "./strict.js";

// Everything clients send (context-manager "Structured Message Payload", the web issue's HTTP
// API), as zod schemas. snake_case like the rest of the wire. Route handlers validate with
// parseRequest (validation.ts) and answer 400 naming the field; docs.ts renders these schemas
// into docs/protocol.md, so every `.describe()` here is user-facing documentation.
// Every body is strict (strictRequest, decision 0041): an unknown field, at any depth, is a 400
// naming it ("config.folding.enabeld: Unrecognized field"), never dropped in silence; an unknown
// payload `type` is rejected too.

// ---- Limits ---------------------------------------------------------------------------------

/**
 * The longest text a client may send, in characters: a message's text, an edit's text, a
 * system prompt, a display text. Longer is refused (400 naming the field), never truncated.
 */
export const MAX_TEXT_CHARS = 1_000_000;

/** A text field of at most MAX_TEXT_CHARS characters. */
function limitedText() {
  return z.string().max(MAX_TEXT_CHARS, `at most ${MAX_TEXT_CHARS} characters`);
}

/** A file's fields as uploaded: an `attachment` payload's, and each of a text's `attachments`. */
const uploadedFileFields = {
  name: z.string().trim().min(1).max(255, "at most 255 characters").describe("the file's name"),
  mime_type: z
    .string()
    .max(255)
    .describe("the file's type, e.g. image/png or text/markdown; empty for unknown text"),
  data: z.string().describe(`the file's bytes, base64; at most ${MAX_ATTACHMENT_BYTES} bytes`),
};

function checkUploadedFile(
  file: { name: string; mime_type: string; data: string },
  ctx: z.RefinementCtx,
): void {
  const checked = attachmentBody(file);
  if (!checked.ok)
    ctx.addIssue({ code: "custom", path: [checked.field], message: checked.message });
}

const ATTACHMENT_RULES = `Images (png, jpeg, gif, webp) reach the model as image blocks, and their bytes must be what \`mime_type\` says (checked by their magic number: an SVG sent as image/png is refused); any other file must be UTF-8 text without NUL characters and reaches it as text. Archives (zip, tar, gzip, 7z, rar, …) and PDFs are refused by their type or their first bytes. At most ${MAX_ATTACHMENT_BYTES} bytes; another type, bytes of another type or a binary file → 400 naming the field, nothing stored. The name is stored cleaned: its last path segment, without control or direction-changing characters and leading dots, at most ${MAX_ATTACHMENT_NAME_CHARS} characters (the extension kept); a name with nothing readable left → 400 naming \`name\`.`;

/** The most files one text message may carry. */
export const MAX_TEXT_ATTACHMENTS = 10;

export const AttachedFilePayloadSchema = z
  .object(uploadedFileFields)
  .superRefine(checkUploadedFile)
  .describe(`A file sent with the text. ${ATTACHMENT_RULES}`);

// ---- SendMessageRequest ---------------------------------------------------------------------

export const TextPayloadSchema = z
  .object({
    type: z.literal("text"),
    text: limitedText().describe(`what the user typed; at most ${MAX_TEXT_CHARS} characters`),
    attachments: z
      .array(z.lazy(() => AttachedFilePayloadSchema))
      .max(MAX_TEXT_ATTACHMENTS, `at most ${MAX_TEXT_ATTACHMENTS} files`)
      .optional()
      .describe(
        `files the user attached to this text (upload, paste, drop), at most ${MAX_TEXT_ATTACHMENTS}; together they must fit the request body limit. They are stored in the same Text message (\`attachments\`) and the model sees them before the text, in one turn: one model request answers the question with its files`,
      ),
  })
  .describe("A plain text message, with the files attached to it. Becomes a Text message.");

export const FileReferencePayloadSchema = z
  .object({
    type: z.literal("file_reference"),
    path: z
      .string()
      .min(1)
      .max(MAX_PATH_CHARS, `at most ${MAX_PATH_CHARS} characters`)
      .describe(
        `file path relative to the session's workspace; at most ${MAX_PATH_CHARS} characters`,
      ),
    range: LineRangeSchema.optional().describe(
      "1-based inclusive line range {start_line, end_line}; the whole file when absent",
    ),
    display_text: limitedText()
      .optional()
      .describe("how the UI shows the reference, e.g. @a.ts:2-4"),
  })
  .describe(
    "A reference to a workspace file, optionally a line range. Becomes a FileReference message whose content the pipeline resolves inside the workspace.",
  );

export const McpResourcePayloadSchema = z
  .object({
    type: z.literal("mcp_resource"),
    server_name: z.string().min(1).describe("a server of GET /api/mcp/servers"),
    resource_uri: z.string().min(1).describe("the URI of one of its resources"),
  })
  .describe(
    "An MCP server's resource, read now and stored as an MCPResource message (server_name, resource_uri, content, mime_type, retrieved_at) that the model sees. An unknown or unconnected server, or a URI the server cannot read → 400 naming the field, nothing stored.",
  );

export type McpResourcePayload = z.infer<typeof McpResourcePayloadSchema>;

export const McpPromptPayloadSchema = z
  .object({
    type: z.literal("mcp_prompt"),
    server_name: z.string().min(1).describe("a server of GET /api/mcp/servers"),
    prompt_name: z.string().min(1).describe("one of its prompts"),
    arguments: z
      .record(z.string(), z.string())
      .optional()
      .describe("the prompt's arguments by name (GET /api/mcp/servers lists them); {} when absent"),
  })
  .describe(
    "An MCP server's prompt (the composer's `/` commands), expanded now (prompts/get): each of its messages is added to the conversation as its own message, in order and with its role — a user's text as a text message, an image as an Attachment, an embedded resource as an MCPResource message; an assistant's message as an assistant text message. When the last message is the user's, the model answers it (like a text message); when it is the assistant's, the messages are stored and nothing runs. An unknown or unconnected server, an unknown prompt or a missing required argument → 400 naming the field (`payload.server_name`, `payload.prompt_name`, `payload.arguments.<name>`), nothing stored.",
  );

export type McpPromptPayload = z.infer<typeof McpPromptPayloadSchema>;

export const WorkflowPayloadSchema = z
  .object({
    type: z.literal("workflow"),
    workflow: z
      .string()
      .min(1)
      .describe("the tool to call: one offered to the model in the session's current mode"),
    parameters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("the tool's arguments, checked against its schema; {} when absent"),
    display_text: limitedText().optional().describe("how the UI shows the request"),
  })
  .describe(
    "The user's own tool call, through the same gate as the model's: a tool not offered in the current mode (bash in plan mode) or invalid arguments → an `error` event (invalid_request), nothing stored. The approval policy decides as for a model's call: a held call ends the stream in AwaitingToolApproval (decide it with POST /approvals; denied → a denied result, then Idle); an approved call runs, its result becomes a ToolResult message and the model continues from it.",
  );

export const AttachmentPayloadSchema = z
  .object({ type: z.literal("attachment"), ...uploadedFileFields })
  .superRefine(checkUploadedFile)
  .describe(
    `A file the user attaches (upload, paste, drop) on its own, stored in the session as an Attachment message. ${ATTACHMENT_RULES}`,
  );

export type AttachmentPayload = z.infer<typeof AttachmentPayloadSchema>;

export const MessagePayloadSchema = z.discriminatedUnion("type", [
  TextPayloadSchema,
  FileReferencePayloadSchema,
  McpResourcePayloadSchema,
  McpPromptPayloadSchema,
  AttachmentPayloadSchema,
  WorkflowPayloadSchema,
]);
export type MessagePayload = z.infer<typeof MessagePayloadSchema>;
export type MessagePayloadType = MessagePayload["type"];

export const SendMessageRequestSchema = strictRequest(
  z
    .object({
      session_id: z.string().min(1).describe("the session the message goes to"),
      payload: MessagePayloadSchema.describe("one of the payload variants, chosen by `type`"),
      client_metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          "opaque client data, stored with the user's message and returned on it (`client_metadata`) by GET /messages; never sent to the model",
        ),
      delivery: MessageDeliverySchema.optional().describe(
        "what happens to a `text` message sent while the agent works (a run is going on, or it waits for a tool approval): `steer` (the default) delivers it to the model at the run's next turn boundary, after the current tool round's results and before the next model request; `follow_up` delivers it once the run has ended, as the prompt of a new run that starts by itself. Either way it is stored at once (status `queued`, a `queued` message_update) and the stream ends. Ignored when the agent is not working: the message is answered at once",
      ),
    })
    .describe("Body of POST /api/sessions/{id}/messages. The response is an SSE stream."),
);
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;

// ---- Sessions and config --------------------------------------------------------------------

export const CreateSessionRequestSchema = strictRequest(
  z
    .object({
      title: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("defaults to a title from the first message"),
      // the server chooses the workspace (WORKSPACE_DIR): a client's is refused, not replaced
      config: SessionConfigSchema.omit({ workspace: true })
        .extend({
          system_prompt: limitedText()
            .optional()
            .describe(`the base system prompt; at most ${MAX_TEXT_CHARS} characters`),
        })
        .optional()
        .describe(
          "any subset of the session config but `workspace` (the server's WORKSPACE_DIR; sending one → 400 naming `config.workspace`); omitted fields take their defaults",
        ),
    })
    .describe("Body of POST /api/sessions."),
);
export type CreateSessionRequest = z.infer<typeof CreateSessionRequestSchema>;

/**
 * The fields an exported file carries that an import does not take (the exported session's id,
 * state, branches, …): known, so a file written by Export › JSON is accepted whole, and read over.
 * A field outside them is still a 400 naming it.
 */
function exportedOnly(shape: Record<string, unknown>): Record<string, z.ZodOptional<z.ZodUnknown>> {
  return Object.fromEntries(
    Object.keys(shape).map((key) => [
      key,
      z.unknown().optional().describe("as exported; not taken"),
    ]),
  );
}

/** The most messages one imported session file may hold. */
export const MAX_IMPORTED_MESSAGES = 10_000;

export const ImportSessionRequestSchema = strictRequest(
  z
    .object({
      format: z.literal("arbor-session").describe('always "arbor-session"'),
      version: z.literal(1).describe("the file format's version: 1"),
      session: z
        .object({
          ...exportedOnly(SessionDetailSchema.shape),
          title: z
            .string()
            .trim()
            .min(1)
            .max(200, "at most 200 characters")
            .optional()
            .describe('the new session\'s title; defaults to "Imported session"'),
          config: z
            .object({
              ...exportedOnly(SessionConfigSchema.shape),
              system_prompt: limitedText()
                .optional()
                .describe("the base system prompt, kept when present"),
            })
            .optional()
            .describe(
              "the exported config: of it only the system prompt is taken; approval policies, the model, the workspace and the other settings are this server's defaults",
            ),
        })
        .optional()
        .describe(
          "the exported SessionDetail: its title and system prompt are taken, its other fields (those of a SessionDetail) are read over; a field a SessionDetail does not have → 400 naming it",
        ),
      messages: z
        .array(ContextMessageSchema)
        .max(MAX_IMPORTED_MESSAGES, `at most ${MAX_IMPORTED_MESSAGES} messages`)
        .superRefine((messages, ctx) => {
          for (const problem of [...duplicateIds(messages), ...mismatchedImages(messages)]) {
            ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
          }
        })
        .describe(
          "the exported messages, oldest first; they become the new session's main branch with new ids. A message id or a tool call id held twice → 400 naming the second (`messages.3.id`, `messages.5.body.calls.0.id`); an image (in an attachment or a tool result) whose bytes are not png, jpeg, gif or webp as its type says → 400 naming its `data`. Attachment names are cleaned as uploaded ones are",
        ),
    })
    .describe(
      "Body of POST /api/sessions/import: a file written by the chat's Export › JSON (`format`, `version`, `session`, `messages`).",
    ),
);
export type ImportSessionRequest = z.infer<typeof ImportSessionRequestSchema>;

export const PatchSessionRequestSchema = strictRequest(
  z
    .object({
      title: z
        .string()
        .trim()
        .min(1, "a title needs at least one character")
        .max(200, "at most 200 characters")
        .describe("the session's new title (trimmed; 1 to 200 characters)"),
    })
    .describe("Renames a session."),
);
export type PatchSessionRequest = z.infer<typeof PatchSessionRequestSchema>;

/** The most search results one request answers. */
export const MAX_SEARCH_RESULTS = 200;

export const SearchQuerySchema = z
  .object({
    q: z
      .string()
      .trim()
      .min(1, "say what to search for")
      .max(500, "at most 500 characters")
      .describe("words to find; a message matches when it holds every word (case-insensitive)"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_SEARCH_RESULTS)
      .default(50)
      .describe(`the most results to answer (1 to ${MAX_SEARCH_RESULTS}, default 50)`),
  })
  .describe("GET /api/search's query parameters.");
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

/** PATCH /config's settings; each one sent replaces the session's (the others stay). */
const PatchConfigFieldsSchema = z.object({
  agent_mode: AgentModeSchema.optional().describe("plan or act; takes effect at once"),
  agent_role: AgentRoleSchema.optional().describe(
    "planner (the model gets the read-only tools only, in Act mode too, and the Planner's instructions) or actor (every tool); takes effect at the next request",
  ),
  approval_policy: ApprovalPolicySchema.optional().describe("replaces the approval policy"),
  approvers: ApproversSchema.optional().describe(
    "who may approve or deny tool calls: owner (the session's owner only) or collaborators (its owner and collaborators; default); viewers never",
  ),
  optimization: OptimizationConfigSchema.optional().describe(
    "replaces the whole optimization config; omitted fields take their defaults",
  ),
  model: SessionModelSchema.optional().describe("the model for the session's next requests"),
  system_prompt: limitedText()
    .optional()
    .describe(`replaces the base system prompt; at most ${MAX_TEXT_CHARS} characters`),
  folding: FoldingSettingsSchema.optional().describe(
    "context folding (docs/folding.md): `enabled` offers `branch` to the session's model from its next request; replaces the whole folding config, omitted fields take their defaults",
  ),
  auto_loop_iteration_timeout_ms: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "one auto-loop iteration (a model call plus its tools) is cut off after this many milliseconds; takes effect at the next iteration",
    ),
  tool_execution: ToolExecutionModeSchema.optional().describe(
    "how the tool calls of one answer run: sequential; parallel_read_only (default: read-only calls together, every other call alone); parallel (every call at once). Results reach the model in call order; each call keeps its own approval",
  ),
  approve_read_only: z
    .boolean()
    .optional()
    .describe(
      "true (default): read-only tools (reads, searches, codebase tools, MCP tools marked readOnlyHint) run without asking, in Act and Plan mode, recorded as approved by the rule approve_read_only; false: they ask like every other tool",
    ),
  allow_rules: z
    .array(AllowRuleSchema)
    .max(200)
    .optional()
    .describe(
      "replaces the scoped bash rules: `Bash(npm test)` allows that exact command, `Bash(npm test:*)` commands starting with those words (never a compound command: ; && || | $( ) ` > < or a line break ask again)",
    ),
});

export const PatchConfigRequestSchema = strictRequest(
  PatchConfigFieldsSchema.refine(
    (body) => Object.values(body).some((value) => value !== undefined),
    {
      message: `send at least one of ${Object.keys(PatchConfigFieldsSchema.shape).join(", ")}`,
    },
  ).describe("Body of PATCH /api/sessions/{id}/config. At least one field."),
);
export type PatchConfigRequest = z.infer<typeof PatchConfigRequestSchema>;

// ---- Approvals --------------------------------------------------------------------------------

export const ApprovalDecisionSchema = z.object({
  tool_call_id: z.string().min(1).describe("a call waiting for approval"),
  decision: z.enum(["approve", "deny"]),
  remember: z
    .boolean()
    .optional()
    .describe(
      "approve: always allow this tool in this session (adds it to the white list); for bash, this exact command only (adds the rule Bash(command))",
    ),
  rule: AllowRuleSchema.optional().describe(
    "approve: add this scoped rule to the session's allow_rules, `Bash(command)` or `Bash(prefix:*)`; it must allow the call approved",
  ),
  reason: z
    .string()
    .trim()
    .min(1, "a reason needs words; omit it to give none")
    .max(2000, "at most 2000 characters")
    .optional()
    .describe("deny: why, in the person's words; the model receives it with the denial"),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

export const ApprovalsRequestSchema = strictRequest(
  z
    .object({
      decisions: z
        .array(ApprovalDecisionSchema)
        .min(1)
        .describe("one decision per pending call; calls not named stay pending"),
    })
    .superRefine((body, ctx) => {
      const seen = new Set<string>();
      body.decisions.forEach((d, i) => {
        if (d.decision === "approve" && d.reason !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["decisions", i, "reason"],
            message: "a reason goes with a denial",
          });
        }
        if (d.decision === "deny" && (d.rule !== undefined || d.remember === true)) {
          ctx.addIssue({
            code: "custom",
            path: ["decisions", i, d.rule !== undefined ? "rule" : "remember"],
            message: "only an approval is remembered",
          });
        }
        if (seen.has(d.tool_call_id)) {
          ctx.addIssue({
            code: "custom",
            path: ["decisions", i, "tool_call_id"],
            message: `duplicate decision for ${d.tool_call_id}`,
          });
        }
        seen.add(d.tool_call_id);
      });
    })
    .describe("Body of POST /api/sessions/{id}/approvals. The response is an SSE stream."),
);
export type ApprovalsRequest = z.infer<typeof ApprovalsRequestSchema>;

// ---- Plans and edits --------------------------------------------------------------------------

export const ApprovePlanRequestSchema = strictRequest(
  z
    .object({
      message_id: z.string().min(1).describe("the plan message being approved"),
    })
    .describe(
      "Body of POST /api/sessions/{id}/plan/approve: switch to Act, record the approval and run the plan. The response is an SSE stream.",
    ),
);
export type ApprovePlanRequest = z.infer<typeof ApprovePlanRequestSchema>;

export const EditMessageRequestSchema = strictRequest(
  z
    .object({
      text: limitedText()
        .min(1)
        .describe(
          `the new text (at most ${MAX_TEXT_CHARS} characters); the message is replaced on a new branch and sent again`,
        ),
    })
    .describe(
      "Body of POST /api/sessions/{id}/messages/{message_id}/edit. The response is an SSE stream.",
    ),
);
export type EditMessageRequest = z.infer<typeof EditMessageRequestSchema>;

// ---- Workspace files --------------------------------------------------------------------------

/** The most files one listing returns, whatever `limit` asks. */
export const MAX_FILE_LIST_LIMIT = 5_000;

export const FileListQuerySchema = z
  .object({
    query: z
      .string()
      .max(500)
      .optional()
      .describe("case-insensitive substring of the path; empty or absent: every file"),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_FILE_LIST_LIMIT)
      .default(200)
      .describe("files returned at most"),
  })
  .describe("Query parameters of GET /api/sessions/{id}/files.");
export type FileListQuery = z.infer<typeof FileListQuerySchema>;

export const FileContentQuerySchema = z
  .object({
    path: z
      .string()
      .min(1)
      .max(4096)
      .describe("the file, relative to the session's workspace (as codebase tool results name it)"),
  })
  .describe("Query parameters of GET /api/sessions/{id}/files/content.");
export type FileContentQuery = z.infer<typeof FileContentQuerySchema>;

// ---- Messages -----------------------------------------------------------------------------------

export const MessagesQuerySchema = z
  .object({
    branch: z.string().min(1).optional().describe("a branch id; default the active branch"),
    view: z
      .enum(["full", "optimized"])
      .default("full")
      .describe("`full` (default): every message; `optimized`: the optimized view"),
    type: z
      .array(MessageTypeSchema)
      .min(1)
      .optional()
      .describe(
        `only messages of these types (${MessageTypeSchema.options.map((t) => `\`${t}\``).join(", ")}), still in branch order: \`?type=tool_request\`, repeated (\`&type=tool_result\`) or comma-separated (\`?type=tool_request,tool_result\`); absent: every type. An unknown type, or any parameter but \`branch\`, \`view\` and \`type\`, is a 400 naming it`,
      ),
  })
  // strict: a misspelt parameter (`?types=`) would otherwise list every message silently
  .strict()
  .describe("Query parameters of GET /api/sessions/{id}/messages.");
export type MessagesQuery = z.infer<typeof MessagesQuerySchema>;

// ---- Branches and merge -----------------------------------------------------------------------

export const CreateBranchRequestSchema = strictRequest(
  z
    .object({
      from_message_id: z
        .string()
        .min(1)
        .describe("the new branch holds the active branch's messages up to and including this one"),
      name: z.string().min(1).max(100).optional().describe("defaults to a generated name"),
    })
    .describe("Body of POST /api/sessions/{id}/branches."),
);
export type CreateBranchRequest = z.infer<typeof CreateBranchRequestSchema>;

export const UpdateBranchRequestSchema = strictRequest(
  z
    .object({
      name: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .optional()
        .describe("the new name; unique among the session's branches"),
      system_prompt: limitedText()
        .nullable()
        .optional()
        .describe(
          "this branch's own system prompt, replacing the session's base prompt for this branch only; null or blank: the session's prompt again",
        ),
      pipeline: PipelineConfigSchema.nullable()
        .optional()
        .describe(
          "this branch's processors in order, e.g. {processors: ['file_reference', 'tool_enhancement', 'system_prompt', 'optimization']}; unknown names → 400 naming pipeline.processors; null: the default pipeline again",
        ),
    })
    .refine(
      (body) =>
        body.name !== undefined || body.system_prompt !== undefined || body.pipeline !== undefined,
      { message: "send at least one of name, system_prompt, pipeline" },
    )
    .describe(
      "Body of PATCH /api/sessions/{id}/branches/{branch_id}. At least one field; the other branches are left as they are.",
    ),
);
export type UpdateBranchRequest = z.infer<typeof UpdateBranchRequestSchema>;

export const MergeRequestSchema = strictRequest(
  z
    .object({
      source_branch_id: z.string().min(1),
      target_branch_id: z.string().min(1),
      strategy: MergeStrategyNameSchema.describe(
        "append: the source's messages the target lacks, in order; cherry_pick: only message_ids; rebase: replay the source's newer messages onto the target",
      ),
      message_ids: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe(
          "cherry_pick: the messages to bring over (required); with another strategy → 400 naming it",
        ),
    })
    .superRefine((body, ctx) => {
      if (body.strategy === "cherry_pick" && body.message_ids === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["message_ids"],
          message: "Required when strategy is cherry_pick",
        });
      }
      if (body.strategy !== "cherry_pick" && body.message_ids !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["message_ids"],
          message: `only with strategy cherry_pick (${body.strategy} brings every message it needs)`,
        });
      }
      if (body.source_branch_id === body.target_branch_id) {
        ctx.addIssue({
          code: "custom",
          path: ["target_branch_id"],
          message: "must differ from source_branch_id",
        });
      }
    })
    .describe("Body of POST /api/sessions/{id}/merges."),
);
export type MergeRequest = z.infer<typeof MergeRequestSchema>;

export const ResolveWithResolutionsSchema = z
  .object({
    resolutions: z
      .array(ConflictResolutionSchema)
      .min(1)
      .describe("one resolution per conflict; the merge completes once every conflict has one"),
  })
  .strict()
  .describe("Resolve some or all of a rebase's conflicts.");

export const ProceedMergeSchema = z
  .object({
    proceed: z.literal(true),
    include_dependencies: z
      .boolean()
      .optional()
      .describe("cherry_pick: also bring the missing tool requests/results the warnings named"),
  })
  .strict()
  .describe("Go ahead with a cherry-pick despite its warnings.");

export const CancelMergeSchema = z
  .object({ cancel: z.literal(true) })
  .strict()
  .describe("Abandon the merge; nothing changes.");

export const ResolveMergeRequestSchema = strictRequest(
  z
    .union([ResolveWithResolutionsSchema, ProceedMergeSchema, CancelMergeSchema], {
      error: "send exactly one of {resolutions}, {proceed: true} or {cancel: true}",
    })
    .describe("Body of POST /api/sessions/{id}/merges/{merge_id}/resolve."),
);
export type ResolveMergeRequest = z.infer<typeof ResolveMergeRequestSchema>;

/** The Context Manager's decision for a validated resolve body. */
export function toMergeDecision(request: ResolveMergeRequest): MergeDecision {
  if ("resolutions" in request) return { action: "resolve", resolutions: request.resolutions };
  if ("proceed" in request) {
    return request.include_dependencies === undefined
      ? { action: "proceed" }
      : { action: "proceed", include_dependencies: request.include_dependencies };
  }
  return { action: "cancel" };
}
