import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServersResponseSchema } from "@arbor/core";
import { everythingServerScript, testServerScript } from "@arbor/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as servers from "@/app/api/mcp/servers/route";
import {
  createSessionId,
  finalState,
  jsonRequest,
  params,
  sendText,
  startTestServer,
  type TestServer,
} from "./support";

// Editing the MCP config while the app runs (issue #11 "takes effect without a restart"): the
// running app watches the file; GET /api/mcp/servers and the tools offered to the model follow.

let server: TestServer;
let config: string;

function writeConfig(mcpServers: Record<string, unknown> | string): void {
  writeFileSync(
    config,
    typeof mcpServers === "string" ? mcpServers : JSON.stringify({ mcpServers }),
  );
}

beforeAll(async () => {
  config = join(mkdtempSync(join(tmpdir(), "arbor-mcp-reload-")), "servers.json");
  writeConfig({
    everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
  });
  server = await startTestServer({ ARBOR_MCP_CONFIG: config });
  await server.runtime.mcp.settled();
}, 60_000);
afterAll(() => server.close());

async function listServers() {
  const response = await servers.GET(jsonRequest("GET", "/api/mcp/servers"), params({}));
  expect(response.status).toBe(200);
  return McpServersResponseSchema.parse(await response.json());
}

/** The tool names the model was offered in the last request. */
function offeredTools(): string[] {
  const body = server.llm.requests.at(-1)?.body as { tools?: Array<{ name: string }> } | undefined;
  return (body?.tools ?? []).map((t) => t.name);
}

describe("editing the MCP config while the app runs", () => {
  it("adds, removes and reports servers without a restart; the model's tools follow", async () => {
    const id = await createSessionId();
    server.llm.enqueue({ blocks: [{ type: "text", text: "one" }] });
    expect(finalState(await sendText(id, "first"))).toBe("Idle");
    expect(offeredTools()).toContain("mcp__everything__echo");

    writeConfig({
      fixture: { command: process.execPath, args: [testServerScript()] },
      broken: { command: "node", args: "not-an-array" },
    });
    await vi.waitFor(
      async () => {
        const list = (await listServers()).servers.map((s) => `${s.name}:${s.status}`);
        expect(list).toEqual(["broken:failed", "fixture:connected"]);
      },
      { timeout: 20_000, interval: 100 },
    );
    const broken = (await listServers()).servers.find((s) => s.name === "broken");
    expect(broken?.error).toContain("mcpServers.broken.args");

    server.llm.enqueue({ blocks: [{ type: "text", text: "two" }] });
    expect(finalState(await sendText(id, "second"))).toBe("Idle");
    expect(offeredTools()).toContain("mcp__fixture__env");
    expect(offeredTools()).not.toContain("mcp__everything__echo");

    // a file mid-edit (not JSON) is reported and keeps the servers as they were
    writeConfig("{ not json");
    await vi.waitFor(
      async () => expect((await listServers()).config_errors?.[0]?.field).toBe("(file)"),
      { timeout: 10_000, interval: 100 },
    );
    expect((await listServers()).servers.find((s) => s.name === "fixture")?.status).toBe(
      "connected",
    );
  }, 60_000);
});
