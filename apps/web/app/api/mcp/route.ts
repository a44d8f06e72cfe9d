import { handle } from "@/lib/server/http";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Arbor as an MCP server (Streamable HTTP) for other agents: folding and the read-only tools.
// The gate (credential, host, origin, authorize()) is handle()'s, as for every route; the MCP
// sessions are the runtime's FoldingMcpHttp (core folding/mcp-http.ts), kept in the database and
// bound to the person who opened each: any instance serves any request of a session.

export const POST = handle("POST /api/mcp", async (request, _context, actor) =>
  (await getRuntime()).foldingMcp.handle(request, actor.id),
);
export const GET = handle("GET /api/mcp", async (request, _context, actor) =>
  (await getRuntime()).foldingMcp.handle(request, actor.id),
);
export const DELETE = handle("DELETE /api/mcp", async (request, _context, actor) =>
  (await getRuntime()).foldingMcp.handle(request, actor.id),
);
