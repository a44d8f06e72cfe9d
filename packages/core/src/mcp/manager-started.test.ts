import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { recordingLogger, workspaceWithServers } from "../testing/mcp-servers.js";
import { McpManager, type McpServerStarted } from "./manager.js";

// onServerStarted (the audit log's mcp_config_loaded): once per server whose definition is loaded
// and started; not again for a reread that changes nothing; again for a changed definition; never
// for a disabled one. The servers point at a closed port: only starting matters here.

describe("McpManager onServerStarted", () => {
  const servers = (url: string) => ({
    api: { type: "http", url },
    off: { type: "http", url: "http://127.0.0.1:9/off", disabled: true },
  });
  const ws = workspaceWithServers(servers("http://127.0.0.1:9/a"));
  const started: McpServerStarted[] = [];
  const manager = new McpManager({
    configPath: ws.configPath,
    workspaceRoot: ws.root,
    env: {},
    logger: recordingLogger(),
    backoff: { initialMs: 10_000, maxMs: 10_000, maxAttempts: 1 },
    onServerStarted: (server) => started.push(server),
  });
  afterAll(() => manager.close());

  it("reports a started server once, and again only when its definition changes", async () => {
    await manager.start();
    expect(started).toEqual([
      {
        name: "api",
        file: ws.configPath,
        transport: "http",
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    const first = started[0]?.hash;
    await manager.reload();
    expect(started).toHaveLength(1);

    writeFileSync(ws.configPath, JSON.stringify({ mcpServers: servers("http://127.0.0.1:9/b") }));
    await manager.reload();
    expect(started.map((s) => s.name)).toEqual(["api", "api"]);
    expect(started[1]?.hash).not.toBe(first);
  });
});
