import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";

// What an `mcp_resource` payload becomes: the MCPResource message body (message-types.ts
// McpResourceBodySchema) from a resources/read answer. Text contents are kept (several are
// joined); an image keeps its base64 data so the card can show it; other binary content is named
// with its size, since the model could not read it.

/** Reads resources; McpManager is one. Throws McpLookupError for an unknown server or URI. */
export interface McpResourceReader {
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
}

export interface McpResourceBody {
  message_type: "mcp_resource";
  server_name: string;
  resource_uri: string;
  content: string;
  mime_type: string;
  retrieved_at: string;
}

export function mcpResourceBody(
  read: ReadResourceResult,
  request: { server_name: string; resource_uri: string },
  retrievedAt: string,
): McpResourceBody {
  const parts: string[] = [];
  let mime: string | undefined;
  for (const item of read.contents) {
    mime ??= item.mimeType;
    if ("text" in item && typeof item.text === "string") parts.push(item.text);
    else if ("blob" in item && typeof item.blob === "string") {
      if (item.mimeType?.startsWith("image/") && read.contents.length === 1) parts.push(item.blob);
      else
        parts.push(
          `[binary ${item.mimeType ?? "content"}, ${Math.floor((item.blob.length * 3) / 4)} bytes]`,
        );
    }
  }
  return {
    message_type: "mcp_resource",
    server_name: request.server_name,
    resource_uri: request.resource_uri,
    content: parts.join("\n\n"),
    mime_type: mime ?? "text/plain",
    retrieved_at: retrievedAt,
  };
}
