import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRecordingContext } from "../../test/support/tool-test-context.js";
import {
  everythingServerScript,
  recordingLogger,
  workspaceWithServers,
} from "../testing/mcp-servers.js";
import { McpManager } from "./manager.js";

// The everything reference server over HTTP: its Streamable HTTP mode at /mcp, and its older
// HTTP+SSE mode at /sse, which the client reaches by falling back after Streamable HTTP fails.
// Also: editing mcp_servers.json while the manager watches it.

const STREAMABLE_PORT = Number(process.env.MCP_TEST_HTTP_PORT ?? 4604);
const SSE_PORT = Number(process.env.MCP_TEST_SSE_PORT ?? 4605);

function startServer(mode: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [everythingServerScript(), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running/i.test(output)) resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${mode} server exited ${code}: ${output}`)));
  });
}

describe("McpManager over HTTP", () => {
  const children: ChildProcess[] = [];
  const ws = workspaceWithServers({
    streamable: { url: `http://127.0.0.1:${STREAMABLE_PORT}/mcp` },
    legacy: { url: `http://127.0.0.1:${SSE_PORT}/sse` },
  });
  const manager = new McpManager({
    configPath: ws.configPath,
    workspaceRoot: ws.root,
    env: process.env,
    logger: recordingLogger(),
  });

  beforeAll(async () => {
    children.push(await startServer("streamableHttp", STREAMABLE_PORT));
    children.push(await startServer("sse", SSE_PORT));
    await manager.start();
    await manager.settled();
  }, 60_000);
  afterAll(async () => {
    await manager.close();
    for (const child of children) child.kill();
  });

  it("connects with Streamable HTTP, and falls back to HTTP+SSE for an SSE-only server", () => {
    const servers = Object.fromEntries(manager.servers().map((s) => [s.name, s]));
    expect(servers.streamable).toMatchObject({ status: "connected", transport: "http" });
    expect(servers.legacy).toMatchObject({ status: "connected", transport: "sse" });
  });

  it("calls a tool over each transport", async () => {
    for (const server of ["streamable", "legacy"]) {
      const tool = manager.tools().find((t) => t.name === `mcp__${server}__get-sum`);
      expect(tool, server).toBeDefined();
      const result = await tool?.execute({ a: 20, b: 22 }, createRecordingContext());
      expect(JSON.stringify(result?.content)).toContain("42");
    }
  });

  it("reloads when mcp_servers.json changes", async () => {
    await manager.watch();
    writeFileSync(
      ws.configPath,
      JSON.stringify({
        mcpServers: {
          streamable: { url: `http://127.0.0.1:${STREAMABLE_PORT}/mcp` },
          local: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
        },
      }),
    );
    await vi.waitFor(
      () => {
        const names = manager.servers().map((s) => `${s.name}:${s.status}`);
        expect(names).toEqual(["local:connected", "streamable:connected"]);
      },
      { timeout: 20_000, interval: 100 },
    );
    writeFileSync(ws.configPath, "{ not json");
    await vi.waitFor(() => expect(manager.configErrors()[0]?.field).toBe("(file)"), {
      timeout: 10_000,
    });
    // a file mid-edit keeps the servers running
    expect(manager.servers().map((s) => s.status)).toEqual(["connected", "connected"]);
  });
});
