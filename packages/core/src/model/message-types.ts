import { z } from "zod";
import { ImageContentSchema, TextContentSchema, UsageSchema } from "./llm-messages.js";
import { PersonRefSchema } from "./person.js";
import { UsageCostFields } from "./usage-cost.js";

// The Context Manager's message model (context-manager spec "Message Type System", plan-act
// "Message Structure"). Field names are snake_case because these objects are the wire format:
// they go to storage and to the browser as they are (see docs/decisions/0003-wire-naming.md).
//
// A message's CONTENT never changes once it is in the pool. Only lifecycle fields may move on:
// `status`, the approval of each tool call, and `completed_at`.

export const LineRangeSchema = z
  .object({ start_line: z.number().int().min(1), end_line: z.number().int().min(1) })
  .refine((r) => r.end_line >= r.start_line, {
    message: "end_line must be greater than or equal to start_line",
    path: ["end_line"],
  });
export type LineRange = z.infer<typeof LineRangeSchema>;

export const ApprovalStatusSchema = z.enum(["pending", "approved", "denied", "auto_approved"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

/**
 * An OpenAPI call's request, computed by its tool when the call is stored (before any approval):
 * its method, full URL, and which credential goes where (never its value).
 */
export const HttpCallPreviewSchema = z.object({
  kind: z.literal("http"),
  method: z.string(),
  /** path parameters filled in, the query string (a query credential shown as [redacted]) */
  url: z.string(),
  /** the credential sent with it: its variable, where it is placed, and the host it goes to */
  credential: z
    .object({
      env: z.string(),
      placement: z.enum(["bearer", "basic", "header", "query"]),
      /** the header or query parameter (api_key) */
      name: z.string().optional(),
      host: z.string(),
    })
    .optional(),
});

/**
 * One hunk of a unified diff: the number of its first line on each side (1-based; a side with
 * no lines names the line it comes before, 0 for a new file's old side) and its lines, each led
 * by " " (context), "-" (removed) or "+" (added).
 */
export const DiffHunkSchema = z.object({
  old_start: z.number().int().min(0),
  old_lines: z.number().int().min(0),
  new_start: z.number().int().min(0),
  new_lines: z.number().int().min(0),
  lines: z.array(z.string()),
});
export type DiffHunk = z.infer<typeof DiffHunkSchema>;

/**
 * A change to one workspace file as a unified diff (issue #27): what an edit_file / write_file
 * call will do to the file on disk (its approval card's preview) or what it did (its result's
 * `details.diff`). Hunks carry 3 lines of context; a new file is one hunk of added lines.
 */
export const FileDiffSchema = z.object({
  /** relative to the workspace root, "/" separators */
  path: z.string(),
  /** create: the file did not exist; edit: an existing file changes */
  change: z.enum(["create", "edit"]),
  added: z.number().int().min(0),
  removed: z.number().int().min(0),
  hunks: z.array(DiffHunkSchema),
  /** lines were left out of `hunks` to keep the diff small: the change is larger than shown */
  truncated: z.boolean().optional(),
});
export type FileDiff = z.infer<typeof FileDiffSchema>;

/**
 * What an edit_file / write_file call will change, computed from the file on disk when the call
 * is stored (before any approval). `problem` instead of `diff`: the call would fail as it is (the
 * file is missing, old_text is not found), or the change cannot be shown (a binary file).
 */
export const FileChangePreviewSchema = z.object({
  kind: z.literal("file_change"),
  path: z.string(),
  diff: FileDiffSchema.optional(),
  problem: z.string().optional(),
});

/** What a call will do, computed by its tool when the call is stored (before any approval). */
export const ToolCallPreviewSchema = z.discriminatedUnion("kind", [
  HttpCallPreviewSchema,
  FileChangePreviewSchema,
]);
export type ToolCallPreview = z.infer<typeof ToolCallPreviewSchema>;
export type HttpCallPreview = z.infer<typeof HttpCallPreviewSchema>;
export type FileChangePreview = z.infer<typeof FileChangePreviewSchema>;

export const ToolCallRequestSchema = z.object({
  /** unique per session; the provider's tool call id */
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  approval: ApprovalStatusSchema.default("pending"),
  /** why a call was denied or auto-approved (policy name, user) */
  approval_note: z.string().optional(),
  /**
   * the person who approved or denied the call; null (or absent, in rows written before it
   * existed) while pending and when a policy decided (auto_approved, white list, recovery)
   */
  decided_by: PersonRefSchema.nullable().optional(),
  /**
   * what the call will do, when its tool can say (an OpenAPI call's request, an edit's diff
   * against the file on disk): shown on the approval card
   */
  preview: ToolCallPreviewSchema.optional(),
  /**
   * a waiting bash call: the scoped "Always allow" rules its approval card offers, this exact
   * command and, for a simple command, its program's prefix (permission-rules.ts suggestedRules)
   */
  suggested_rules: z.object({ exact: z.string(), prefix: z.string().optional() }).optional(),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequestSchema>;

export const FileReferenceBodySchema = z.object({
  message_type: z.literal("file_reference"),
  /** relative to the session's workspace */
  path: z.string().min(1),
  range: LineRangeSchema.optional(),
  display_text: z.string().optional(),
  /** filled by the FileReferenceProcessor; absent until resolved */
  resolved: z
    .object({
      content: z.string(),
      start_line: z.number().int(),
      end_line: z.number().int(),
      total_lines: z.number().int(),
      truncated: z.boolean(),
    })
    .optional(),
});

export const ToolRequestBodySchema = z.object({
  message_type: z.literal("tool_request"),
  /** the assistant's prose that came with the calls */
  text: z.string().default(""),
  /** reasoning blocks, kept so they can be sent back (Anthropic signatures) */
  thinking: z
    .array(z.object({ thinking: z.string(), signature: z.string().optional() }))
    .default([]),
  calls: z.array(ToolCallRequestSchema).min(1),
});

export const ToolResultStatusSchema = z.enum([
  "success",
  "error",
  "denied",
  "skipped",
  "cancelled",
]);
export type ToolResultStatus = z.infer<typeof ToolResultStatusSchema>;

export const ToolResultBodySchema = z.object({
  message_type: z.literal("tool_result"),
  /** id of the tool_request message this answers */
  request_id: z.string().min(1),
  tool_call_id: z.string().min(1),
  tool_name: z.string(),
  content: z.array(z.discriminatedUnion("type", [TextContentSchema, ImageContentSchema])),
  status: ToolResultStatusSchema,
  details: z.unknown().optional(),
});

export const McpResourceBodySchema = z.object({
  message_type: z.literal("mcp_resource"),
  server_name: z.string(),
  resource_uri: z.string(),
  content: z.string(),
  mime_type: z.string(),
  retrieved_at: z.string(),
});

/** The image types an attachment may be; they reach the model as image blocks. */
export const ATTACHMENT_IMAGE_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
] as const;

/**
 * A file the user uploaded, pasted or dropped into the conversation, kept in the session's data:
 * a text file as its text, an image as an image block (base64), which the model sees as such.
 */
export const AttachmentBodySchema = z.object({
  message_type: z.literal("attachment"),
  /** the file's name as the user's browser gave it */
  name: z.string(),
  mime_type: z.string(),
  /** bytes of the uploaded file */
  size: z.number().int().nonnegative(),
  content: z.array(z.discriminatedUnion("type", [TextContentSchema, ImageContentSchema])).min(1),
});

/** A file sent with a user's text, in the same message: an attachment without its own turn. */
export const AttachedFileSchema = AttachmentBodySchema.omit({ message_type: true });
export type AttachedFile = z.infer<typeof AttachedFileSchema>;

export const TextBodySchema = z.object({
  message_type: z.literal("text"),
  text: z.string(),
  /**
   * files the user attached to this text (a user's message only): the model sees each before
   * the text, in one turn, so it reads the question with its files
   */
  attachments: z.array(AttachedFileSchema).optional(),
});

export const SystemControlKindSchema = z.enum([
  "summary",
  "notice",
  "mode_change",
  "auto_loop_limit",
  "interrupted",
  "error",
  "recovered",
]);

export const SystemControlBodySchema = z.object({
  message_type: z.literal("system_control"),
  kind: SystemControlKindSchema,
  text: z.string(),
  /** for summaries: ids of the messages this one stands for in the optimized view */
  replaces: z.array(z.string()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const PlanStepSchema = z.object({
  title: z.string().min(1),
  detail: z.string().optional(),
});

export const PlanBodySchema = z.object({
  message_type: z.literal("plan"),
  summary: z.string().default(""),
  steps: z.array(PlanStepSchema).min(1),
  /** the present_plan tool call that produced it */
  tool_call_id: z.string().optional(),
});

export const QuestionBodySchema = z.object({
  message_type: z.literal("question"),
  question: z.string().min(1),
  choices: z.array(z.string()).default([]),
  allow_free_text: z.boolean().default(true),
  /** the ask_question tool call that produced it */
  tool_call_id: z.string().optional(),
});

export const MessageBodySchema = z.discriminatedUnion("message_type", [
  TextBodySchema,
  FileReferenceBodySchema,
  ToolRequestBodySchema,
  ToolResultBodySchema,
  McpResourceBodySchema,
  AttachmentBodySchema,
  SystemControlBodySchema,
  PlanBodySchema,
  QuestionBodySchema,
]);
export type MessageBody = z.infer<typeof MessageBodySchema>;
export type MessageType = MessageBody["message_type"];

/** Every message type by name (a filter's values); a new body type must be added here. */
export const MessageTypeSchema = z.enum({
  text: "text",
  file_reference: "file_reference",
  tool_request: "tool_request",
  tool_result: "tool_result",
  mcp_resource: "mcp_resource",
  attachment: "attachment",
  system_control: "system_control",
  plan: "plan",
  question: "question",
} satisfies { [T in MessageType]: T });
export type BodyOf<T extends MessageType> = Extract<MessageBody, { message_type: T }>;

export const MessageRoleSchema = z.enum(["user", "assistant", "system", "tool"]);
export type MessageRole = z.infer<typeof MessageRoleSchema>;

/**
 * streaming: being written by the model; incomplete: cut off (crash, interrupt, error);
 * queued: a user message sent while the agent worked, stored but on no branch yet: it joins the
 * active branch (and becomes complete) when it is delivered (docs/decisions/0011)
 */
export const MessageStatusSchema = z.enum([
  "pending",
  "queued",
  "streaming",
  "complete",
  "incomplete",
  "failed",
]);
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

/**
 * How a message sent while the agent works is delivered: `steer` at the run's next turn boundary
 * (after the current tool round's results, before the next model request), `follow_up` once the
 * run has ended (it then starts the next run).
 */
export const MessageDeliverySchema = z.enum(["steer", "follow_up"]);
export type MessageDelivery = z.infer<typeof MessageDeliverySchema>;

export const ContextMessageSchema = z.object({
  id: z.string().min(1),
  session_id: z.string().min(1),
  role: MessageRoleSchema,
  body: MessageBodySchema,
  status: MessageStatusSchema,
  created_at: z.string(),
  completed_at: z.string().optional(),
  /** the client's own data sent with a user message (SendMessageRequest); never sent to the model */
  client_metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "the SendMessageRequest's client_metadata, on the user message it came with; never sent to the model",
    ),
  /** assistant messages: which model answered, with what usage, in which loop; user messages: their processing; a sub-agent's tool_result: its child loop's usage */
  meta: z
    .object({
      model: z.string().optional(),
      provider: z.string().optional(),
      usage: UsageSchema.extend({
        cost_usd: UsageCostFields.cost_usd.optional(),
        cost_complete: UsageCostFields.cost_complete.optional(),
      })
        .optional()
        .describe(
          "tokens, with their cost (`cost_usd`: US dollars at list prices, null when the model has no price; `cost_complete`: false when it has none); rows stored before cost was kept get it when read",
        ),
      cost_usd: z
        .number()
        .nonnegative()
        .optional()
        .describe(
          "US dollars of `usage` at list prices; absent when the model's prices are unknown (the same figure as `usage.cost_usd`, kept for older clients)",
        ),
      stop_reason: z.string().optional(),
      loop_id: z.string().optional(),
      fold_id: z
        .string()
        .optional()
        .describe(
          "a step of a fold (context folding): stored and viewable (GET /folds), never on a branch nor in the parent's context",
        ),
      child_loop_id: z
        .string()
        .optional()
        .describe(
          "a sub-agent's tool_result: the child loop it ran (its usage is this row's `usage`)",
        ),
      error_message: z.string().optional(),
      pipeline: z
        .object({
          processors: z.array(z.object({ processor: z.string(), ms: z.number().nonnegative() })),
          completed_by: z.string().optional(),
        })
        .optional()
        .describe(
          "a user message: the processors that ran on it before it was stored, in order, with their time in ms; completed_by names one that returned complete (the rest were skipped): `optimization` always does, so a processor listed after it never runs",
        ),
      edited_from: z
        .string()
        .optional()
        .describe(
          "a user message made by Edit & resend: the message it replaces (on the branch the edit forked from)",
        ),
      delivery: MessageDeliverySchema.optional().describe(
        "a user message sent while the agent worked: how it was queued (steer: at the run's next turn boundary; follow_up: after the run)",
      ),
    })
    .optional(),
});
export type ContextMessage = z.infer<typeof ContextMessageSchema>;
export type ContextMessageInput = z.input<typeof ContextMessageSchema>;
