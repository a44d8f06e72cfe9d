import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";

// What an `mcp_resource` payload becomes: the MCPResource message body (message-types.ts
// McpResourceBodySchema) from a resources/read answer. Text contents are kept (several are
// joined); an image keeps its base64 data so the card can show it; other binary content is named
// with its size, since the model could not read it.

/**
 * Reads resources and prompts; McpManager is one. Throws McpLookupError for an unknown server,
 * URI, prompt or a missing required argument.
 */
export interface McpResourceReader {
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
  getPrompt(server: string, name: string, args: Record<string, string>): Promise<GetPromptResult>;
  /** why `uri` of `server` cannot be read, without reading it (the McpManager's check) */
  resourceProblem?(server: string, uri: string): { field: string; message: string } | undefined;
  /** why the prompt cannot be expanded with `args`, without asking the server */
  promptProblem?(
    server: string,
    name: string,
    args: Record<string, string>,
  ): { field: string; message: string } | undefined;
}

export interface McpResourceBody {
  message_type: "mcp_resource";
  server_name: string;
  resource_uri: string;
  content: string;
  mime_type: string;
  retrieved_at: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The image an MCPResource message holds, or undefined: its mime type is an image type and its
 * content is the image's base64 data (a single image content; mcpResourceBody keeps only that).
 * The model receives it as an image block, the card shows it.
 */
export function mcpResourceImage(body: {
  content: string;
  mime_type: string;
}): { data: string; mimeType: string } | undefined {
  if (!body.mime_type.startsWith("image/") || !BASE64.test(body.content)) return undefined;
  return { data: body.content, mimeType: body.mime_type };
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
  const single = read.contents.length === 1;
  return {
    message_type: "mcp_resource",
    server_name: request.server_name,
    resource_uri: request.resource_uri,
    content: parts.join("\n\n"),
    // several contents are text (images among them named): an image type would mislabel them
    mime_type: (single || !mime?.startsWith("image/") ? mime : "text/plain") ?? "text/plain",
    retrieved_at: retrievedAt,
  };
}
