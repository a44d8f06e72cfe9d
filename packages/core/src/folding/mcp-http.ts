import { createHash, randomBytes } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  FoldSession,
  type FoldSessionSnapshot,
  FoldSessionSnapshotSchema,
} from "./fold-session.js";
import {
  createFoldingMcpServer,
  type FoldAccess,
  type FoldingMcpOptions,
  foldSessionOptions,
} from "./mcp-server.js";
import type { McpSessionStore } from "./mcp-session-store.js";

// The Streamable HTTP side of the folding MCP server: standard Requests in, Responses out, so a
// Next route handler (apps/web/app/api/mcp/route.ts) or any fetch-style server can serve it.
//
// Nothing of a session lives in this process between requests (issue #26): behind a round-robin
// proxy the next request of a session reaches another instance. `initialize` creates the session
// in the store (an unguessable id, bound to the person who sent it); every later request is
// checked against the store here (the id, the person, the idle time) and then served by a new
// McpServer on a stateless SDK transport, whose folds are read from the store and written back
// with each change (FoldAccess). The SDK's multi-node pattern "stateless transport, session
// state in shared storage". Answers are JSON (no SSE stream to keep), and GET — a stream for
// server-sent notifications, which this server never sends — is 405, as the spec allows.

export interface FoldingMcpHttpOptions {
  /** what each session's server serves (tools, memories, fold settings) */
  serve: Omit<FoldingMcpOptions, "folds">;
  /** where the sessions are kept (the database, for several instances) */
  store: McpSessionStore;
  /** a person's sessions beyond this many: their least recently used goes (default 100) */
  maxSessions?: number;
  /** a session unused this long is gone (default one hour) */
  idleMs?: number;
  /** POST bodies larger than this are answered 413 (default: the SDK's 4 MiB) */
  maxBodyBytes?: number;
  now?: () => number;
}

/** The store's key of a session id: its SHA-256 (the ids themselves are never stored). */
export function mcpSessionKey(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("hex");
}

/** The retries of a change that kept meeting another request's change of the same folds. */
const SAVE_ATTEMPTS = 20;

export class FoldingMcpHttp {
  readonly #options: FoldingMcpHttpOptions;
  readonly #store: McpSessionStore;
  readonly #now: () => number;
  readonly #idleMs: number;

  constructor(options: FoldingMcpHttpOptions) {
    this.#options = options;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#idleMs = options.idleMs ?? 60 * 60 * 1000;
  }

  /** The folds of an MCP session as they are stored (status views and tests). */
  async folds(sessionId: string): Promise<FoldSession | undefined> {
    const row = await this.#store.get(mcpSessionKey(sessionId));
    return row === undefined ? undefined : this.#restore(row.state);
  }

  /** Serves one request of `personId` (the route has checked the credential and authorize()). */
  async handle(request: Request, personId: string): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) {
      if (request.method !== "POST")
        return rpcError(400, -32000, "the Mcp-Session-Id header is required (initialize first)");
      return this.#start(request, personId);
    }
    const key = mcpSessionKey(sessionId);
    const now = this.#now();
    const row = await this.#store.get(key);
    // another person's session answers as an unknown one: ids are not confirmed to guessers
    if (row === undefined || row.personId !== personId || now - row.lastUsedAt > this.#idleMs) {
      return rpcError(404, -32001, `MCP session ${sessionId} does not exist (or ended)`);
    }
    if (request.method === "DELETE") {
      // the session's folds go with it: nothing of them is kept
      await this.#store.delete(key);
      return new Response(null, { status: 200 });
    }
    if (request.method !== "POST") {
      return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
    }
    await this.#store.touch(key, now);
    const { server } = createFoldingMcpServer({ ...this.#options.serve, folds: this.#access(key) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      // the session was checked above: the transport serves this one request
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      ...this.#bodyLimit(),
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close().catch(() => undefined);
    }
  }

  /** Nothing to end here: the sessions live in the store. */
  async close(): Promise<void> {}

  async #start(request: Request, personId: string): Promise<Response> {
    const now = this.#now();
    // 256 random bits: a session cannot be guessed, only handed over
    const sessionId = randomBytes(32).toString("base64url");
    const key = mcpSessionKey(sessionId);
    const initial = JSON.stringify(new FoldSession().snapshot());
    const { server } = createFoldingMcpServer({ ...this.#options.serve, folds: this.#access(key) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      enableJsonResponse: true,
      ...this.#bodyLimit(),
      // only an initialize request gets here: a session exists once it is stored
      onsessioninitialized: async () => {
        await this.#store.create(key, { personId, state: initial, now });
        await this.#store.trim(personId, this.#options.maxSessions ?? 100);
        await this.#store.prune(now - this.#idleMs);
      },
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close().catch(() => undefined);
    }
  }

  /** The stored folds of session `key`: read, changed, written back unless changed meanwhile. */
  #access(key: string): FoldAccess {
    return {
      use: async (change) => {
        for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
          const row = await this.#store.get(key);
          if (row === undefined) throw new Error("this MCP session has ended");
          const folds = this.#restore(row.state);
          const value = await change(folds);
          const state = JSON.stringify(folds.snapshot());
          if (state === row.state) return value;
          if (await this.#store.save(key, state, row.version, this.#now())) return value;
          // another request of the session wrote first: redo the change on what it wrote
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
        }
        throw new Error("the MCP session's folds kept changing; try again");
      },
    };
  }

  #restore(state: string): FoldSession {
    let snapshot: FoldSessionSnapshot;
    try {
      snapshot = FoldSessionSnapshotSchema.parse(JSON.parse(state));
    } catch {
      throw new Error("this MCP session's stored folds are unreadable");
    }
    return new FoldSession({ ...foldSessionOptions(this.#options.serve), restore: snapshot });
  }

  #bodyLimit() {
    return this.#options.maxBodyBytes !== undefined
      ? { maxRequestBodySize: this.#options.maxBodyBytes }
      : {};
  }
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
