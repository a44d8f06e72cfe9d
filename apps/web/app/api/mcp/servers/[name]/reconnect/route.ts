import { isMcpLookupError, type McpServerView } from "@arbor/core";
import { conflict, HttpError, handle, json, notFound, readNoBody } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ name: string }> };

/** Drops the server's connection and connects again; answers the server once that has ended. */
export const POST = handle(
  "POST /api/mcp/servers/{name}/reconnect",
  async (request, context: Context) => {
    const { name } = await context.params;
    await readNoBody(request);
    const { mcp } = await getRuntime();
    // an untrusted server is not started, whoever asks (GET /api/workspace/trust)
    const reconnected = await mcp.reconnect(name).catch((error: unknown) => {
      if (isMcpLookupError(error)) throw new HttpError(conflict(error.message));
      throw error;
    });
    if (!reconnected) {
      throw new HttpError(notFound(`no enabled MCP server is named ${name}`));
    }
    const server: McpServerView | undefined = mcp.servers().find((s) => s.name === name);
    if (server === undefined) throw new HttpError(notFound(`no MCP server is named ${name}`));
    return json(server);
  },
);
