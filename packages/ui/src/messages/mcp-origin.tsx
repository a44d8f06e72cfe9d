"use client";

// The server an MCP tool came from, read from the name the model sees: `mcp__<server>__<tool>`
// (core mcp/tool-names.ts). A shortened name keeps its server part; a server name with "__" in it
// shows only up to there.

export function mcpToolOrigin(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith("mcp__")) return undefined;
  const rest = name.slice(5);
  const cut = rest.indexOf("__");
  if (cut <= 0 || cut + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 2) };
}

/** "via <server>" beside a tool's name on its cards; nothing for a built-in tool. */
export function McpServerTag({ toolName }: { toolName: string }) {
  const origin = mcpToolOrigin(toolName);
  if (origin === undefined) return null;
  return (
    <span className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="mcp-tool-server">
      MCP server {origin.server}
    </span>
  );
}
