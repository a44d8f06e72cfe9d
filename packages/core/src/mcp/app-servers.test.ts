// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax of mcp_servers.json
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AppMcpServers, appMcpConfigSource } from "./app-servers.js";
import { loadMcpConfigs } from "./config.js";

function servers() {
  const dir = mkdtempSync(join(tmpdir(), "arbor-app-mcp-"));
  const source = appMcpConfigSource(dir);
  return { source, app: new AppMcpServers(source, { HOME: "/home/x" }) };
}

describe("AppMcpServers", () => {
  it("adds a server the manager then reads as the app's own (no trust asked), private to the owner", async () => {
    const { source, app } = servers();
    const added = await app.add("everything", { command: "node", args: ["server.js"] });
    expect(added).toMatchObject({ type: "added" });
    const loaded = await loadMcpConfigs([source], {});
    expect(loaded.servers.map((s) => [s.name, s.transport, s.needsTrust, s.disabled])).toEqual([
      ["everything", "stdio", false, false],
    ]);
    expect(statSync(source.path).mode & 0o777).toBe(0o600);
    expect(await app.add("everything", { url: "https://example.com/mcp" })).toEqual({
      type: "exists",
    });
  });

  it("refuses an invalid entry naming its field, and one of Arbor's secrets", async () => {
    const { app } = servers();
    expect(await app.add("remote", { url: "ftp://example.com" })).toEqual({
      type: "invalid",
      field: "url",
      message: "expected an http or https URL",
    });
    const secret = await app.add("leaky", {
      command: "node",
      env: { KEY: "${ANTHROPIC_API_KEY}" },
    });
    expect(secret).toMatchObject({ type: "invalid", field: "env" });
    expect(await app.entries()).toEqual({});
  });

  it("turns a server off and on, and removes it", async () => {
    const { source, app } = servers();
    await app.add("everything", { command: "node" });
    expect(await app.setEnabled("everything", false)).toEqual({ type: "changed" });
    expect(JSON.parse(readFileSync(source.path, "utf8")).mcpServers.everything).toEqual({
      command: "node",
      disabled: true,
    });
    expect((await loadMcpConfigs([source], {})).servers[0]?.disabled).toBe(true);
    await app.setEnabled("everything", true);
    expect((await app.entries()).everything).toEqual({ command: "node" });
    expect(await app.setEnabled("nobody", true)).toEqual({ type: "not_found" });
    expect(await app.remove("everything")).toEqual({ type: "changed" });
    expect(await app.entries()).toEqual({});
    expect(await app.remove("everything")).toEqual({ type: "not_found" });
  });
});
