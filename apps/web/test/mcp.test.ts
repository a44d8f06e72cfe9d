import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  McpPromptResponseSchema,
  McpServersResponseSchema,
  McpServerViewSchema,
} from "@arbor/core";
import { everythingServerScript, testServerScript } from "@arbor/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as prompts from "@/app/api/mcp/servers/[name]/prompts/[prompt]/route";
import * as reconnect from "@/app/api/mcp/servers/[name]/reconnect/route";
import * as servers from "@/app/api/mcp/servers/route";
import * as approvals from "@/app/api/sessions/[id]/approvals/route";
import * as messages from "@/app/api/sessions/[id]/messages/route";
import * as sessionRoute from "@/app/api/sessions/[id]/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  readSse,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #11 over the route handlers: the MCP project's `everything` reference server (stdio)
// beside a server whose command does not exist and one that takes 5 s to initialize, with the
// fake LLM server as the model.

let server: TestServer;
let slowAtStart: string | undefined;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-mcp-config-"));
  const config = join(dir, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
        ghost: { command: "arbor-no-such-mcp-server" },
        slow: {
          command: process.execPath,
          args: [testServerScript()],
          env: { SLOW_START_MS: "5000" },
        },
        fixture: { command: process.execPath, args: [testServerScript()] },
      },
    }),
  );
  server = await startTestServer({ ARBOR_MCP_CONFIG: config });
  // the runtime is up and answering while the slow server still initializes
  const first = await servers.GET(jsonRequest("GET", "/api/mcp/servers"), params({}));
  slowAtStart = McpServersResponseSchema.parse(await first.json()).servers.find(
    (s) => s.name === "slow",
  )?.status;
  await server.runtime.mcp.settled();
}, 60_000);
afterAll(() => server.close());

async function listServers() {
  const response = await servers.GET(jsonRequest("GET", "/api/mcp/servers"), params({}));
  expect(response.status).toBe(200);
  return McpServersResponseSchema.parse(await response.json()).servers;
}

function send(id: string, payload: Record<string, unknown>): Promise<Response> {
  return messages.POST(
    jsonRequest("POST", `/api/sessions/${id}/messages`, { session_id: id, payload }),
    params({ id }),
  );
}

describe("GET /api/mcp/servers", () => {
  it("answers before a slow server has initialized (it is still connecting)", () => {
    expect(slowAtStart).toBe("connecting");
  });

  it("answers each server's state and tools; the failed one with its reason", async () => {
    const list = await listServers();
    expect(list.map((s) => [s.name, s.transport, s.status])).toEqual([
      ["everything", "stdio", "connected"],
      ["fixture", "stdio", "connected"],
      ["ghost", "stdio", "failed"],
      ["slow", "stdio", "connected"],
    ]);
    const everything = list[0];
    expect(everything?.tools).toContainEqual({
      name: "get-sum",
      model_name: "mcp__everything__get-sum",
      description: expect.any(String),
    });
    expect(everything?.resources.length).toBeGreaterThan(0);
    expect(everything?.prompts.length).toBeGreaterThan(0);
    // started in the sandbox, bwrap itself reports the missing command (ENOENT without one)
    expect(list[2]?.error).toMatch(/execvp arbor-no-such-mcp-server: No such file or directory/);
    expect(server.logs.some((l) => l.message === "mcp server failed")).toBe(true);
  });

  it("needs the token like every route", async () => {
    const response = await servers.GET(new Request("http://localhost/api/mcp/servers"), params({}));
    expect(response.status).toBe(401);
  });
});

describe("POST /api/mcp/servers/{name}/reconnect", () => {
  it("retries one server and answers its state; 404 for an unknown name", async () => {
    const ghost = await reconnect.POST(
      jsonRequest("POST", "/api/mcp/servers/ghost/reconnect"),
      params({ name: "ghost" }),
    );
    expect(ghost.status).toBe(200);
    expect(McpServerViewSchema.parse(await ghost.json())).toMatchObject({ status: "failed" });
    const unknown = await reconnect.POST(
      jsonRequest("POST", "/api/mcp/servers/nobody/reconnect"),
      params({ name: "nobody" }),
    );
    expect(unknown.status).toBe(404);
  });
});

describe("POST /api/mcp/servers/{name}/prompts/{prompt}", () => {
  function expand(name: string, prompt: string, body: unknown) {
    return prompts.POST(
      jsonRequest("POST", `/api/mcp/servers/${name}/prompts/${prompt}`, body),
      params({ name, prompt }),
    );
  }

  it("answers the prompt's messages; 400 names a missing argument; 404 for unknown names", async () => {
    const ok = await expand("everything", "args-prompt", { arguments: { city: "Lisbon" } });
    expect(ok.status).toBe(200);
    expect(McpPromptResponseSchema.parse(await ok.json()).messages[0]?.text).toContain("Lisbon");
    const missing = await expand("everything", "args-prompt", {});
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { fields: Array<{ field: string }> }).fields[0]?.field).toBe(
      "arguments.city",
    );
    const badBody = await expand("everything", "args-prompt", { arguments: { city: 3 } });
    expect(badBody.status).toBe(400);
    expect((await expand("everything", "nope", {})).status).toBe(404);
    expect((await expand("ghost", "simple-prompt", {})).status).toBe(404);
    // extra body keys (the fuzz found "valueOf") are refused, each named, before any lookup
    const odd = { "~": true, c: null, valueOf: "P#>+MX 5^" };
    const refused = await expand("unknown-name", "unknown-prompt", odd);
    expect(refused.status).toBe(400);
    expect(
      ((await refused.json()) as { fields: Array<{ field: string }> }).fields.map((f) => f.field),
    ).toEqual(["~", "c", "valueOf"]);
  });
});

describe("MCP tools in a session", () => {
  it("offers the server's tools with its schema; a call waits for approval, then reaches the server", async () => {
    server.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_sum",
            name: "mcp__everything__get-sum",
            arguments: { a: 17, b: 25 },
          },
        ],
      },
      { blocks: [{ type: "text", text: "It is 42." }] },
    );
    const id = await createSessionId({
      config: { approval_policy: { type: "manual" }, approve_read_only: false },
    });
    const first = await readSse(await send(id, { type: "text", text: "add 17 and 25" }));
    expect(finalState(first)).toBe("AwaitingToolApproval");
    const waiting = first.filter((e) => e.event === "context_update").at(-1)?.data
      .current_state as { pending_requests: string[]; tool_names: string[] };
    expect(waiting.tool_names).toEqual(["mcp__everything__get-sum"]);

    // the model was offered the tool with the server's JSON Schema, unchanged
    const firstBody = server.llm.requests[0]?.body as
      | { tools: Array<{ name: string; input_schema: unknown }> }
      | undefined;
    const offered = firstBody?.tools ?? [];
    const listed = await server.runtime.mcp.connection("everything")?.client?.listTools();
    const schema = listed?.tools.find((t) => t.name === "get-sum")?.inputSchema;
    expect(offered.find((t) => t.name === "mcp__everything__get-sum")?.input_schema).toEqual(
      schema,
    );
    expect(offered.map((t) => t.name)).toContain("read_file");

    const second = await readSse(
      await approvals.POST(
        jsonRequest("POST", `/api/sessions/${id}/approvals`, {
          decisions: [{ tool_call_id: waiting.pending_requests[0], decision: "approve" }],
        }),
        params({ id }),
      ),
    );
    expect(finalState(second)).toBe("Idle");
    const toModel = JSON.stringify(server.llm.requests[1]?.body);
    expect(toModel).toContain("The sum of 17 and 25 is 42.");
    expect(toModel).toContain("call_sum");
  });
});

describe("mcp_resource messages", () => {
  it("stores the resource as an MCPResource message the model sees", async () => {
    const uri = (await listServers())[0]?.resources[0]?.uri as string;
    const read = await server.runtime.mcp.readResource("everything", uri);
    const first = read.contents[0];
    const text = first !== undefined && "text" in first ? String(first.text) : "";
    expect(text).not.toBe("");
    server.llm.enqueue({ blocks: [{ type: "text", text: "Read it." }] });
    const id = await createSessionId();
    const stream = await readSse(
      await send(id, { type: "mcp_resource", server_name: "everything", resource_uri: uri }),
    );
    expect(finalState(stream)).toBe("Idle");
    expect(JSON.stringify(server.llm.requests.at(-1)?.body)).toContain(
      JSON.stringify(text.slice(0, 40)).slice(1, -1),
    );
    const stored = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    const body = (await stored.json()) as {
      messages: Array<{ body: Record<string, unknown> }>;
    };
    expect(body.messages[0]?.body).toMatchObject({
      message_type: "mcp_resource",
      server_name: "everything",
      resource_uri: uri,
      content: text,
      retrieved_at: expect.any(String),
    });
  });

  it("refuses an unknown server or URI with 400 naming the field; nothing stored", async () => {
    const id = await createSessionId();
    const requests = server.llm.requests.length;
    for (const [payload, field] of [
      [{ server_name: "nobody", resource_uri: "demo://x" }, "payload.server_name"],
      [{ server_name: "ghost", resource_uri: "demo://x" }, "payload.server_name"],
      [{ server_name: "everything", resource_uri: "demo://no/such" }, "payload.resource_uri"],
    ] as const) {
      const response = await send(id, { type: "mcp_resource", ...payload });
      expect(response.status).toBe(400);
      const error = (await response.json()) as { fields: Array<{ field: string }> };
      expect(error.fields[0]?.field).toBe(field);
    }
    const stored = await messages.GET(
      jsonRequest("GET", `/api/sessions/${id}/messages`),
      params({ id }),
    );
    expect(((await stored.json()) as { messages: unknown[] }).messages).toEqual([]);
    expect(server.llm.requests.length).toBe(requests);
  });
});

type StoredMessage = { id: string; role: string; body: Record<string, unknown> };

async function storedMessages(id: string): Promise<StoredMessage[]> {
  const response = await messages.GET(
    jsonRequest("GET", `/api/sessions/${id}/messages`),
    params({ id }),
  );
  return ((await response.json()) as { messages: StoredMessage[] }).messages;
}

/** The Anthropic request's messages the fake LLM received last. */
function lastRequestMessages(): Array<{ role: string; content: unknown }> {
  const body = server.llm.requests.at(-1)?.body as
    | { messages: Array<{ role: string; content: unknown }> }
    | undefined;
  return body?.messages ?? [];
}

describe("images reach the model as image blocks", () => {
  it("an image resource (mcp_resource) is stored as its data and sent as an image block", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "A pixel." }] });
    const id = await createSessionId();
    const stream = await readSse(
      await send(id, {
        type: "mcp_resource",
        server_name: "fixture",
        resource_uri: "test://image/pixel.png",
      }),
    );
    expect(finalState(stream)).toBe("Idle");
    const [stored] = await storedMessages(id);
    expect(stored?.body).toMatchObject({ message_type: "mcp_resource", mime_type: "image/png" });
    const content = lastRequestMessages()[0]?.content as Array<Record<string, unknown>>;
    expect(content[0]).toMatchObject({ type: "text" });
    expect(String(content[0]?.text)).toContain("test://image/pixel.png");
    expect(content[1]).toMatchObject({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: stored?.body.content },
    });
  });

  it("an image in a tool result (get-tiny-image) is sent as an image block", async () => {
    server.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_img",
            name: "mcp__everything__get-tiny-image",
            arguments: {},
          },
        ],
      },
      { blocks: [{ type: "text", text: "Tiny." }] },
    );
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    expect(finalState(await readSse(await send(id, { type: "text", text: "an image" })))).toBe(
      "Idle",
    );
    const results = lastRequestMessages()
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: { type?: string }) => b.type === "tool_result") as Array<{
      content: Array<Record<string, unknown>>;
    }>;
    const blocks = results[0]?.content ?? [];
    expect(blocks.some((b) => b.type === "image")).toBe(true);
    expect(blocks.find((b) => b.type === "image")).toMatchObject({
      source: { type: "base64", media_type: "image/png" },
    });
  });
});

describe("mcp_prompt messages", () => {
  it("adds each of the prompt's messages as its own, with its role, and the model answers", async () => {
    server.llm.enqueue({ blocks: [{ type: "text", text: "About tea, then." }] });
    const id = await createSessionId();
    const stream = await readSse(
      await send(id, {
        type: "mcp_prompt",
        server_name: "fixture",
        prompt_name: "conversation",
        arguments: { topic: "tea" },
      }),
    );
    expect(finalState(stream)).toBe("Idle");
    const stored = await storedMessages(id);
    expect(stored.map((m) => [m.role, m.body.message_type])).toEqual([
      ["user", "text"],
      ["assistant", "text"],
      ["user", "attachment"],
      ["user", "mcp_resource"],
      ["assistant", "text"],
    ]);
    expect(stored[0]?.body.text).toBe("Let us talk about tea.");
    const detail = await sessionRoute.GET(
      jsonRequest("GET", `/api/sessions/${id}`),
      params({ id }),
    );
    expect(((await detail.json()) as { title: string }).title).toBe("Let us talk about tea");
    expect(stored[1]?.body.text).toBe("Gladly: tea it is.");
    expect(stored[3]?.body).toMatchObject({
      server_name: "fixture",
      resource_uri: "test://text/note.txt",
      content: "notes on tea",
    });
    // the model receives them as separate turns (consecutive user turns may be merged by the
    // provider adapter, but the assistant's turn stands between them)
    const sent = lastRequestMessages();
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const wire = JSON.stringify(sent);
    expect(JSON.stringify(sent[0])).toContain("Let us talk about tea.");
    expect(JSON.stringify(sent[1])).toContain("Gladly: tea it is.");
    expect(JSON.stringify(sent[2])).toContain('"type":"image"');
    expect(JSON.stringify(sent[2])).toContain("notes on tea");
    expect(wire).not.toContain("Assistant: Gladly");
  });

  it("stores a prompt that ends with the assistant's message without running the model", async () => {
    const requests = server.llm.requests.length;
    const id = await createSessionId();
    const stream = await readSse(
      await send(id, { type: "mcp_prompt", server_name: "fixture", prompt_name: "assistant-last" }),
    );
    expect(finalState(stream) ?? "Idle").toBe("Idle");
    expect(server.llm.requests.length).toBe(requests);
    const stored = await storedMessages(id);
    expect(stored.map((m) => [m.role, m.body.text])).toEqual([
      ["user", "Greet me."],
      ["assistant", "Hello!"],
    ]);
  });

  it("refuses an unknown server or prompt, or a missing argument, with 400 naming the field", async () => {
    const id = await createSessionId();
    const requests = server.llm.requests.length;
    for (const [payload, field] of [
      [{ server_name: "nobody", prompt_name: "conversation" }, "payload.server_name"],
      [{ server_name: "ghost", prompt_name: "conversation" }, "payload.server_name"],
      [{ server_name: "fixture", prompt_name: "nope" }, "payload.prompt_name"],
      [{ server_name: "fixture", prompt_name: "conversation" }, "payload.arguments.topic"],
    ] as const) {
      const response = await send(id, { type: "mcp_prompt", ...payload });
      expect(response.status).toBe(400);
      const error = (await response.json()) as { fields: Array<{ field: string }> };
      expect(error.fields[0]?.field).toBe(field);
    }
    expect(await storedMessages(id)).toEqual([]);
    expect(server.llm.requests.length).toBe(requests);
  });
});

describe("progress notifications", () => {
  it("a tool's progress streams as tool_progress events before its result", async () => {
    server.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_long",
            name: "mcp__everything__trigger-long-running-operation",
            arguments: { duration: 0.9, steps: 3 },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Done." }] },
    );
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    const stream = await readSse(await send(id, { type: "text", text: "run it" }));
    expect(finalState(stream)).toBe("Idle");
    const progress = stream.filter((e) => e.event === "tool_progress");
    expect(progress.length).toBeGreaterThan(0);
    for (const event of progress) {
      expect(event.data).toMatchObject({
        context_id: id,
        tool_call_id: "call_long",
        tool_name: "mcp__everything__trigger-long-running-operation",
        message: expect.stringMatching(/^progress [123]\/3$/),
      });
    }
    // 3/3 comes with the result: the SDK may settle the call before it handles that notification
    expect(progress.map((e) => e.data.message)).toContain("progress 2/3");
    // each before the result's message is stored
    const resultCreated = stream.findIndex(
      (e) =>
        e.event === "context_update" &&
        (e.data.message_update as { message_type?: string } | undefined)?.message_type ===
          "tool_result",
    );
    expect(resultCreated).toBeGreaterThan(stream.lastIndexOf(progress.at(-1) as never));
  });
});

describe("Plan mode", () => {
  it("offers only the MCP tools annotated readOnlyHint, and refuses a call to another", async () => {
    server.llm.enqueue(
      {
        blocks: [{ type: "toolCall", id: "call_exit", name: "mcp__fixture__exit", arguments: {} }],
      },
      { blocks: [{ type: "text", text: "Not allowed here." }] },
    );
    const id = await createSessionId({
      config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
    });
    const stream = await readSse(await send(id, { type: "text", text: "plan it" }));
    expect(finalState(stream)).toBe("Idle");
    const first = server.llm.requests.at(-2)?.body as { tools: Array<{ name: string }> };
    const offered = first.tools.map((t) => t.name);
    // the fixture's wait and the everything server's echo are read-only; exit and env are not
    expect(offered).toContain("mcp__fixture__wait");
    expect(offered).toContain("mcp__everything__echo");
    expect(offered).not.toContain("mcp__fixture__exit");
    expect(offered).not.toContain("mcp__fixture__env");
    // the call was not run: the server is still up, and the model got an error result
    const results = lastRequestMessages()
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: { type?: string }) => b.type === "tool_result") as Array<{
      tool_use_id: string;
      is_error?: boolean;
    }>;
    expect(results.find((r) => r.tool_use_id === "call_exit")?.is_error).toBe(true);
    expect((await listServers()).find((s) => s.name === "fixture")?.status).toBe("connected");
  });
});

describe("resource templates", () => {
  it("are listed per server, and a URI matching one is read and stored", async () => {
    const everything = (await listServers()).find((s) => s.name === "everything");
    const template = everything?.resource_templates.find((t) => t.uri_template.includes("/text/{"));
    expect(template?.uri_template).toBe("demo://resource/dynamic/text/{resourceId}");
    const uri = "demo://resource/dynamic/text/7";
    // not a listed resource: accepted because it matches the template
    expect(everything?.resources.some((r) => r.uri === uri)).toBe(false);
    server.llm.enqueue({ blocks: [{ type: "text", text: "Seven." }] });
    const id = await createSessionId();
    const stream = await readSse(
      await send(id, { type: "mcp_resource", server_name: "everything", resource_uri: uri }),
    );
    expect(finalState(stream)).toBe("Idle");
    const [stored] = await storedMessages(id);
    expect(stored?.body).toMatchObject({ message_type: "mcp_resource", resource_uri: uri });
    expect(String(stored?.body.content)).toContain("7");
    expect(JSON.stringify(lastRequestMessages())).toContain(uri);
  });
});

describe("error results", () => {
  it("an isError result reaches the model as an error, with the server's text", async () => {
    server.llm.enqueue(
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_fail",
            name: "mcp__fixture__fail",
            arguments: { reason: "disk full" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "It failed." }] },
    );
    const id = await createSessionId({ config: { approval_policy: { type: "auto_approve_all" } } });
    expect(finalState(await readSse(await send(id, { type: "text", text: "try it" })))).toBe(
      "Idle",
    );
    const result = lastRequestMessages()
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((b: { type?: string; tool_use_id?: string }) => b.tool_use_id === "call_fail") as
      | { is_error?: boolean; content: unknown }
      | undefined;
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toContain("it broke: disk full");
    const stored = await storedMessages(id);
    expect(stored.find((m) => m.body.message_type === "tool_result")?.body.status).toBe("error");
  });
});
