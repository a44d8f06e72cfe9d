import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { FoldingMcpServer } from "./mcp-server.js";

// The Streamable HTTP side of the folding MCP server: standard Requests in, Responses out, so a
// Next route handler (apps/web/app/api/mcp/route.ts) or any fetch-style server can serve it.
// Each MCP session (the `Mcp-Session-Id` the server hands out at `initialize`) has its own
// McpServer, transport and fold session. The credential is checked before this (the app's
// request gate); here only sessions are kept: an idle one is dropped after `idleMs`, and beyond
// `maxSessions` the least recently used goes (its open folds forced `cancelled`).

export interface FoldingMcpHttpOptions {
  /** a new server (and fold session) for each MCP session */
  create: () => FoldingMcpServer;
  maxSessions?: number;
  idleMs?: number;
  /** POST bodies larger than this are answered 413 (default: the SDK's 4 MiB) */
  maxBodyBytes?: number;
  now?: () => number;
}

interface Live {
  transport: WebStandardStreamableHTTPServerTransport;
  mcp: FoldingMcpServer;
  lastUsed: number;
}

export class FoldingMcpHttp {
  readonly #options: FoldingMcpHttpOptions;
  readonly #sessions = new Map<string, Live>();
  readonly #now: () => number;

  constructor(options: FoldingMcpHttpOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The fold session of an MCP session (for status views and tests). */
  folds(sessionId: string): FoldingMcpServer["folds"] | undefined {
    return this.#sessions.get(sessionId)?.mcp.folds;
  }

  async handle(request: Request): Promise<Response> {
    const now = this.#now();
    await this.#dropIdle(now);
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const live = this.#sessions.get(sessionId);
      if (live === undefined)
        return rpcError(404, -32001, `MCP session ${sessionId} does not exist (or ended)`);
      live.lastUsed = now;
      return live.transport.handleRequest(request);
    }
    if (request.method !== "POST")
      return rpcError(400, -32000, "the Mcp-Session-Id header is required (initialize first)");
    return this.#start(request, now);
  }

  /** Ends every session (the server stops). */
  async close(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.#end(id)));
  }

  async #start(request: Request, now: number): Promise<Response> {
    const max = this.#options.maxSessions ?? 100;
    while (this.#sessions.size >= max) {
      const oldest = [...this.#sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest === undefined) break;
      await this.#end(oldest[0]);
    }
    const mcp = this.#options.create();
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // answers as JSON: nothing here streams, and proxies pass JSON as it is
        enableJsonResponse: true,
        ...(this.#options.maxBodyBytes !== undefined
          ? { maxRequestBodySize: this.#options.maxBodyBytes }
          : {}),
        onsessioninitialized: (id) => {
          this.#sessions.set(id, { transport, mcp, lastUsed: now });
        },
        onsessionclosed: (id) => {
          this.#sessions.delete(id);
          mcp.folds.closeAll("cancelled");
        },
      });
    await mcp.server.connect(transport);
    const response = await transport.handleRequest(request);
    // not an initialize request: the transport refused it, and nothing keeps this server
    if (transport.sessionId === undefined) await mcp.server.close();
    return response;
  }

  async #dropIdle(now: number): Promise<void> {
    const idle = this.#options.idleMs ?? 60 * 60 * 1000;
    for (const [id, live] of this.#sessions) {
      if (now - live.lastUsed > idle) await this.#end(id);
    }
  }

  async #end(id: string): Promise<void> {
    const live = this.#sessions.get(id);
    if (live === undefined) return;
    this.#sessions.delete(id);
    live.mcp.folds.closeAll("cancelled");
    await live.mcp.server.close().catch(() => undefined);
  }
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
