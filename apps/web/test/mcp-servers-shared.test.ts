import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpManager, McpServerViewSchema } from "@arbor/core";
import { everythingServerScript } from "@arbor/core/testing";
import { type Database, openDatabase, parseDatabaseUrl } from "@arbor/db";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as serverRoute from "@/app/api/mcp/servers/[name]/route";
import * as servers from "@/app/api/mcp/servers/route";
import { appMcpServers, followAppMcp, serverViews } from "@/lib/server/mcp-servers";
import type { Runtime } from "@/lib/server/runtime";
import {
  capturingLogger,
  jsonRequest,
  type LogEntry,
  params,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #27 / docs/decisions/0056: the MCP servers added in the settings are the database's, not
// one instance's data directory. Two instances (A, the runtime the routes reach, and B's MCP side)
// on one database, each with a data directory of its own: A started over an older version's
// <data dir>/mcp_servers.json, which it brings into the database once; a server added through A's
// API is listed, started and offered by B within its poll, and removed through A it is gone on B.
// (e2e/multi/mcp-servers-shared.spec.ts does the same with two processes on PostgreSQL.)

let a: TestServer;
let b: Pick<Runtime, "mcp" | "appMcp">;
let opened: Database | undefined;
let stopFollowing: (() => void) | undefined;
let dataDirA: string;
const logsB: LogEntry[] = [];

const everything = (name: string) => ({
  name,
  command: process.execPath,
  args: [everythingServerScript(), "stdio"],
});

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-mcp-shared-"));
  const database = `file:${join(dir, "shared.db")}`;
  dataDirA = join(dir, "data-a");
  const { name: _name, ...legacy } = everything("legacy");
  // what an older version wrote: one server on, one off
  mkdirSync(dataDirA, { recursive: true });
  writeFileSync(
    join(dataDirA, "mcp_servers.json"),
    JSON.stringify({
      mcpServers: { legacy, paused: { url: "http://127.0.0.1:9/mcp", disabled: true } },
    }),
  );
  a = await startTestServer({ DATABASE_URL: database, ARBOR_DATA_DIR: dataDirA });
  // B: another instance's MCP side, as the runtime wires it, on the same database (SQLite lets one
  // runtime migrate and own a file; the e2e spec runs two whole instances on PostgreSQL)
  opened = await openDatabase(parseDatabaseUrl(database));
  const dataDirB = join(dir, "data-b");
  mkdirSync(dataDirB);
  const logger = capturingLogger(logsB);
  const appMcp = await appMcpServers(opened, dataDirB, {}, logger);
  const mcp = new McpManager({
    sources: [appMcp.source()],
    workspaceRoot: a.workspace,
    env: process.env,
    logger,
  });
  await mcp.start();
  b = { appMcp, mcp };
  stopFollowing = followAppMcp(appMcp, mcp, logger);
}, 90_000);

afterAll(async () => {
  stopFollowing?.();
  await b?.mcp.close();
  await opened?.close();
  await a?.close();
});

const named = async (runtime: Pick<Runtime, "mcp" | "appMcp">, name: string) =>
  (await serverViews(runtime)).find((server) => server.name === name);

describe("MCP servers of the settings, shared through the database", () => {
  it("an older version's data-directory file is brought into the database once, on and off kept", async () => {
    expect(existsSync(join(dataDirA, "mcp_servers.json"))).toBe(false);
    const imported = JSON.parse(readFileSync(join(dataDirA, "mcp_servers.json.imported"), "utf8"));
    expect(Object.keys(imported.mcpServers)).toEqual(["legacy", "paused"]);
    expect(a.logs).toContainEqual(
      expect.objectContaining({
        message: "MCP servers of the settings moved into the database",
        fields: expect.objectContaining({ imported: ["legacy", "paused"] }),
      }),
    );
    // both instances have them, as the settings' own (managed), whichever data dir held the file
    for (const runtime of [a.runtime, b]) {
      await runtime.mcp.settled();
      expect(await named(runtime, "legacy")).toMatchObject({ managed: true, status: "connected" });
      expect(await named(runtime, "paused")).toMatchObject({ managed: true, status: "disabled" });
      // brought over from a file: nobody is named as having added it
      expect((await named(runtime, "legacy"))?.added_by).toBeUndefined();
    }
    const rows = await a.runtime.appMcp.records();
    expect(rows.map((r) => [r.name, r.enabled, r.addedBy])).toEqual([
      ["legacy", true, null],
      ["paused", false, null],
    ]);
  }, 60_000);

  it("a server added through A's API is listed, started and offered on B within a few seconds", async () => {
    const added = await servers.POST(
      jsonRequest("POST", "/api/mcp/servers", everything("shared")),
      params({}),
    );
    expect(added.status).toBe(201);
    expect(McpServerViewSchema.parse(await added.json())).toMatchObject({
      name: "shared",
      managed: true,
      added_by: { id: a.runtime.people.owner.id, name: a.runtime.people.owner.name },
    });
    const row = (await b.appMcp.records()).find((r) => r.name === "shared");
    expect(row?.addedBy).toEqual({
      id: a.runtime.people.owner.id,
      name: a.runtime.people.owner.name,
    });
    const started = Date.now();
    await vi.waitFor(
      async () => {
        expect(await named(b, "shared")).toMatchObject({
          managed: true,
          status: "connected",
          // B names who added it through A: it is the row's, not A's memory
          added_by: { id: a.runtime.people.owner.id, name: a.runtime.people.owner.name },
        });
        expect(b.mcp.tools().map((t) => t.name)).toContain("mcp__shared__echo");
      },
      { timeout: 15_000, interval: 100 },
    );
    // the poll is every 2 s; starting the server takes the rest
    expect(Date.now() - started).toBeLessThan(10_000);
    // nothing of it is in either data directory
    expect(existsSync(join(dataDirA, "mcp_servers.json"))).toBe(false);
  }, 60_000);

  it("turned off through A, it is off on B; removed through A, B stops offering it", async () => {
    const off = await serverRoute.PATCH(
      jsonRequest("PATCH", "/api/mcp/servers/shared", { enabled: false }),
      params({ name: "shared" }),
    );
    expect(off.status).toBe(200);
    await vi.waitFor(
      async () => {
        expect((await named(b, "shared"))?.status).toBe("disabled");
        expect(b.mcp.tools().map((t) => t.name)).not.toContain("mcp__shared__echo");
      },
      { timeout: 10_000, interval: 100 },
    );
    const removed = await serverRoute.DELETE(
      jsonRequest("DELETE", "/api/mcp/servers/shared"),
      params({ name: "shared" }),
    );
    expect(removed.status).toBe(204);
    await vi.waitFor(async () => expect(await named(b, "shared")).toBeUndefined(), {
      timeout: 10_000,
      interval: 100,
    });
  }, 60_000);

  it("a name B already keeps is refused on A before A's poll has seen it", async () => {
    const kept = await b.appMcp.add("late", { url: "http://127.0.0.1:9/mcp" }, null);
    expect(kept.type).toBe("added");
    // A has not reread yet (or has): either way the name is taken
    const again = await servers.POST(
      jsonRequest("POST", "/api/mcp/servers", { name: "late", url: "http://127.0.0.1:9/other" }),
      params({}),
    );
    expect(again.status).toBe(409);
  });
});
