import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ImageContent, TextContent } from "../model/llm-messages.js";
import { ToolError, type ToolResult } from "../tools/tool.js";

// An MCP tools/call result as a tool result: text as text; images (and image resources) as image
// blocks; embedded text resources with their URI; binary resources, audio and resource links as
// a line naming them; structuredContent as JSON text when the content does not already carry it.
// `isError` results become a failed ToolError, so the model sees them as errors.

export interface McpResultDetails {
  server: string;
  tool: string;
  structuredContent?: Record<string, unknown>;
}

type Block = TextContent | ImageContent;

function blockOf(item: ContentBlock): Block {
  switch (item.type) {
    case "text":
      return { type: "text", text: item.text };
    case "image":
      return { type: "image", data: item.data, mimeType: item.mimeType };
    case "audio":
      return { type: "text", text: `[audio ${item.mimeType}, ${base64Bytes(item.data)} bytes]` };
    case "resource": {
      const r = item.resource;
      const mime = r.mimeType ?? "unknown type";
      if ("text" in r) return { type: "text", text: `[resource ${r.uri} (${mime})]\n${r.text}` };
      if (r.mimeType?.startsWith("image/")) {
        return { type: "image", data: r.blob, mimeType: r.mimeType };
      }
      return { type: "text", text: `[resource ${r.uri}: ${mime}, ${base64Bytes(r.blob)} bytes]` };
    }
    case "resource_link": {
      const mime = item.mimeType ? ` (${item.mimeType})` : "";
      const about = item.description ? `: ${item.description}` : "";
      return { type: "text", text: `[resource link ${item.name} <${item.uri}>${mime}${about}]` };
    }
    default:
      return { type: "text", text: JSON.stringify(item) };
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** The tool result of `result`; throws ToolError.failed for an `isError` result. */
export function toolResultFromMcp(
  result: CallToolResult,
  origin: { server: string; tool: string },
): ToolResult<McpResultDetails> {
  const content: Block[] = (result.content ?? []).map(blockOf);
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const json = JSON.stringify(structured);
    const carried = content.some((b) => b.type === "text" && b.text.trim() === json);
    if (!carried) content.push({ type: "text", text: json });
  }
  if (result.isError === true) {
    const text = content
      .filter((b): b is TextContent => b.type === "text")
      .map((b) => b.text)
      .join("\n");
    throw ToolError.failed(text === "" ? `${origin.tool} failed` : text);
  }
  if (content.length === 0) content.push({ type: "text", text: "(no content)" });
  return {
    content,
    details: { ...origin, ...(structured !== undefined ? { structuredContent: structured } : {}) },
  };
}
