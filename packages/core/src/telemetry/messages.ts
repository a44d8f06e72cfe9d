import type { Message, StopReason, ToolCallContent } from "../model/llm-messages.js";

// Arbor's messages in the shape the GenAI conventions give gen_ai.input.messages and
// gen_ai.output.messages: `{ role, parts: [{ type: "text" | "reasoning" | "tool_call" |
// "tool_call_response", … }] }`. Images are named, not copied (their bytes are no one's trace).

type Part =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "blob"; modality: "image"; mime_type: string }
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "tool_call_response"; id: string; response: string };

export interface SemconvMessage {
  role: "user" | "assistant" | "tool";
  parts: Part[];
  finish_reason?: string;
}

/** The conventions' finish reason for an answer's stop reason. */
export function finishReason(stop: StopReason): string {
  switch (stop) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "toolUse":
      return "tool_call";
    case "error":
      return "error";
    case "aborted":
      return "cancelled";
    default:
      return stop satisfies never;
  }
}

export function semconvMessages(messages: readonly Message[]): SemconvMessage[] {
  return messages.map(semconvMessage);
}

export function semconvMessage(message: Message): SemconvMessage {
  switch (message.role) {
    case "user":
      return {
        role: "user",
        parts: message.content.map(
          (block): Part =>
            block.type === "text"
              ? { type: "text", content: block.text }
              : { type: "blob", modality: "image", mime_type: block.mimeType },
        ),
      };
    case "assistant":
      return {
        role: "assistant",
        parts: message.content.map((block): Part => {
          switch (block.type) {
            case "text":
              return { type: "text", content: block.text };
            case "thinking":
              return { type: "reasoning", content: block.thinking };
            case "toolCall":
              return toolCallPart(block);
            default:
              return block satisfies never;
          }
        }),
        finish_reason: finishReason(message.stopReason),
      };
    case "toolResult":
      return {
        role: "tool",
        parts: [
          {
            type: "tool_call_response",
            id: message.toolCallId,
            response: message.content
              .flatMap((block) => (block.type === "text" ? [block.text] : []))
              .join("\n"),
          },
        ],
      };
    default:
      return message satisfies never;
  }
}

function toolCallPart(call: ToolCallContent): Part {
  return { type: "tool_call", id: call.id, name: call.name, arguments: call.arguments };
}
