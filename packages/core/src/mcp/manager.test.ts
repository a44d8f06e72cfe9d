// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax of mcp_servers.json
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRecordingContext } from "../../test/support/tool-test-context.js";
import { toolsForMode } from "../context/plan-act.js";
import {
  everythingServerScript,
  filesystemServerScript,
  pagedServerScript,
  recordingLogger,
  testServerScript,
  workspaceWithServers,
} from "../testing/mcp-servers.js";
import { createDefaultTools } from "../tools/builtin/default-tools.js";
import { ToolRegistry } from "../tools/registry.js";
import { type AnyAgentTool, ToolError, toolDefinition } from "../tools/tool.js";
import { McpManager } from "./manager.js";

// Against real servers: the MCP project's reference servers (everything, filesystem) over stdio,
// and fixtures/test-server.mjs (exits mid-call, waits for cancellation, changes its tool list).

const SECRET = "sk-test-never-leaves-arbor-0123456789";

function execute(tool: AnyAgentTool | undefined, args: Record<string, unknown>) {
  if (tool === undefined) throw new Error("no such tool");
  return tool.execute(args, createRecordingContext(tool.name));
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((b) => b.text ?? "").join("\n");
}

describe("McpManager over stdio", () => {
  const ws = workspaceWithServers({
    everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
    fs: { command: process.execPath, args: [filesystemServerScript(), "${FS_DIR}"] },
    test: {
      command: process.execPath,
      args: [testServerScript()],
      env: { GREETING: "${GREETING}", MARK_FILE: "${MARK_FILE}" },
    },
    missing: { command: "arbor-no-such-command-anywhere" },
    off: { command: "arbor-no-such-command-anywhere", disabled: true },
    broken: { command: "node", args: "not-an-array" },
  });
  const markFile = join(ws.root, "mark.txt");
  const logger = recordingLogger();
  const manager = new McpManager({
    configPath: ws.configPath,
    workspaceRoot: ws.root,
    env: {
      ...process.env,
      FS_DIR: ws.root,
      GREETING: "hello from the config",
      MARK_FILE: markFile,
      OPENAI_API_KEY: SECRET,
    },
    logger,
    backoff: { initialMs: 50, maxMs: 200, maxAttempts: 5 },
  });
  let registry: ToolRegistry;

  beforeAll(async () => {
    writeFileSync(join(ws.root, "note.txt"), "a note in the workspace");
    await manager.start();
    await manager.settled();
    registry = new ToolRegistry(createDefaultTools({ workspaceRoot: ws.root }), [manager]);
  }, 60_000);
  afterAll(() => manager.close());

  it("connects every enabled server, marks the missing command failed with its reason", () => {
    const servers = Object.fromEntries(manager.servers().map((s) => [s.name, s]));
    expect(servers.everything?.status).toBe("connected");
    expect(servers.fs?.status).toBe("connected");
    expect(servers.test?.status).toBe("connected");
    expect(servers.off?.status).toBe("disabled");
    expect(servers.missing?.status).toBe("failed");
    expect(servers.missing?.error).toContain("ENOENT");
    expect(servers.broken).toMatchObject({ status: "failed", transport: "stdio" });
    expect(servers.broken?.error).toContain("mcpServers.broken.args");
    expect(logger.lines.some((l) => l.level === "error" && l.fields?.server === "missing")).toBe(
      true,
    );
  });

  it("lists the everything server's tools, resources and prompts", () => {
    const everything = manager.servers().find((s) => s.name === "everything");
    const toolNames = everything?.tools.map((t) => t.name) ?? [];
    expect(toolNames).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    expect(everything?.tools.find((t) => t.name === "echo")?.model_name).toBe(
      "mcp__everything__echo",
    );
    expect(everything?.resources.length).toBeGreaterThan(0);
    expect(everything?.prompts.length).toBeGreaterThan(0);
  });

  it("gives the model the server's JSON Schema exactly", async () => {
    const client = manager.connection("everything")?.client;
    const listed = await client?.listTools();
    const sum = listed?.tools.find((t) => t.name === "get-sum");
    const tool = registry.get("mcp__everything__get-sum");
    expect(tool).toBeDefined();
    expect(toolDefinition(tool as AnyAgentTool).parameters).toEqual(sum?.inputSchema);
    expect(tool?.origin).toEqual({ kind: "mcp", server: "everything", tool: "get-sum" });
  });

  it("calls echo and get-sum through the registry", async () => {
    const echo = await execute(registry.get("mcp__everything__echo"), { message: "hi there" });
    expect(textOf(echo)).toContain("hi there");
    const sum = await execute(registry.get("mcp__everything__get-sum"), { a: 2, b: 3 });
    expect(textOf(sum)).toContain("5");
  });

  it("reads a resource the server lists", async () => {
    const uri = manager.servers().find((s) => s.name === "everything")?.resources[0]?.uri;
    expect(uri).toBeDefined();
    const read = await manager.readResource("everything", uri as string);
    expect(read.contents[0]?.uri).toBe(uri);
    expect(manager.resourceProblem("everything", uri as string)).toBeUndefined();
    expect(manager.resourceProblem("nobody", "x://y")?.field).toBe("server_name");
    expect(manager.resourceProblem("missing", "x://y")?.field).toBe("server_name");
    expect(manager.resourceProblem("everything", "demo://no/such")?.field).toBe("resource_uri");
    await expect(manager.readResource("nobody", "x://y")).rejects.toMatchObject({
      field: "server_name",
    });
    await expect(manager.readResource("everything", "demo://no/such")).rejects.toMatchObject({
      field: "resource_uri",
    });
  });

  it("expands a prompt with its arguments, and names a missing required one", async () => {
    const simple = await manager.promptMessages("everything", "simple-prompt", {});
    expect(simple.messages).toEqual([
      { role: "user", text: "This is a simple prompt without arguments." },
    ]);
    const prompts = manager.servers().find((s) => s.name === "everything")?.prompts ?? [];
    const args = prompts.find((p) => p.name === "args-prompt")?.arguments ?? [];
    const required = args.find((a) => a.required)?.name as string;
    await expect(manager.promptMessages("everything", "args-prompt", {})).rejects.toMatchObject({
      field: `arguments.${required}`,
    });
    const filled = await manager.promptMessages(
      "everything",
      "args-prompt",
      Object.fromEntries(args.map((a) => [a.name, "Lisbon"])),
    );
    expect(filled.messages[0]?.text).toContain("Lisbon");
    await expect(manager.promptMessages("everything", "nope", {})).rejects.toMatchObject({
      field: "prompt_name",
    });
  });

  it("keeps the built-in read_file beside the filesystem server's", async () => {
    const names = registry.list().map((t) => t.name);
    expect(names).toContain("read_file");
    expect(names).toContain("mcp__fs__read_file");
    expect(registry.origin("read_file")).toEqual({ kind: "builtin" });
    const result = await execute(registry.get("mcp__fs__read_file"), {
      path: join(ws.root, "note.txt"),
    });
    expect(textOf(result)).toContain("a note in the workspace");
    for (const tool of registry.list()) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("offers in plan mode only the tools the server marks readOnlyHint", () => {
    const plan = toolsForMode(registry.list(), "plan", "actor").map((t) => t.name);
    expect(plan).toContain("mcp__everything__echo");
    expect(plan).toContain("mcp__test__wait");
    expect(plan).not.toContain("mcp__test__exit");
    expect(plan).not.toContain("mcp__fs__write_file");
  });

  it("starts stdio servers with the scrubbed environment plus their own env", async () => {
    const result = await execute(registry.get("mcp__test__env"), {});
    const env = JSON.parse(textOf(result)) as Record<string, string>;
    expect(env.GREETING).toBe("hello from the config");
    expect(env.WORKSPACE_DIR).toBe(ws.root);
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain(SECRET);
  });

  it("sends notifications/cancelled when the run's signal aborts a call", async () => {
    const tool = registry.get("mcp__test__wait") as AnyAgentTool;
    const ctx = createRecordingContext(tool.name);
    const call = tool.execute({}, ctx);
    call.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    ctx.controller.abort();
    await expect(call).rejects.toBeInstanceOf(ToolError);
    // the server's writeFileSync makes the file, then writes it: wait for the text, not the file
    await vi.waitFor(
      () => expect(existsSync(markFile) && readFileSync(markFile, "utf8")).toBe("cancelled"),
      { timeout: 10_000 },
    );
  });

  it("refreshes the tools on notifications/tools/list_changed", async () => {
    expect(registry.get("mcp__test__added")).toBeUndefined();
    await execute(registry.get("mcp__test__add-tool"), {});
    await vi.waitFor(() => expect(registry.get("mcp__test__added")).toBeDefined(), {
      timeout: 10_000,
    });
    expect(textOf(await execute(registry.get("mcp__test__added"), {}))).toBe("added ran");
  });

  it("ends a call in flight with an error when the server exits, then reconnects", async () => {
    const call = execute(registry.get("mcp__test__exit"), {});
    await expect(call).rejects.toThrow(/MCP server test/);
    expect(registry.get("mcp__test__exit")).toBeUndefined();
    await vi.waitFor(
      () => expect(manager.servers().find((s) => s.name === "test")?.status).toBe("connected"),
      { timeout: 15_000 },
    );
    expect(registry.get("mcp__test__exit")).toBeDefined();
    expect(manager.servers().find((s) => s.name === "everything")?.status).toBe("connected");
  });

  it("retries one server on reconnect", async () => {
    expect(await manager.reconnect("nobody")).toBe(false);
    expect(await manager.reconnect("missing")).toBe(true);
    expect(manager.servers().find((s) => s.name === "missing")?.status).toBe("failed");
    expect(await manager.reconnect("everything")).toBe(true);
    expect(manager.servers().find((s) => s.name === "everything")?.status).toBe("connected");
  });
});

describe("McpManager: a server that dies and cannot come back", () => {
  const ws = workspaceWithServers({
    flaky: {
      command: process.execPath,
      args: [testServerScript()],
      env: { REFUSE_FILE: "${REFUSE_FILE}" },
    },
  });
  const refuseFile = join(ws.root, "refuse");
  const logger = recordingLogger();
  const manager = new McpManager({
    configPath: ws.configPath,
    workspaceRoot: ws.root,
    env: { ...process.env, REFUSE_FILE: refuseFile },
    logger,
    backoff: { initialMs: 100, maxMs: 400, maxAttempts: 4 },
  });

  beforeAll(async () => {
    await manager.start();
    await manager.settled();
  }, 30_000);
  afterAll(() => manager.close());

  it("retries with doubling delays up to the cap, then marks it failed; reconnect brings it back", async () => {
    const flaky = () => manager.servers().find((s) => s.name === "flaky");
    expect(flaky()?.status).toBe("connected");
    // each "reconnecting (attempt N)" state, with when it was entered
    const attempts: Array<{ attempt: number; at: number }> = [];
    const stop = manager.onChange(() => {
      const match = /reconnecting \(attempt (\d+)\)/.exec(flaky()?.error ?? "");
      const attempt = Number(match?.[1]);
      if (match && attempts.at(-1)?.attempt !== attempt) {
        attempts.push({ attempt, at: performance.now() });
      }
    });
    writeFileSync(refuseFile, "");
    const registry = new ToolRegistry([], [manager]);
    await expect(execute(registry.get("mcp__flaky__exit"), {})).rejects.toThrow(/MCP server flaky/);
    await vi.waitFor(() => expect(flaky()?.status).toBe("failed"), {
      timeout: 15_000,
      interval: 20,
    });
    stop();
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    // attempt N+1 is scheduled after attempt N's delay (100, 200, 400 ms, capped at 400) has
    // passed and its start has failed
    const gaps = attempts.slice(1).map((a, i) => a.at - (attempts[i] as { at: number }).at);
    expect(gaps[0]).toBeGreaterThanOrEqual(95);
    expect(gaps[1]).toBeGreaterThanOrEqual(195);
    expect(gaps[2]).toBeGreaterThanOrEqual(395);
    expect(flaky()?.error).toContain("refusing to start");
    expect(registry.get("mcp__flaky__exit")).toBeUndefined();
    expect(logger.lines.some((l) => l.message === "mcp server disconnected")).toBe(true);

    rmSync(refuseFile);
    expect(await manager.reconnect("flaky")).toBe(true);
    expect(flaky()?.status).toBe("connected");
    expect(registry.get("mcp__flaky__exit")).toBeDefined();
  }, 30_000);
});

describe("McpManager: paged lists and call timeouts", () => {
  const ws = workspaceWithServers({
    paged: { command: process.execPath, args: [pagedServerScript()] },
    test: { command: process.execPath, args: [testServerScript()] },
  });
  const manager = new McpManager({
    configPath: ws.configPath,
    workspaceRoot: ws.root,
    env: process.env,
    logger: recordingLogger(),
    callTimeoutMs: 300,
  });

  beforeAll(async () => {
    await manager.start();
    await manager.settled();
  }, 30_000);
  afterAll(() => manager.close());

  it("follows nextCursor through every page of tools/list and resources/list", async () => {
    const paged = manager.servers().find((s) => s.name === "paged");
    expect(paged?.tools.map((t) => t.name)).toEqual(["first", "second", "third"]);
    expect(paged?.resources.map((r) => r.uri)).toEqual(["paged://one", "paged://two"]);
    const registry = new ToolRegistry([], [manager]);
    expect(textOf(await execute(registry.get("mcp__paged__third"), {}))).toBe("third ran");
  });

  it("ends a call the server never answers after the timeout, with an error", async () => {
    const registry = new ToolRegistry([], [manager]);
    const started = performance.now();
    await expect(execute(registry.get("mcp__test__wait"), {})).rejects.toThrow(/timed out/i);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(manager.servers().find((s) => s.name === "test")?.status).toBe("connected");
  });
});
