import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FoldMemoryFile } from "@arbor/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE, GET, POST } from "@/app/api/mcp/route";
import { params, personWithToken, startTestServer, TEST_TOKEN, type TestServer } from "./support";

// Issue #13, folding over MCP for other agents, through the SDK's own Client over both
// transports: Streamable HTTP through the /api/mcp route handlers (and their token gate), and
// stdio through the `arbor-mcp` binary as an agent starts it.

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The route handlers as the client's fetch: each method to its export, as Next routes it. */
function routeFetch(token: string | undefined | (() => string)): Fetch {
  return async (url, init) => {
    const headers = new Headers(init?.headers);
    const bearer = typeof token === "function" ? token() : token;
    if (bearer !== undefined) headers.set("authorization", `Bearer ${bearer}`);
    const body = typeof init?.body === "string" ? init.body : undefined;
    // a request with a body arrives with its Content-Length
    if (body !== undefined) headers.set("content-length", String(Buffer.byteLength(body)));
    const request = new Request(url, { ...init, headers });
    const handler = { GET, POST, DELETE }[request.method as "GET" | "POST" | "DELETE"];
    return handler(request, params({}));
  };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

async function callJson(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(text(result));
  return JSON.parse(text(result));
}

describe("folding over MCP: Streamable HTTP at /api/mcp", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("refuses a client without the install's token", async () => {
    const client = new Client({ name: "no-token", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
      fetch: routeFetch(undefined),
    });
    await expect(client.connect(transport)).rejects.toThrow(/401|unauthorized|token/i);
  });

  it("folds with the token: branch, metered read_file, return scrubbed, fold_status", async () => {
    const client = new Client({ name: "http-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
        fetch: routeFetch(TEST_TOKEN),
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["branch", "return", "fold_status", "read_file"]));
    expect(names).not.toContain("bash");
    expect(names).not.toContain("write_file");
    const fold = await callJson(client, "branch", { description: "read the notes", budget: 1000 });
    const read = (await client.callTool({
      name: "read_file",
      arguments: { path: "notes.txt" },
    })) as CallToolResult;
    expect(text(read)).toContain("gamma");
    const status = await callJson(client, "fold_status");
    expect(status.active_fold_id).toBe(fold.fold_id);
    expect(status.folds[0].tokens_used).toBeGreaterThan(0);
    const back = await callJson(client, "return", {
      message: "notes hold alpha, beta, gamma; token=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    });
    expect(back.message).toBe("notes hold alpha, beta, gamma; token=[redacted]");
    expect(back.tokens_used).toBe(status.folds[0].tokens_used);
    await client.close();
  });

  it("binds an MCP session to the person who opened it: another person's request is 404", async () => {
    const member = await personWithToken(server.runtime, "member");
    let bearer = member.token;
    const client = new Client({ name: "member-agent", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
      fetch: routeFetch(() => bearer),
    });
    await client.connect(transport);
    await callJson(client, "branch", { description: "the member's fold" });
    // the same session id with the owner's credential: no such session for them
    bearer = TEST_TOKEN;
    await expect(client.callTool({ name: "fold_status", arguments: {} })).rejects.toThrow(
      /404|does not exist/,
    );
    bearer = member.token;
    expect((await callJson(client, "fold_status")).folds).toHaveLength(1);
    await client.close();
  });
});

describe("fold memories: an older version's file is moved into the database at start", () => {
  it("imports the file once, renames it, and offers its lessons over /api/mcp", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "arbor-mem-ws-"));
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-mem-data-"));
    const file = new FoldMemoryFile({ dataDir, workspace });
    const kept = file.remember("run the parser tests", "use vitest run src/parser");
    const server = await startTestServer({ WORKSPACE_DIR: workspace, ARBOR_DATA_DIR: dataDir });
    try {
      expect(existsSync(file.file)).toBe(false);
      expect(existsSync(`${file.file}.imported`)).toBe(true);
      const client = new Client({ name: "memory-agent", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
          fetch: routeFetch(TEST_TOKEN),
        }),
      );
      const opened = await callJson(client, "branch", { description: "parser tests fail" });
      expect(opened.memories).toEqual([{ id: kept.id, text: "use vitest run src/parser" }]);
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe("folding over MCP: stdio (arbor-mcp)", () => {
  const bin = fileURLToPath(new URL("../bin/arbor-mcp.mjs", import.meta.url));
  let workspace: string;
  let dataDir: string;

  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), "arbor-mcp-ws-"));
    dataDir = mkdtempSync(join(tmpdir(), "arbor-mcp-data-"));
    writeFileSync(join(workspace, "plan.md"), "# Plan\n1. parse\n2. check\n");
  });

  async function start(): Promise<Client> {
    const client = new Client({ name: "stdio-agent", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, "mcp"],
        cwd: workspace,
        env: { PATH: process.env.PATH ?? "", ARBOR_DATA_DIR: dataDir },
        stderr: "pipe",
      }),
    );
    return client;
  }

  it("serves the folding tools in the directory it is started in, and keeps lessons", async () => {
    const first = await start();
    const fold = await callJson(first, "branch", { description: "read the plan" });
    const read = (await first.callTool({
      name: "read_file",
      arguments: { path: "plan.md" },
    })) as CallToolResult;
    expect(text(read)).toContain("parse");
    expect((await callJson(first, "fold_status")).folds[0].tokens_used).toBeGreaterThan(0);
    const back = await callJson(first, "return", {
      message: "the plan has two steps",
      remember: true,
    });
    expect(back).toMatchObject({ fold_id: fold.fold_id, forced: false });
    await first.close();

    // a new process (another agent session) is offered the lesson for a similar fold
    const second = await start();
    const next = await callJson(second, "branch", { description: "update the plan" });
    expect(next.memories.map((m: { text: string }) => m.text)).toEqual(["the plan has two steps"]);
    await second.close();
  }, 60_000);
});
