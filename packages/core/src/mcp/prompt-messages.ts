import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { sniffImageType } from "../model/attachments.js";
import { ATTACHMENT_IMAGE_TYPES, type MessageBody } from "../model/message-types.js";

// What an `mcp_prompt` payload becomes: the prompt's messages (prompts/get), each its own message
// in the conversation, in order and with its role. A user's text is a text message, an image an
// Attachment (an image block for the model), an embedded resource an MCPResource message (server,
// URI, content); an assistant's message is its text (an image or resource named in it). Audio and
// resource links are named in a text message.

export interface McpPromptMessage {
  role: "user" | "assistant";
  body: MessageBody;
}

type PromptContent = GetPromptResult["messages"][number]["content"];

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** The content as a line of text (the assistant's side, and what has no message type). */
function contentText(content: PromptContent): string {
  switch (content.type) {
    case "text":
      return content.text;
    case "image":
      return `[image ${content.mimeType}, ${base64Bytes(content.data)} bytes]`;
    case "audio":
      return `[audio ${content.mimeType}, ${base64Bytes(content.data)} bytes]`;
    case "resource": {
      const r = content.resource;
      return "text" in r
        ? `[resource ${r.uri} (${r.mimeType ?? "unknown type"})]\n${r.text}`
        : `[resource ${r.uri}: ${r.mimeType ?? "binary"}, ${base64Bytes(r.blob)} bytes]`;
    }
    case "resource_link": {
      const mime = content.mimeType ? ` (${content.mimeType})` : "";
      const about = content.description ? `: ${content.description}` : "";
      return `[resource link ${content.name} <${content.uri}>${mime}${about}]`;
    }
    default:
      return JSON.stringify(content);
  }
}

function userBody(
  content: PromptContent,
  origin: { server: string; prompt: string },
  retrievedAt: string,
): MessageBody {
  switch (content.type) {
    case "image":
      // an image type the providers do not take, or bytes that are not what the type says, is
      // named instead
      if (
        !(ATTACHMENT_IMAGE_TYPES as readonly string[]).includes(content.mimeType) ||
        sniffImageType(Buffer.from(content.data, "base64")) !== content.mimeType
      ) {
        return { message_type: "text", text: contentText(content) };
      }
      return {
        message_type: "attachment",
        name: `${origin.prompt} (${origin.server}) image`,
        mime_type: content.mimeType,
        size: base64Bytes(content.data),
        content: [{ type: "image", data: content.data, mimeType: content.mimeType }],
      };
    case "resource": {
      const r = content.resource;
      const image = !("text" in r) && r.mimeType?.startsWith("image/") === true;
      return {
        message_type: "mcp_resource",
        server_name: origin.server,
        resource_uri: r.uri,
        content: "text" in r ? r.text : image ? r.blob : contentText(content),
        mime_type: "text" in r || image ? (r.mimeType ?? "text/plain") : "text/plain",
        retrieved_at: retrievedAt,
      };
    }
    default:
      return { message_type: "text", text: contentText(content) };
  }
}

/** The prompt's messages as message bodies, in order. */
export function mcpPromptMessages(
  result: GetPromptResult,
  origin: { server: string; prompt: string },
  retrievedAt: string,
): McpPromptMessage[] {
  return result.messages.map((message) =>
    message.role === "assistant"
      ? { role: "assistant", body: { message_type: "text", text: contentText(message.content) } }
      : { role: "user", body: userBody(message.content, origin, retrievedAt) },
  );
}

/** The prompt's messages as text (the McpPromptResponse of POST …/prompts/{prompt}). */
export function mcpPromptTexts(
  result: GetPromptResult,
): Array<{ role: "user" | "assistant"; text: string }> {
  return result.messages.map((m) => ({ role: m.role, text: contentText(m.content) }));
}
