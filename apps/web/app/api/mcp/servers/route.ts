import { AddMcpServerRequestSchema, type McpServersResponse } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import { badRequest, conflict, HttpError, handle, json, readBody } from "@/lib/server/http";
import { serverViews } from "@/lib/server/mcp-servers";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The MCP servers of mcp_servers.json: state, error, tools, resources, prompts. */
export const GET = handle("GET /api/mcp/servers", async () => {
  const arbor = await getRuntime();
  const configErrors = arbor.mcp.configErrors();
  const body: McpServersResponse = {
    servers: await serverViews(arbor),
    ...(configErrors.length > 0
      ? { config_errors: configErrors.map(({ field, message }) => ({ field, message })) }
      : {}),
  };
  return json(body);
});

/**
 * Adds a server to the app's own (the database's, out of the tools' reach; every instance reads
 * it): an admin's act trusts it, and the audit log records it. It starts at once here, and on the
 * other instances within their poll.
 */
export const POST = handle("POST /api/mcp/servers", async (request, _context, actor) => {
  const { name, ...entry } = await readBody(request, AddMcpServerRequestSchema);
  const arbor = await getRuntime();
  // a name any file already uses would be hidden behind it: refused, whoever defined it
  if (arbor.mcp.servers().some((server) => server.name === name)) {
    throw new HttpError(conflict(`an MCP server is already named ${name}`));
  }
  const added = await arbor.appMcp.add(name, entry, { id: actor.id, name: actor.name });
  switch (added.type) {
    case "exists":
      throw new HttpError(conflict(`an MCP server is already named ${name}`));
    case "invalid":
      throw new HttpError(badRequest([{ field: added.field, message: added.message }]));
    case "added":
      break;
    default:
      return added satisfies never;
  }
  await audit(arbor, actor, "mcp_server_added", `mcp_server:${name}`, {
    transport: entry.command !== undefined ? "stdio" : "http",
    hash: added.hash,
  });
  await arbor.mcp.reload();
  const server = (await serverViews(arbor)).find((s) => s.name === name);
  return json(server, 201);
});
