import type { McpServerView } from "@arbor/core";
import type { Runtime } from "./runtime";

/**
 * Every MCP server as the API shows it; those added in the settings (the app's own config in the
 * data directory) are marked `managed`: only they can be turned on or off and removed there.
 */
export function serverViews(arbor: Pick<Runtime, "mcp" | "appMcp">): McpServerView[] {
  return arbor.mcp
    .servers()
    .map((server) => (server.file === arbor.appMcp.path ? { ...server, managed: true } : server));
}
