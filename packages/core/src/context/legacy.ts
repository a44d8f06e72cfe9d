import { z } from "zod";
import {
  type ContextMessage,
  ContextMessageSchema,
  MessageRoleSchema,
} from "../model/message-types.js";

// Loading messages stored before the message-type system (context-manager "Backward compatibility
// conversion"). The old shape is the InternalMessage the spec retires:
//   {id, role, content: string | null, tool_calls?: [{id, name | function.name, arguments}],
//    tool_call_id?, name?, created_at? | timestamp?, session_id?, model?}
// and it converts with nothing lost:
// - a row with `body` is already a ContextMessage and parses as is (converted: false);
// - `tool_calls` → ToolRequest; the content text is kept as the request's `text`; arguments given
//   as a JSON string are parsed; a string that is not a JSON object is kept whole under
//   LEGACY_RAW_ARGUMENTS_KEY rather than dropped;
// - `role: "tool"` with `tool_call_id` → ToolResult (content text as one text block; `is_error`
//   → status "error"); its request is found through `options.findToolRequest`;
// - anything else → Text with the content (null → "").
// Timestamps: `created_at` of the old row, else its `timestamp` (epoch ms), else
// `options.rowTimestamp` (the storage row's own time), else the epoch "1970-01-01T00:00:00.000Z",
// which marks the time as unknown rather than inventing one.
// Old rows with fields this converter does not know are refused (ok: false) instead of silently
// dropping those fields; the store reports them as corrupt rows and keeps the row untouched.

export const LEGACY_RAW_ARGUMENTS_KEY = "__raw_arguments";
export const UNKNOWN_TIME = "1970-01-01T00:00:00.000Z";

const LegacyToolCallSchema = z
  .object({
    id: z.string().min(1),
    type: z.literal("function").optional(),
    name: z.string().min(1).optional(),
    function: z
      .object({ name: z.string().min(1), arguments: z.unknown().optional() })
      .strict()
      .optional(),
    arguments: z.unknown().optional(),
  })
  .strict()
  .refine((call) => call.name !== undefined || call.function !== undefined, {
    message: "a tool call needs name or function.name",
    path: ["name"],
  });

const LegacyMessageSchema = z
  .object({
    id: z.string().min(1),
    session_id: z.string().optional(),
    role: MessageRoleSchema,
    content: z.string().nullable().optional(),
    tool_calls: z.array(LegacyToolCallSchema).optional(),
    tool_call_id: z.string().min(1).optional(),
    /** the tool's name on old role:"tool" rows */
    name: z.string().optional(),
    is_error: z.boolean().optional(),
    created_at: z.string().optional(),
    /** epoch milliseconds, as the runtime's messages carry it */
    timestamp: z.number().optional(),
    model: z.string().optional(),
  })
  .strict();
type LegacyMessage = z.infer<typeof LegacyMessageSchema>;

export interface LegacyOptions {
  /** the storage row's own timestamp (ISO-8601), used when the message has none */
  rowTimestamp?: string;
  /** the tool_request message holding a call id (for old role:"tool" rows) */
  findToolRequest?: (toolCallId: string) => { request_id: string; tool_name: string } | undefined;
}

export type LegacyResult =
  | { ok: true; message: ContextMessage; converted: boolean }
  | { ok: false; error: string };

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length === 0 ? "(root)" : i.path.join(".")}: ${i.message}`)
    .join("; ");
}

function parseArguments(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === "") return {};
  if (typeof raw === "object" && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {
      // not JSON: kept whole below
    }
  }
  return { [LEGACY_RAW_ARGUMENTS_KEY]: raw };
}

function createdAt(old: LegacyMessage, options: LegacyOptions): string {
  if (old.created_at !== undefined) return old.created_at;
  if (old.timestamp !== undefined) return new Date(old.timestamp).toISOString();
  return options.rowTimestamp ?? UNKNOWN_TIME;
}

function convert(old: LegacyMessage, sessionId: string, options: LegacyOptions): LegacyResult {
  const text = old.content ?? "";
  const base = {
    id: old.id,
    session_id: sessionId,
    role: old.role,
    status: "complete" as const,
    created_at: createdAt(old, options),
    ...(old.model === undefined ? {} : { meta: { model: old.model } }),
  };
  if (old.tool_calls !== undefined && old.tool_calls.length > 0) {
    const ids = new Set(old.tool_calls.map((c) => c.id));
    if (ids.size !== old.tool_calls.length) {
      return { ok: false, error: `tool_calls: duplicate tool call id in message ${old.id}` };
    }
    const calls = old.tool_calls.map((call) => ({
      id: call.id,
      name: call.function?.name ?? call.name ?? "",
      arguments: parseArguments(call.function?.arguments ?? call.arguments),
      approval: "pending" as const,
    }));
    return {
      ok: true,
      converted: true,
      message: { ...base, body: { message_type: "tool_request", text, thinking: [], calls } },
    };
  }
  if (old.role === "tool" && old.tool_call_id !== undefined) {
    const request = options.findToolRequest?.(old.tool_call_id);
    if (request === undefined) {
      return {
        ok: false,
        error: `tool_call_id: no tool request with call ${old.tool_call_id} for message ${old.id}`,
      };
    }
    return {
      ok: true,
      converted: true,
      message: {
        ...base,
        body: {
          message_type: "tool_result",
          request_id: request.request_id,
          tool_call_id: old.tool_call_id,
          tool_name: old.name ?? request.tool_name,
          content: text === "" ? [] : [{ type: "text", text }],
          status: old.is_error === true ? "error" : "success",
        },
      },
    };
  }
  if (old.tool_call_id !== undefined || old.name !== undefined || old.is_error !== undefined) {
    return {
      ok: false,
      error: `message ${old.id}: tool_call_id/name/is_error only belong on role "tool" rows`,
    };
  }
  return { ok: true, converted: true, message: { ...base, body: { message_type: "text", text } } };
}

/**
 * Parses one stored message row, converting the old format. Never throws. A row of another
 * session (its session_id differs) is refused.
 */
export function fromStoredMessage(
  raw: unknown,
  sessionId: string,
  options: LegacyOptions = {},
): LegacyResult {
  if (typeof raw === "object" && raw !== null && "body" in raw) {
    const parsed = ContextMessageSchema.safeParse(raw);
    if (!parsed.success) return { ok: false, error: describeIssues(parsed.error) };
    if (parsed.data.session_id !== sessionId) {
      return { ok: false, error: `session_id: message belongs to ${parsed.data.session_id}` };
    }
    return { ok: true, message: parsed.data, converted: false };
  }
  const old = LegacyMessageSchema.safeParse(raw);
  if (!old.success) return { ok: false, error: describeIssues(old.error) };
  if (old.data.session_id !== undefined && old.data.session_id !== sessionId) {
    return { ok: false, error: `session_id: message belongs to ${old.data.session_id}` };
  }
  return convert(old.data, sessionId, options);
}

/**
 * Converts a session's rows in order, linking old tool results to the tool requests before them.
 * A call whose result is in the data was executed, so its approval becomes "approved" (note
 * "legacy") instead of the Pending a new call starts with. Rows that fail are reported by index.
 */
export function fromStoredMessages(
  rows: readonly unknown[],
  sessionId: string,
  options: Pick<LegacyOptions, "rowTimestamp"> = {},
): {
  messages: ContextMessage[];
  converted: number;
  errors: Array<{ index: number; error: string }>;
} {
  const calls = new Map<string, { request_id: string; tool_name: string }>();
  const answered = new Set<string>();
  const convertedRequests = new Set<string>();
  const messages: ContextMessage[] = [];
  const errors: Array<{ index: number; error: string }> = [];
  let converted = 0;
  rows.forEach((row, index) => {
    const result = fromStoredMessage(row, sessionId, {
      ...options,
      findToolRequest: (id) => calls.get(id),
    });
    if (!result.ok) {
      errors.push({ index, error: result.error });
      return;
    }
    const { message } = result;
    if (result.converted) converted++;
    if (message.body.message_type === "tool_request") {
      if (result.converted) convertedRequests.add(message.id);
      for (const call of message.body.calls) {
        calls.set(call.id, { request_id: message.id, tool_name: call.name });
      }
    }
    if (message.body.message_type === "tool_result" && result.converted) {
      answered.add(message.body.tool_call_id);
    }
    messages.push(message);
  });
  const approved = messages.map((message) => {
    // only old requests: a stored ToolRequest's approvals are real decisions, never rewritten
    if (message.body.message_type !== "tool_request" || !convertedRequests.has(message.id)) {
      return message;
    }
    if (!message.body.calls.some((c) => answered.has(c.id))) return message;
    const body = {
      ...message.body,
      calls: message.body.calls.map((c) =>
        answered.has(c.id) ? { ...c, approval: "approved" as const, approval_note: "legacy" } : c,
      ),
    };
    return { ...message, body };
  });
  return { messages: approved, converted, errors };
}
