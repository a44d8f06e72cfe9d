import { z } from "zod";

// Content blocks, messages, stop reasons and usage (REQ-001, 002, 005, 006, 018).
// The zod schemas are the single source of truth: the TypeScript types are inferred from them and
// restoring saved messages parses through them, so JSON round trips are lossless and checked.

export const TextContentSchema = z.object({ type: z.literal("text"), text: z.string() });
export const ImageContentSchema = z.object({
  type: z.literal("image"),
  /** base64, no data: prefix */
  data: z.string(),
  mimeType: z.string(),
});
export const ThinkingContentSchema = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  /** provider signature that must be sent back verbatim (Anthropic); absent for others */
  signature: z.string().optional(),
  /** true when the provider returned the reasoning redacted/encrypted */
  redacted: z.boolean().optional(),
});
export const ToolCallContentSchema = z.object({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

export const ContentSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  ThinkingContentSchema,
  ToolCallContentSchema,
]);

export type TextContent = z.infer<typeof TextContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type ThinkingContent = z.infer<typeof ThinkingContentSchema>;
export type ToolCallContent = z.infer<typeof ToolCallContentSchema>;
export type Content = z.infer<typeof ContentSchema>;

/** REQ-005: serialized in camelCase. */
export const StopReasonSchema = z.enum(["stop", "length", "toolUse", "error", "aborted"]);
export type StopReason = z.infer<typeof StopReasonSchema>;

/** REQ-006. All counts are tokens. `totalTokens` = input + output + cacheRead + cacheWrite. */
export const UsageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
}

/** cache_read / (input + cache_read + cache_write); 0 when nothing was sent. */
export function cacheHitRate(usage: Usage): number {
  const denominator = usage.input + usage.cacheRead + usage.cacheWrite;
  return denominator === 0 ? 0 : usage.cacheRead / denominator;
}

/** REQ-197: sums every field. */
export function combineUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export const UserMessageSchema = z.object({
  role: z.literal("user"),
  content: z.array(z.discriminatedUnion("type", [TextContentSchema, ImageContentSchema])),
  timestamp: z.number(),
});

export const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.array(
    z.discriminatedUnion("type", [TextContentSchema, ThinkingContentSchema, ToolCallContentSchema]),
  ),
  stopReason: StopReasonSchema,
  /** model id as the provider reported it */
  model: z.string(),
  /** StreamProvider.providerId of the provider that produced it */
  provider: z.string(),
  usage: UsageSchema,
  timestamp: z.number(),
  errorMessage: z.string().optional(),
});

export const ToolResultMessageSchema = z.object({
  role: z.literal("toolResult"),
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.array(z.discriminatedUnion("type", [TextContentSchema, ImageContentSchema])),
  isError: z.boolean(),
  timestamp: z.number(),
  /** per-tool structured metadata (REQ-137); never sent to the model */
  details: z.unknown().optional(),
  /** set by sub-agent tools (REQ-194) */
  childLoopId: z.string().optional(),
  /** model usage the tool spent itself (a sub-agent's child loop); never sent to the model */
  usage: UsageSchema.optional(),
  /** the model that spent `usage` (prices it) */
  model: z.string().optional(),
  /** the call was cancelled (interrupt, timeout, shutdown) rather than failing on its own */
  cancelled: z.boolean().optional(),
});

/** Messages the model understands (REQ-002). */
export const MessageSchema = z.discriminatedUnion("role", [
  UserMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
]);

export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolResultMessage = z.infer<typeof ToolResultMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;

/**
 * REQ-004: app-level messages kept in the agent's history but never sent to the model
 * (UI notices, optimization markers, plan cards…). `convertToLlm` decides what, if anything,
 * the model sees of them; by default they are dropped (REQ-044).
 */
export const ExtensionMessageSchema = z.object({
  role: z.literal("extension"),
  kind: z.string(),
  data: z.unknown(),
  timestamp: z.number().optional(),
});
export type ExtensionMessage = z.infer<typeof ExtensionMessageSchema>;

/** REQ-003: everything the agent keeps in its history. */
export const AgentMessageSchema = z.discriminatedUnion("role", [
  UserMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
  ExtensionMessageSchema,
]);
export type AgentMessage = z.infer<typeof AgentMessageSchema>;

export function isLlmMessage(message: AgentMessage): message is Message {
  return message.role !== "extension";
}

export function userMessage(text: string, timestamp = Date.now()): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

/** Text of a message's text blocks, joined with newlines. */
export function messageText(message: AgentMessage): string {
  if (message.role === "extension") return "";
  let out = "";
  for (const block of message.content) {
    if (block.type === "text") out = out ? `${out}\n${block.text}` : block.text;
  }
  return out;
}
