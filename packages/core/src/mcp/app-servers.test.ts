// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax of mcp_servers.json
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InMemoryAppMcpServerRecords } from "../testing/app-mcp-records.js";
import { APP_MCP_SOURCE, AppMcpServers, importAppMcpFile } from "./app-servers.js";
import { loadMcpConfigs } from "./config.js";

const ana = { id: "u-ana", name: "Ana" };

function servers() {
  const records = new InMemoryAppMcpServerRecords();
  let now = 1_000;
  const app = new AppMcpServers({ records, env: { HOME: "/home/x" }, now: () => now++ });
  return { records, app };
}

describe("AppMcpServers", () => {
  it("adds a server the manager then reads as the app's own (no trust asked)", async () => {
    const { records, app } = servers();
    const added = await app.add("everything", { command: "node", args: ["server.js"] }, ana);
    expect(added).toMatchObject({ type: "added" });
    const loaded = await loadMcpConfigs([app.source()], {});
    expect(
      loaded.servers.map((s) => [s.name, s.transport, s.needsTrust, s.disabled, s.file]),
    ).toEqual([["everything", "stdio", false, false, APP_MCP_SOURCE]]);
    expect(await records.list()).toEqual([
      {
        name: "everything",
        definition: { command: "node", args: ["server.js"] },
        enabled: true,
        addedBy: ana,
        addedAt: 1_000,
        updatedAt: 1_000,
        version: 1,
      },
    ]);
    expect(await app.add("everything", { url: "https://example.com/mcp" }, ana)).toEqual({
      type: "exists",
    });
  });

  it("refuses an invalid entry naming its field, and one of Arbor's secrets", async () => {
    const { app } = servers();
    expect(await app.add("remote", { url: "ftp://example.com" }, ana)).toEqual({
      type: "invalid",
      field: "url",
      message: "expected an http or https URL",
    });
    const secret = await app.add(
      "leaky",
      { command: "node", env: { KEY: "${ANTHROPIC_API_KEY}" } },
      ana,
    );
    expect(secret).toMatchObject({ type: "invalid", field: "env" });
    expect(await app.entries()).toEqual({});
  });

  it("turns a server off and on, and removes it", async () => {
    const { app } = servers();
    await app.add("everything", { command: "node" }, ana);
    expect(await app.setEnabled("everything", false)).toEqual({ type: "changed" });
    expect((await app.entries()).everything).toEqual({ command: "node", disabled: true });
    expect((await loadMcpConfigs([app.source()], {})).servers[0]?.disabled).toBe(true);
    await app.setEnabled("everything", true);
    expect((await app.entries()).everything).toEqual({ command: "node" });
    expect((await app.records())[0]?.version).toBe(3);
    expect(await app.setEnabled("nobody", true)).toEqual({ type: "not_found" });
    expect(await app.remove("everything")).toEqual({ type: "changed" });
    expect(await app.entries()).toEqual({});
    expect(await app.remove("everything")).toEqual({ type: "not_found" });
  });

  it("tells its listeners when the rows changed through another instance, once per change", async () => {
    const { records, app } = servers();
    // B: another instance's view of the same rows
    const b = new AppMcpServers({ records, env: {} });
    let changes = 0;
    b.onChange(() => changes++);
    expect(await b.refresh()).toBe(false);
    await app.add("shared", { url: "https://example.com/mcp" }, ana);
    expect(await b.refresh()).toBe(true);
    expect(await b.refresh()).toBe(false);
    await app.setEnabled("shared", false);
    expect(await b.refresh()).toBe(true);
    await app.remove("shared");
    expect(await b.refresh()).toBe(true);
    expect(changes).toBe(3);
  });

  it("a source that cannot be read is a problem of the source, not a crash", async () => {
    const records = new InMemoryAppMcpServerRecords();
    records.list = () => Promise.reject(new Error("database gone"));
    const app = new AppMcpServers({ records, env: {} });
    const loaded = await loadMcpConfigs([app.source()], {});
    expect(loaded.problems).toEqual([
      {
        field: "(file)",
        message: `cannot read ${APP_MCP_SOURCE}: database gone`,
        file: APP_MCP_SOURCE,
      },
    ]);
  });
});

describe("importAppMcpFile", () => {
  it("brings an older version's data-directory file over once, keeping on/off, then renames it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-app-mcp-"));
    const file = join(dir, "mcp_servers.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          everything: { command: "node", args: ["server.js"] },
          paused: { url: "https://example.com/mcp", disabled: true },
        },
      }),
    );
    const records = new InMemoryAppMcpServerRecords();
    // another instance already brought `everything` over, and turned it off since
    await records.add({
      name: "everything",
      definition: { command: "other" },
      enabled: false,
      addedBy: null,
      addedAt: 1,
      updatedAt: 2,
      version: 2,
    });
    const result = await importAppMcpFile(dir, records, () => 5);
    expect(result).toEqual({ file, imported: ["paused"], kept: ["everything"] });
    expect(existsSync(file)).toBe(false);
    expect(JSON.parse(readFileSync(`${file}.imported`, "utf8")).mcpServers.paused).toBeDefined();
    const rows = await records.list();
    expect(rows.map((r) => [r.name, r.enabled, r.definition, r.addedBy])).toEqual([
      ["everything", false, { command: "other" }, null],
      ["paused", false, { url: "https://example.com/mcp" }, null],
    ]);
    // a second start finds no file and changes nothing
    expect(await importAppMcpFile(dir, records)).toBeUndefined();
    expect(await records.list()).toEqual(rows);
  });

  it("leaves a file that does not parse where it is, saying so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-app-mcp-"));
    writeFileSync(join(dir, "mcp_servers.json"), "{ not json");
    await expect(importAppMcpFile(dir, new InMemoryAppMcpServerRecords())).rejects.toThrow();
    expect(existsSync(join(dir, "mcp_servers.json"))).toBe(true);
  });
});
