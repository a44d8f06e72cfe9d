import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AuditListResponseSchema,
  McpServersResponseSchema,
  McpServerViewSchema,
} from "@arbor/core";
import { everythingServerScript } from "@arbor/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/audit/route";
import * as serverRoute from "@/app/api/mcp/servers/[name]/route";
import * as servers from "@/app/api/mcp/servers/route";
import { jsonRequest, params, personWithToken, startTestServer, type TestServer } from "./support";

// Issue #27: MCP servers added, turned off and on, and removed in the settings, by an admin. The
// MCP project's `everything` reference server (stdio) is the server; ARBOR_MCP_CONFIG names the
// operator's own file with one server, which the settings cannot change.

let server: TestServer;
let dataDir: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-mcp-settings-"));
  dataDir = join(dir, "data");
  const config = join(dir, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { operators: { command: "arbor-no-such" } } }),
  );
  server = await startTestServer({ ARBOR_MCP_CONFIG: config, ARBOR_DATA_DIR: dataDir });
}, 60_000);
afterAll(() => server.close());

async function list() {
  const response = await servers.GET(jsonRequest("GET", "/api/mcp/servers"), params({}));
  expect(response.status).toBe(200);
  return McpServersResponseSchema.parse(await response.json()).servers;
}

async function auditActions(): Promise<string[]> {
  const response = await auditRoute.GET(jsonRequest("GET", "/api/audit"), params({}));
  return AuditListResponseSchema.parse(await response.json()).entries.map(
    (e) => `${e.action} ${e.target}`,
  );
}

const add = (body: unknown, authorization?: string) => {
  const request = jsonRequest("POST", "/api/mcp/servers", body);
  if (authorization) request.headers.set("authorization", authorization);
  return servers.POST(request, params({}));
};

describe("MCP servers in the settings", () => {
  it("an admin adds a server: it is trusted by that act, starts, offers its tools, and is audited", async () => {
    const added = await add({
      name: "everything",
      command: process.execPath,
      args: [everythingServerScript(), "stdio"],
    });
    expect(added.status).toBe(201);
    expect(McpServerViewSchema.parse(await added.json())).toMatchObject({
      name: "everything",
      managed: true,
    });
    await server.runtime.mcp.settled();
    const everything = (await list()).find((s) => s.name === "everything");
    expect(everything?.status).toBe("connected");
    expect(everything?.tools.map((t) => t.model_name)).toContain("mcp__everything__echo");
    expect(server.runtime.mcp.tools().map((t) => t.name)).toContain("mcp__everything__echo");
    expect(await auditActions()).toContain("mcp_server_added mcp_server:everything");
    // the operator's file is listed, not managed
    expect((await list()).find((s) => s.name === "operators")?.managed).toBeUndefined();
  }, 60_000);

  it("turns it off (its tools go, it stays listed) and on again", async () => {
    const off = await serverRoute.PATCH(
      jsonRequest("PATCH", "/api/mcp/servers/everything", { enabled: false }),
      params({ name: "everything" }),
    );
    expect(off.status).toBe(200);
    expect((await list()).find((s) => s.name === "everything")?.status).toBe("disabled");
    expect(server.runtime.mcp.tools().map((t) => t.name)).not.toContain("mcp__everything__echo");
    const on = await serverRoute.PATCH(
      jsonRequest("PATCH", "/api/mcp/servers/everything", { enabled: true }),
      params({ name: "everything" }),
    );
    expect(on.status).toBe(200);
    await server.runtime.mcp.settled();
    expect(server.runtime.mcp.tools().map((t) => t.name)).toContain("mcp__everything__echo");
    const actions = await auditActions();
    expect(actions).toContain("mcp_server_disabled mcp_server:everything");
    expect(actions).toContain("mcp_server_enabled mcp_server:everything");
  }, 60_000);

  it("refuses a taken name, a bad entry naming its field, and a server of a file", async () => {
    expect((await add({ name: "operators", command: "x" })).status).toBe(409);
    const bad = await add({ name: "remote", url: "ftp://example.com" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { fields: { field: string }[] }).fields[0]?.field).toBe("url");
    const both = await add({ name: "both", command: "x", url: "https://example.com/mcp" });
    expect(both.status).toBe(400);
    const fromFile = await serverRoute.PATCH(
      jsonRequest("PATCH", "/api/mcp/servers/operators", { enabled: false }),
      params({ name: "operators" }),
    );
    expect(fromFile.status).toBe(409);
    const unknown = await serverRoute.DELETE(
      jsonRequest("DELETE", "/api/mcp/servers/nobody"),
      params({ name: "nobody" }),
    );
    expect(unknown.status).toBe(404);
  });

  it("a member may not add one", async () => {
    const member = await personWithToken(server.runtime, "member");
    const refused = await add({ name: "mine", command: "node" }, member.authorization);
    expect(refused.status).toBe(403);
    expect((await list()).some((s) => s.name === "mine")).toBe(false);
  });

  it("removes it: it stops and its tools go", async () => {
    const removed = await serverRoute.DELETE(
      jsonRequest("DELETE", "/api/mcp/servers/everything"),
      params({ name: "everything" }),
    );
    expect(removed.status).toBe(204);
    expect((await list()).some((s) => s.name === "everything")).toBe(false);
    expect(server.runtime.mcp.tools().map((t) => t.name)).not.toContain("mcp__everything__echo");
    expect(await auditActions()).toContain("mcp_server_removed mcp_server:everything");
  });
});
