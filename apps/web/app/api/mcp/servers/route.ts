import type { McpServersResponse } from "@arbor/core";
import { handle, json } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The MCP servers of mcp_servers.json: state, error, tools, resources, prompts. */
export const GET = handle("GET /api/mcp/servers", async () => {
  const { mcp } = await getRuntime();
  const configErrors = mcp.configErrors();
  const body: McpServersResponse = {
    servers: mcp.servers(),
    ...(configErrors.length > 0
      ? { config_errors: configErrors.map(({ field, message }) => ({ field, message })) }
      : {}),
  };
  return json(body);
});
