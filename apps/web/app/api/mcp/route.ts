import { handle } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Arbor as an MCP server (Streamable HTTP) for other agents: folding and the read-only tools.
// The gate (token, host, origin) is handle()'s, as for every route; the MCP sessions are the
// runtime's FoldingMcpHttp (core folding/mcp-http.ts).

const serve = async (request: Request): Promise<Response> =>
  (await getRuntime()).foldingMcp.handle(request);

export const POST = handle("POST /api/mcp", serve);
export const GET = handle("GET /api/mcp", serve);
export const DELETE = handle("DELETE /api/mcp", serve);
