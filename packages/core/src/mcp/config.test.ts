// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax of mcp_servers.json
import { describe, expect, it } from "vitest";
import { mcpConfigPath, parseMcpConfig } from "./config.js";

describe("parseMcpConfig", () => {
  it("reads the Claude Desktop format: local and remote servers, disabled ones, ${VAR}", () => {
    const text = JSON.stringify({
      mcpServers: {
        local: {
          command: "node",
          args: ["server.js", "--token=${TOKEN}"],
          env: { KEY: "${TOKEN}", OTHER: "${MISSING:-fallback}" },
          cwd: "tools",
        },
        remote: { url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        legacy: { type: "sse", url: "http://127.0.0.1:1/sse" },
        off: { command: "never", disabled: true },
      },
    });
    const { servers, problems } = parseMcpConfig(text, { TOKEN: "t0k", HOST: "example.com" });
    expect(problems).toEqual([]);
    // what the parser keeps to connect; file, hash and runs are checked below
    const strip = ({
      file: _f,
      hash: _h,
      needsTrust: _n,
      runs: _r,
      ...rest
    }: (typeof servers)[0]) => rest;
    expect(servers.map(strip)).toEqual([
      {
        name: "local",
        disabled: false,
        transport: "stdio",
        command: "node",
        args: ["server.js", "--token=t0k"],
        env: { KEY: "t0k", OTHER: "fallback" },
        cwd: "tools",
        network: true,
      },
      {
        name: "remote",
        disabled: false,
        transport: "http",
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer t0k" },
        sseOnly: false,
      },
      {
        name: "legacy",
        disabled: false,
        transport: "http",
        url: "http://127.0.0.1:1/sse",
        headers: {},
        sseOnly: true,
      },
      {
        name: "off",
        disabled: true,
        transport: "stdio",
        command: "never",
        args: [],
        env: {},
        network: true,
      },
    ]);
    // the trust prompt sees the entry as written: no variable expanded, names not values
    expect(servers[0]).toMatchObject({
      file: "mcp_servers.json",
      needsTrust: false,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      runs: {
        command: "node",
        args: ["server.js", "--token=${TOKEN}"],
        cwd: "tools",
        env: ["KEY", "OTHER"],
        variables: ["MISSING", "TOKEN"],
        network: true,
      },
    });
    expect(servers[1]?.runs).toEqual({
      url: "https://${HOST}/mcp",
      headers: ["Authorization"],
      variables: ["HOST", "TOKEN"],
    });
  });

  it("a stdio entry may turn its network off; anything but a boolean names the field", () => {
    const text = JSON.stringify({
      mcpServers: {
        quiet: { command: "node", network: false },
        wrong: { command: "node", network: "no" },
      },
    });
    const { servers, problems } = parseMcpConfig(text, {});
    expect(servers[0]).toMatchObject({ name: "quiet", network: false, runs: { network: false } });
    expect(problems).toEqual([
      { server: "wrong", field: "mcpServers.wrong.network", message: "expected true or false" },
    ]);
  });

  it("reports an invalid entry with its field and still loads the others", () => {
    const text = JSON.stringify({
      mcpServers: {
        good: { command: "node" },
        noCommand: { args: ["x"] },
        badArgs: { command: "node", args: ["ok", 3] },
        badUrl: { url: "ftp://example.com" },
        unsetVar: { command: "node", env: { K: "${NOT_SET_ANYWHERE}" } },
        badEnv: { command: "node", env: { K: 1 } },
        both: { command: "node", url: "http://x" },
        badDisabled: { command: "node", disabled: "yes" },
      },
    });
    const { servers, problems } = parseMcpConfig(text, {});
    expect(servers.map((s) => s.name)).toEqual(["good"]);
    expect(problems.map((p) => [p.server, p.field])).toEqual([
      ["noCommand", "mcpServers.noCommand.command"],
      ["badArgs", "mcpServers.badArgs.args[1]"],
      ["badUrl", "mcpServers.badUrl.url"],
      ["unsetVar", "mcpServers.unsetVar.env.K"],
      ["badEnv", "mcpServers.badEnv.env.K"],
      ["both", "mcpServers.both.url"],
      ["badDisabled", "mcpServers.badDisabled.disabled"],
    ]);
    expect(problems[3]?.message).toContain("${NOT_SET_ANYWHERE} is not set");
  });

  it("reports a file that does not parse, or has no mcpServers object", () => {
    expect(parseMcpConfig("{ nope", {}).problems[0]?.field).toBe("(file)");
    expect(parseMcpConfig('{"servers": {}}', {}).problems[0]?.field).toBe("mcpServers");
  });
});

describe("mcpConfigPath", () => {
  it("is mcp_servers.json in the workspace unless ARBOR_MCP_CONFIG names another file", () => {
    expect(mcpConfigPath("/ws", {})).toBe("/ws/mcp_servers.json");
    expect(mcpConfigPath("/ws", { ARBOR_MCP_CONFIG: "/etc/mcp.json" })).toBe("/etc/mcp.json");
    expect(mcpConfigPath("/ws", { ARBOR_MCP_CONFIG: "conf/mcp.json" })).toBe("/ws/conf/mcp.json");
  });
});
