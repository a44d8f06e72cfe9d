import { UpdateMcpServerRequestSchema } from "@arbor/core";
import { audit } from "@/lib/server/audit";
import {
  conflict,
  HttpError,
  handle,
  json,
  noContent,
  notFound,
  readBody,
  readNoBody,
} from "@/lib/server/http";
import { serverViews } from "@/lib/server/mcp-servers";
import { getRuntime, type Runtime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ name: string }> };

/**
 * Only servers added in the settings are changed here: a workspace file's server is turned on by
 * trusting it and off by taking the trust back (/api/workspace/trust), and ARBOR_MCP_CONFIG is
 * the operator's own file.
 */
async function managedOrRefuse(
  arbor: Pick<Runtime, "mcp" | "appMcp">,
  name: string,
): Promise<void> {
  const server = (await serverViews(arbor)).find((s) => s.name === name);
  if (server === undefined) throw new HttpError(notFound(`no MCP server is named ${name}`));
  if (server.managed !== true) {
    throw new HttpError(
      conflict(
        `${name} is defined in ${server.file ?? "a file"}, not in the settings: change it there (a workspace file's server is turned on by trusting it)`,
      ),
    );
  }
}

/** Turns a server added in the settings on or off; it stays listed. */
export const PATCH = handle(
  "PATCH /api/mcp/servers/{name}",
  async (request, context: Context, actor) => {
    const { name } = await context.params;
    const { enabled } = await readBody(request, UpdateMcpServerRequestSchema);
    const arbor = await getRuntime();
    await managedOrRefuse(arbor, name);
    const changed = await arbor.appMcp.setEnabled(name, enabled);
    if (changed.type === "not_found") {
      throw new HttpError(notFound(`no MCP server is named ${name}`));
    }
    await audit(
      arbor,
      actor,
      enabled ? "mcp_server_enabled" : "mcp_server_disabled",
      `mcp_server:${name}`,
    );
    await arbor.mcp.reload();
    return json((await serverViews(arbor)).find((s) => s.name === name));
  },
);

/** Removes a server added in the settings: it stops, its tools go. */
export const DELETE = handle(
  "DELETE /api/mcp/servers/{name}",
  async (request, context: Context, actor) => {
    const { name } = await context.params;
    await readNoBody(request);
    const arbor = await getRuntime();
    await managedOrRefuse(arbor, name);
    const removed = await arbor.appMcp.remove(name);
    if (removed.type === "not_found") {
      throw new HttpError(notFound(`no MCP server is named ${name}`));
    }
    await audit(arbor, actor, "mcp_server_removed", `mcp_server:${name}`);
    await arbor.mcp.reload();
    return noContent();
  },
);
