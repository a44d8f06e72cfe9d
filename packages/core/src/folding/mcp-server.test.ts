import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CodebaseIndex } from "../codebase/codebase-index.js";
import { inlineRunner } from "../codebase/worker-client.js";
import { FoldingMcpHttp, mcpSessionKey } from "./mcp-http.js";
import { createServedTools } from "./mcp-server.js";
import { InMemoryMcpSessionStore } from "./mcp-session-store.js";
import { FoldMemoryFile } from "./memory.js";

// The folding MCP server through the SDK's own Client over Streamable HTTP, in process: the
// client's fetch goes straight to FoldingMcpHttp.handle (the web route's test does the same
// through the route handler and its token gate; the stdio binary has its own test there).

let workspace: string;
let dataDir: string;
let index: CodebaseIndex;
const clients: Client[] = [];

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "fold-mcp-ws-"));
  dataDir = mkdtempSync(path.join(tmpdir(), "fold-mcp-data-"));
  mkdirSync(path.join(workspace, "src"));
  writeFileSync(
    path.join(workspace, "src", "config.ts"),
    "export function loadConfig(path: string) {\n  return JSON.parse(path);\n}\n",
  );
  // ~2 000 tokens of output when read whole
  writeFileSync(
    path.join(workspace, "big.txt"),
    Array.from({ length: 400 }, (_, i) => `line ${i} of a long file about configuration`).join(
      "\n",
    ),
  );
  index = new CodebaseIndex({ workspaceRoot: workspace, watch: false, runner: inlineRunner() });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function endpoint(
  budgetDefault?: number,
  store = new InMemoryMcpSessionStore(),
): FoldingMcpHttp & { store: InMemoryMcpSessionStore } {
  const memories = new FoldMemoryFile({ dataDir, workspace });
  const tools = createServedTools({ workspaceRoot: workspace, env: {}, index });
  const http = new FoldingMcpHttp({
    serve: {
      tools,
      memories,
      ...(budgetDefault ? { settings: { default_budget: budgetDefault } } : {}),
    },
    store,
  });
  return Object.assign(http, { store });
}

/** A client whose requests go to `http` (several: round robin, as instances behind a proxy). */
async function connect(http: FoldingMcpHttp | FoldingMcpHttp[], person = "u-ana"): Promise<Client> {
  const client = new Client({ name: "fold-test", version: "1.0.0" });
  const instances = Array.isArray(http) ? http : [http];
  let next = 0;
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
    fetch: (url, init) =>
      (instances[next++ % instances.length] as FoldingMcpHttp).handle(
        new Request(url, init),
        person,
      ),
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  return { result, text, isError: result.isError === true };
}

async function json(client: Client, name: string, args: Record<string, unknown> = {}) {
  const { text, isError } = await call(client, name, args);
  if (isError) throw new Error(text);
  return JSON.parse(text);
}

describe("folding MCP server over Streamable HTTP", () => {
  it("lists branch, return, fold_status and the read-only tools only", async () => {
    const client = await connect(endpoint());
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [
        "branch",
        "codebase_search",
        "find_definition",
        "find_references",
        "fold_status",
        "get_project_overview",
        "list_files",
        "read_file",
        "return",
        "search",
      ].sort(),
    );
    expect(client.getInstructions()).toContain("branch");
  });

  it("meters Arbor's tool output against the active fold, not outside one", async () => {
    const http = endpoint();
    const client = await connect(http);
    // outside a fold: nothing is counted
    await call(client, "read_file", { path: "src/config.ts" });
    const opened = await json(client, "branch", { description: "find the config loader" });
    expect(opened).toMatchObject({ depth: 1, budget: 8192, parent_fold_id: null });
    const read = await call(client, "read_file", { path: "src/config.ts" });
    expect(read.text).toContain("loadConfig");
    await call(client, "codebase_search", { query: "loadConfig" });
    const status = await json(client, "fold_status");
    expect(status.active_fold_id).toBe(opened.fold_id);
    expect(status.folds[0].tokens_used).toBeGreaterThan(20);
    const back = await json(client, "return", { message: "loadConfig is in src/config.ts" });
    expect(back).toMatchObject({
      fold_id: opened.fold_id,
      forced: false,
      message: "loadConfig is in src/config.ts",
      active_fold_id: null,
    });
    expect(back.tokens_used).toBe(status.folds[0].tokens_used);
  });

  it("warns at 80%, forces the fold at 100% and refuses tools until it returns", async () => {
    const client = await connect(endpoint());
    // what one read of big.txt costs, measured in a roomy fold
    await json(client, "branch", { description: "measure", budget: 32768 });
    await call(client, "read_file", { path: "big.txt" });
    const cost = (await json(client, "return", { message: "measured" })).tokens_used as number;
    const budget = Math.floor(cost / 0.85);
    const opened = await json(client, "branch", { description: "read a lot", budget });
    const first = await call(client, "read_file", { path: "big.txt" });
    expect(first.text).toMatch(/tokens left: finish and return\./);
    const second = await call(client, "read_file", { path: "big.txt" });
    expect(second.text).toContain(`fold ${opened.fold_id} was forced to return (budget;`);
    const refused = await call(client, "search", { pattern: "configuration" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("call return");
    const back = await json(client, "return", { message: "partial: 400 lines" });
    expect(back).toMatchObject({ forced: true, reason: "budget" });
    expect(back.message).toMatch(
      new RegExp(
        `^\\[fold forced to return: budget; ${2 * cost} of ${budget} tokens used\\] partial: 400 lines$`,
      ),
    );
    expect((await call(client, "search", { pattern: "configuration" })).isError).toBe(false);
  });

  it("allows depth 3, refuses depth 4 naming it, and scrubs secrets from returns", async () => {
    const client = await connect(endpoint());
    await json(client, "branch", { description: "one" });
    await json(client, "branch", { description: "two" });
    const third = await json(client, "branch", { description: "three" });
    expect(third.depth).toBe(3);
    const fourth = await call(client, "branch", { description: "four" });
    expect(fourth).toMatchObject({
      isError: true,
      text: "fold depth 4 exceeds the maximum depth 3",
    });
    const back = await json(client, "return", {
      message: "the key is AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    });
    expect(back.message).toBe("the key is [redacted] / [redacted]");
    const bad = await call(client, "branch", { description: "" });
    expect(bad.isError).toBe(true);
  });

  it("keeps a lesson and offers it to a later fold of another session", async () => {
    const http = endpoint();
    const first = await connect(http);
    await json(first, "branch", { description: "run the parser tests" });
    await json(first, "return", { message: "use vitest run src/parser", remember: true });
    const second = await connect(http);
    const opened = await json(second, "branch", { description: "parser tests fail" });
    expect(opened.memories.map((m: { text: string }) => m.text)).toContain(
      "use vitest run src/parser",
    );
    expect(http.store.size).toBe(2);
  });

  it("keeps each MCP session's folds apart and drops them when the session ends", async () => {
    const http = endpoint();
    const a = await connect(http);
    const b = await connect(http);
    const opened = await json(a, "branch", { description: "a's fold" });
    expect((await json(b, "fold_status")).folds).toEqual([]);
    const transport = (a as unknown as { transport: StreamableHTTPClientTransport }).transport;
    const sessionId = transport.sessionId as string;
    expect((await http.folds(sessionId))?.ledger.get(opened.fold_id)).toMatchObject({
      status: "open",
    });
    await transport.terminateSession();
    // the session and its folds are gone: nothing of them is kept
    expect(await http.folds(sessionId)).toBeUndefined();
    expect(http.store.size).toBe(1);
  });

  it("answers 400 to a request without a session that is not initialize, 404 to an unknown one", async () => {
    const http = endpoint();
    const get = await http.handle(new Request("http://localhost/api/mcp"), "u-ana");
    expect(get.status).toBe(400);
    const unknown = await http.handle(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": "nope",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
      "u-ana",
    );
    expect(unknown.status).toBe(404);
    expect(http.store.size).toBe(0);
  });
});

describe("MCP sessions kept in a store (issue #26): any instance serves any request", () => {
  it("two instances over one store serve one client, request by request in turn", async () => {
    const store = new InMemoryMcpSessionStore();
    const a = endpoint(undefined, store);
    const b = endpoint(undefined, store);
    const client = await connect([a, b]);
    const opened = await json(client, "branch", { description: "find the config loader" });
    const read = await call(client, "read_file", { path: "src/config.ts" });
    expect(read.text).toContain("loadConfig");
    const status = await json(client, "fold_status");
    expect(status.active_fold_id).toBe(opened.fold_id);
    expect(status.folds[0].tokens_used).toBeGreaterThan(20);
    const inner = await json(client, "branch", { description: "look closer" });
    expect(inner).toMatchObject({ depth: 2, parent_fold_id: opened.fold_id, fold_id: "fold-2" });
    const back = await json(client, "return", { message: "done", fold_id: opened.fold_id });
    expect(back).toMatchObject({ forced_children: ["fold-2"], active_fold_id: null });
  });

  it("parallel calls through both instances are all counted against the fold", async () => {
    const store = new InMemoryMcpSessionStore();
    const client = await connect([endpoint(undefined, store), endpoint(undefined, store)]);
    await json(client, "branch", { description: "measure", budget: 32768 });
    await call(client, "read_file", { path: "src/config.ts" });
    const one = (await json(client, "fold_status")).folds[0].tokens_used as number;
    await Promise.all(
      Array.from({ length: 8 }, () => call(client, "read_file", { path: "src/config.ts" })),
    );
    expect((await json(client, "fold_status")).folds[0].tokens_used).toBe(9 * one);
  });

  it("binds a session to the person who opened it; the id is random and only its hash is kept", async () => {
    const http = endpoint();
    const client = await connect(http, "u-ana");
    await json(client, "branch", { description: "ana's fold" });
    const sessionId = (client as unknown as { transport: StreamableHTTPClientTransport }).transport
      .sessionId as string;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await http.store.get(sessionId)).toBeUndefined();
    expect((await http.store.get(mcpSessionKey(sessionId)))?.personId).toBe("u-ana");
    const asBob = await http.handle(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "fold_status", arguments: {} },
        }),
      }),
      "u-bob",
    );
    expect(asBob.status).toBe(404);
    // Bob's DELETE does not end it either
    const deleted = await http.handle(
      new Request("http://localhost/api/mcp", {
        method: "DELETE",
        headers: { "mcp-session-id": sessionId },
      }),
      "u-bob",
    );
    expect(deleted.status).toBe(404);
    expect((await json(client, "fold_status")).folds).toHaveLength(1);
  });

  it("a session idle beyond idleMs is gone; GET (a notification stream) is 405", async () => {
    let now = 1_000_000;
    const store = new InMemoryMcpSessionStore();
    const http = new FoldingMcpHttp({
      serve: { tools: [] },
      store,
      idleMs: 60_000,
      now: () => now,
    });
    const client = await connect(http);
    const sessionId = (client as unknown as { transport: StreamableHTTPClientTransport }).transport
      .sessionId as string;
    const get = await http.handle(
      new Request("http://localhost/api/mcp", {
        headers: { "mcp-session-id": sessionId, accept: "text/event-stream" },
      }),
      "u-ana",
    );
    expect(get.status).toBe(405);
    now += 61_000;
    await expect(client.listTools()).rejects.toThrow(/404|does not exist/);
  });
});
