import { writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { APP_TOKEN, type ServerProcess } from "../crash/app-server.js";
import { multiInstance } from "./cluster.js";

// Issue #26, finding 6, over HTTP against the production build: Arbor's MCP server (/api/mcp)
// behind the round-robin proxy the README recommends, two instances on one PostgreSQL, each with
// its own data directory. Its sessions and the fold memories must be the database's, not one
// instance's: a real MCP SDK client through a small round-robin proxy, and lessons kept through
// one instance offered by the other.

const multi = multiInstance({ prefix: "mcp_shared" });
const proxies: Server[] = [];
test.afterEach(() => {
  for (const proxy of proxies.splice(0)) proxy.close();
});
/** Instances A and B on a new database, each with a data directory of its own. */
const twoInstances = () =>
  multi.twoInstances((ws) => writeFileSync(join(ws, "notes.txt"), "alpha\nbeta\ngamma\n"));

interface Proxied {
  backend: number;
  method: string;
  status: number;
}

/** A round-robin proxy: each request (not each connection) to the next instance in turn. */
async function roundRobin(backends: ServerProcess[]): Promise<{ url: string; log: Proxied[] }> {
  const log: Proxied[] = [];
  let next = 0;
  const proxy = createServer((req, res) => {
    const backend = next++ % backends.length;
    const target = backends[backend] as ServerProcess;
    const upstream = httpRequest(
      {
        host: "127.0.0.1",
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: `127.0.0.1:${target.port}` },
      },
      (answer) => {
        log.push({ backend, method: req.method ?? "", status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  proxies.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, log };
}

async function connect(
  base: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", base), {
    requestInit: { headers: { authorization: `Bearer ${APP_TOKEN}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

async function callJson(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(text(result));
  return JSON.parse(text(result));
}

test("two instances behind a round-robin proxy serve one /api/mcp client", async () => {
  const [a, b] = await twoInstances();
  const proxy = await roundRobin([a, b]);
  const { client, transport } = await connect(proxy.url);
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["branch", "return", "fold_status", "read_file"]));
  const fold = await callJson(client, "branch", { description: "read the notes", budget: 2000 });
  const read = (await client.callTool({
    name: "read_file",
    arguments: { path: "notes.txt" },
  })) as CallToolResult;
  expect(read.isError ?? false).toBe(false);
  expect(text(read)).toContain("gamma");
  const status = await callJson(client, "fold_status");
  expect(status.active_fold_id).toBe(fold.fold_id);
  expect(status.folds[0].tokens_used).toBeGreaterThan(0);
  const inner = await callJson(client, "branch", { description: "look closer" });
  expect(inner).toMatchObject({ depth: 2, parent_fold_id: fold.fold_id });
  const back = await callJson(client, "return", {
    message: "notes: alpha, beta, gamma",
    fold_id: fold.fold_id,
  });
  expect(back).toMatchObject({
    forced: false,
    forced_children: [inner.fold_id],
    active_fold_id: null,
  });
  // the POSTs of the one session went to both instances, and none was refused
  const posts = proxy.log.filter((r) => r.method === "POST");
  expect(posts.length).toBeGreaterThanOrEqual(7);
  expect(new Set(posts.map((r) => r.backend))).toEqual(new Set([0, 1]));
  expect(posts.filter((r) => r.status >= 400)).toEqual([]);
  // ended through one instance, it is gone on both
  const sessionId = transport.sessionId ?? "";
  expect(sessionId).not.toBe("");
  await transport.terminateSession();
  for (const app of [a, b]) {
    const gone = await fetch(`${app.url}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${APP_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(gone.status).toBe(404);
  }
  await client.close();
});

test("fold memories kept through one instance are offered through the other", async () => {
  const [a, b] = await twoInstances();
  const onA = await connect(a.url);
  await callJson(onA.client, "branch", { description: "run the parser tests" });
  await callJson(onA.client, "return", { message: "use vitest run src/parser", remember: true });
  await onA.client.close();
  const onB = await connect(b.url);
  const opened = await callJson(onB.client, "branch", { description: "parser tests fail" });
  expect(opened.memories.map((m: { text: string }) => m.text)).toEqual([
    "use vitest run src/parser",
  ]);
  await onB.client.close();
});
