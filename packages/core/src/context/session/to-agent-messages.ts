import { mcpResourceImage } from "../../mcp/resource-message.js";
import type {
  AgentMessage,
  AssistantMessage,
  ToolResultMessage,
} from "../../model/llm-messages.js";
import { emptyUsage } from "../../model/llm-messages.js";
import type { ContextMessage } from "../../model/message-types.js";
import { plainUsage } from "../../model/usage-cost.js";
import { mcpResourceHeader, toModelText } from "../optimization/model-view.js";

// ContextMessage[] (a branch, or its optimized view) → the runtime's AgentMessage[]. Rules:
// - text: user text → user message (the files attached to it first, each named); assistant text →
//   assistant message (stopReason "stop");
// - file_reference → a user message "File: <path> (lines a-b)\n<content>" (unresolved: a note);
// - mcp_resource → a user message with its origin header and content (an image resource: the
//   header, then its image block);
// - attachment → a user message naming the file, then its text or its image block;
// - tool_request → an assistant message with its thinking, prose and tool calls (a workflow run
//   by the user, role "user", is shown the same way so its result has a call to answer);
// - tool_result → a toolResult message (error for error / denied / skipped / cancelled);
// - plan / question → the toolResult of the present_plan / ask_question call that produced them;
// - system_control summary → a user message "[Summary of earlier conversation] …"; every other
//   system_control (notices, mode changes, limits) is for the UI only and is not sent;
// - incomplete or failed assistant messages are not sent (a cut-off answer would mislead the model).

export const SUMMARY_PREFIX = "[Summary of earlier conversation]";

function timestampOf(message: ContextMessage): number {
  const at = Date.parse(message.created_at);
  return Number.isNaN(at) ? 0 : at;
}

function assistantBase(message: ContextMessage): Omit<AssistantMessage, "content" | "stopReason"> {
  return {
    role: "assistant",
    model: message.meta?.model ?? "unknown",
    provider: message.meta?.provider ?? "unknown",
    // tokens only: the cost beside them is the wire's, not the agent's
    usage: plainUsage(message.meta?.usage ?? emptyUsage()),
    timestamp: timestampOf(message),
  };
}

function toolResult(
  message: ContextMessage,
  toolCallId: string,
  toolName: string,
  text: string,
  isError: boolean,
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError,
    timestamp: timestampOf(message),
  };
}

/** One message; undefined when the model must not see it. */
export function toAgentMessage(message: ContextMessage): AgentMessage | undefined {
  const body = message.body;
  const timestamp = timestampOf(message);
  if (
    message.role === "assistant" &&
    (message.status === "incomplete" || message.status === "failed")
  ) {
    return undefined;
  }
  switch (body.message_type) {
    case "text":
      if (message.role === "assistant") {
        return {
          ...assistantBase(message),
          content: [{ type: "text", text: body.text }],
          stopReason: "stop",
        };
      }
      // files sent with the text come first, each as an attachment would, then the question
      return {
        role: "user",
        content: [
          ...(body.attachments ?? []).flatMap((file) => [
            {
              type: "text" as const,
              text: `Attached file ${file.name} (${file.mime_type}, ${file.size} bytes):`,
            },
            ...file.content,
          ]),
          { type: "text", text: body.text },
        ],
        timestamp,
      };
    case "file_reference":
      return { role: "user", content: [{ type: "text", text: toModelText(message) }], timestamp };
    case "mcp_resource": {
      const image = mcpResourceImage(body);
      if (image === undefined) {
        return { role: "user", content: [{ type: "text", text: toModelText(message) }], timestamp };
      }
      return {
        role: "user",
        content: [
          { type: "text", text: mcpResourceHeader(body) },
          { type: "image", data: image.data, mimeType: image.mimeType },
        ],
        timestamp,
      };
    }
    case "tool_request": {
      const content: AssistantMessage["content"] = [];
      for (const t of body.thinking) {
        content.push(
          t.signature !== undefined
            ? { type: "thinking", thinking: t.thinking, signature: t.signature }
            : { type: "thinking", thinking: t.thinking },
        );
      }
      if (body.text) content.push({ type: "text", text: body.text });
      for (const call of body.calls) {
        content.push({ type: "toolCall", id: call.id, name: call.name, arguments: call.arguments });
      }
      return { ...assistantBase(message), content, stopReason: "toolUse" };
    }
    case "tool_result":
      return {
        role: "toolResult",
        toolCallId: body.tool_call_id,
        toolName: body.tool_name,
        content: body.content,
        isError: body.status !== "success",
        timestamp,
      };
    case "plan":
      return body.tool_call_id === undefined
        ? { role: "user", content: [{ type: "text", text: toModelText(message) }], timestamp }
        : toolResult(
            message,
            body.tool_call_id,
            "present_plan",
            `Plan presented to the user for review.\n${toModelText(message)}`,
            false,
          );
    case "question":
      return body.tool_call_id === undefined
        ? { role: "user", content: [{ type: "text", text: toModelText(message) }], timestamp }
        : toolResult(
            message,
            body.tool_call_id,
            "ask_question",
            `Question sent to the user.\n${toModelText(message)}`,
            false,
          );
    case "attachment":
      // an image stays an image block for the model; a text file is its text
      return {
        role: "user",
        content: [
          {
            type: "text",
            text: `Attached file ${body.name} (${body.mime_type}, ${body.size} bytes):`,
          },
          ...body.content,
        ],
        timestamp,
      };
    case "system_control":
      if (body.kind !== "summary") return undefined;
      return {
        role: "user",
        content: [{ type: "text", text: `${SUMMARY_PREFIX} ${body.text}` }],
        timestamp,
      };
    default:
      return body satisfies never;
  }
}

/**
 * The view as the model's messages, always a valid request. `convert` turns one message (default
 * toAgentMessage; a child loop's working history gives back its own messages where it can).
 */
export function toAgentMessages(
  messages: Iterable<ContextMessage>,
  convert: (message: ContextMessage) => AgentMessage | undefined = toAgentMessage,
): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const message of messages) {
    const converted = convert(message);
    if (converted !== undefined) out.push(converted);
  }
  return startingWithUser(withEveryToolResult(out));
}

/** What stands first when a view would begin with the model's turn (see startingWithUser). */
export const LEFT_OUT_NOTE = "[The conversation so far; earlier messages, if any, are not shown.]";

/**
 * Always a valid request: the providers want the user first (Anthropic answers 400 "first message
 * must use the user role"). A view that optimization cut to begin with an answer or with results
 * whose calls were dropped, or a session that began with the user's own tool call (a workflow),
 * gets orphan results removed and this note before it.
 */
function startingWithUser(messages: AgentMessage[]): AgentMessage[] {
  let start = 0;
  while (messages[start]?.role === "toolResult") start++;
  const rest = start > 0 ? messages.slice(start) : messages;
  const first = rest[0];
  if (first === undefined || first.role === "user") return rest;
  const timestamp =
    "timestamp" in first && typeof first.timestamp === "number" ? first.timestamp : 0;
  return [{ role: "user", content: [{ type: "text", text: LEFT_OUT_NOTE }], timestamp }, ...rest];
}

/** The result a call gets in the model's view when none was stored (a store from before #9). */
export const NO_RESULT_TEXT = "No result was recorded for this call (it was cut off).";

/**
 * Every tool call gets a tool result right after its message: the providers reject a transcript
 * with a tool_use and no tool_result, so a session would fail on every turn. Recovery stores a
 * result for calls a crash cut off (recovery.ts); this covers whatever was stored before that.
 * The last message's calls without a result are left alone (all of them, or those after the
 * ones that ran: loop.ts runs the calls before the first one held for a person): they await a
 * decision or a continuation, which runs them. Results are sent in call order. A result that answers no call of the message just before
 * it (its request was cut off and is not sent, e.g. an imported one) is left out: the providers
 * reject a tool_result without its tool_use just the same.
 */
function withEveryToolResult(messages: readonly AgentMessage[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i] as AgentMessage;
    i++;
    if (message.role === "toolResult") continue;
    out.push(message);
    if (message.role !== "assistant") continue;
    const calls = message.content.filter((b) => b.type === "toolCall");
    if (calls.length === 0) continue;
    const callIds = new Set(calls.map((c) => c.id));
    const answered = new Map<string, ToolResultMessage>();
    while (i < messages.length && messages[i]?.role === "toolResult") {
      const result = messages[i] as ToolResultMessage;
      i++;
      if (!callIds.has(result.toolCallId) || answered.has(result.toolCallId)) continue;
      answered.set(result.toolCallId, result);
    }
    // the results in call order, whatever order they were stored in
    const last = i === messages.length;
    for (const call of calls) {
      const result = answered.get(call.id);
      if (result !== undefined) out.push(result);
    }
    if (last) continue;
    for (const call of calls) {
      if (answered.has(call.id)) continue;
      out.push({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: NO_RESULT_TEXT }],
        isError: true,
        timestamp: message.timestamp,
      });
    }
  }
  return out;
}
