import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingServerScript, recordingLogger } from "../testing/mcp-servers.js";
import { detectSandbox, type Sandbox } from "../tools/sandbox.js";
import { McpManager } from "./manager.js";

// Issue #24: a stdio MCP server is a process Arbor starts, confined like bash's commands. A tiny
// MCP server written here (JSON-RPC over stdio, no dependencies, so it runs from anywhere) reports
// what it can reach; the real bwrap runs it (scripts/arbor.mjs installs bubblewrap for the tests).
// Everything lives under /var/tmp, not /tmp: the sandbox's /tmp is its own, which would hide the
// data dir and the "outside" file whether or not the mounts did their work.

const PROBE_SERVER = String.raw`
const readline = require("node:readline");
const fs = require("node:fs");
const net = require("node:net");
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
const attempt = (fn) => { try { return fn(); } catch (error) { return "ERR " + (error.code || error.message); } };
async function probe(args) {
  switch (args.action) {
    case "read": return attempt(() => fs.readFileSync(args.path, "utf8"));
    case "list": return attempt(() => fs.readdirSync(args.path).join(","));
    case "write": return attempt(() => { fs.writeFileSync(args.path, "written"); return "wrote"; });
    case "env": return JSON.stringify(process.env);
    case "connect": return new Promise((resolve) => {
      const socket = net.connect(args.port, "127.0.0.1");
      socket.setTimeout(2000, () => { socket.destroy(); resolve("ERR timeout"); });
      socket.on("data", (data) => { socket.destroy(); resolve("connected: " + data); });
      socket.on("error", (error) => resolve("ERR " + error.code));
    });
    default: return "ERR unknown action";
  }
}
readline.createInterface({ input: process.stdin }).on("line", async (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  if (request.method === "initialize") {
    send({ id: request.id, result: { protocolVersion: request.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "probe", version: "1.0.0" } } });
  } else if (request.method === "tools/list") {
    send({ id: request.id, result: { tools: [{ name: "probe", inputSchema: { type: "object" } }] } });
  } else if (request.method === "tools/call") {
    const text = await probe(request.params.arguments);
    send({ id: request.id, result: { content: [{ type: "text", text }] } });
  } else {
    send({ id: request.id, result: {} });
  }
});
`;

const KEY = "sk-ant-mcp-sandbox-0123456789";
const TOKEN = "install-token-mcp-sandbox";

let base: string;
let workspace: string;
let dataDir: string;
let listener: Server;
let port: number;

beforeAll(async () => {
  await mkdir("/var/tmp", { recursive: true });
  base = await realpath(await mkdtemp("/var/tmp/arbor-mcp-sandbox-"));
  workspace = path.join(base, "ws");
  dataDir = path.join(base, "data");
  await mkdir(workspace);
  await mkdir(dataDir);
  await writeFile(path.join(dataDir, "token"), `${TOKEN}\n`);
  await writeFile(path.join(base, "outside.txt"), "original");
  await writeFile(path.join(workspace, "probe-server.cjs"), PROBE_SERVER);
  listener = createServer((socket) => socket.end("hello"));
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
  await rm(base, { recursive: true, force: true });
});

/** Starts `servers` (mcp_servers.json entries) in `sandbox`; the caller closes the manager. */
async function startServers(
  sandbox: Sandbox,
  servers: Record<string, unknown>,
  servingBeyondLoopback = false,
): Promise<McpManager> {
  const configPath = path.join(base, `mcp-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(configPath, JSON.stringify({ mcpServers: servers }));
  const manager = new McpManager({
    configPath,
    workspaceRoot: workspace,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ANTHROPIC_API_KEY: KEY,
      ARBOR_TOKEN: TOKEN,
    },
    logger: recordingLogger(),
    sandbox,
    servingBeyondLoopback,
    backoff: { initialMs: 50, maxMs: 100, maxAttempts: 1 },
  });
  await manager.start();
  await manager.settled();
  return manager;
}

const probeEntry = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [path.join(workspace, "probe-server.cjs")],
  ...extra,
});

async function probe(
  manager: McpManager,
  server: string,
  args: Record<string, unknown>,
): Promise<string> {
  const connection = manager.connection(server);
  if (connection?.status !== "connected") {
    throw new Error(`${server} is ${connection?.status}: ${connection?.error}`);
  }
  const result = await connection.callTool("probe", args);
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The checks of issue #24, as one server sees them. */
async function reach(manager: McpManager, server: string) {
  return {
    arborEnviron: await probe(manager, server, {
      action: "read",
      path: `/proc/${process.pid}/environ`,
    }),
    dataDir: await probe(manager, server, { action: "list", path: dataDir }),
    env: await probe(manager, server, { action: "env" }),
    inside: await probe(manager, server, {
      action: "write",
      path: path.join(workspace, "made.txt"),
    }),
    outside: await probe(manager, server, {
      action: "write",
      path: path.join(base, "outside.txt"),
    }),
  };
}

describe("stdio MCP servers in bubblewrap", () => {
  it("cannot read Arbor's /proc, see the data dir, get a key or write outside the workspace", async () => {
    // this process's environ is readable to an unconfined process of the same user
    expect(readFileSync(`/proc/${process.pid}/environ`).length).toBeGreaterThan(0);
    const manager = await startServers(
      await detectSandbox({ env: { ARBOR_SANDBOX: "bubblewrap" }, hiddenPaths: [dataDir] }),
      { probe: probeEntry() },
    );
    try {
      const seen = await reach(manager, "probe");
      expect(seen.arborEnviron).toMatch(/^ERR /);
      expect(seen.dataDir).toBe("");
      expect(seen.env).not.toContain(KEY);
      expect(seen.env).not.toContain(TOKEN);
      expect(JSON.parse(seen.env)).toMatchObject({ WORKSPACE_DIR: workspace, TMPDIR: "/tmp" });
      expect(seen.inside).toBe("wrote");
      expect(await readFile(path.join(workspace, "made.txt"), "utf8")).toBe("written");
      expect(seen.outside).toMatch(/^ERR (EROFS|EACCES)/);
      expect(await readFile(path.join(base, "outside.txt"), "utf8")).toBe("original");
    } finally {
      await manager.close();
    }
  });

  it("the same server opted out of the sandbox reaches all of it (the checks above can fail)", async () => {
    const manager = await startServers(await detectSandbox({ env: { ARBOR_SANDBOX: "off" } }), {
      probe: probeEntry(),
    });
    try {
      const seen = await reach(manager, "probe");
      expect(seen.arborEnviron).not.toMatch(/^ERR /);
      expect(seen.dataDir).toBe("token");
      // the environment is scrubbed with or without a sandbox
      expect(seen.env).not.toContain(KEY);
      expect(seen.outside).toBe("wrote");
    } finally {
      await manager.close();
      await writeFile(path.join(base, "outside.txt"), "original");
    }
  });

  it('has the network unless its entry says "network": false', async () => {
    const manager = await startServers(
      await detectSandbox({ env: { ARBOR_SANDBOX: "bubblewrap" }, hiddenPaths: [dataDir] }),
      { online: probeEntry(), offline: probeEntry({ network: false }) },
    );
    try {
      expect(await probe(manager, "online", { action: "connect", port })).toBe("connected: hello");
      expect(await probe(manager, "offline", { action: "connect", port })).toMatch(/^ERR /);
    } finally {
      await manager.close();
    }
  });

  it("the MCP reference server works in the sandbox", async () => {
    const manager = await startServers(
      await detectSandbox({ env: { ARBOR_SANDBOX: "bubblewrap" }, hiddenPaths: [dataDir] }),
      { everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] } },
    );
    try {
      const connection = manager.connection("everything");
      expect(connection?.error).toBeUndefined();
      expect(connection?.status).toBe("connected");
      const result = await connection?.callTool("echo", { message: "from the sandbox" });
      expect(JSON.stringify(result?.content)).toContain("from the sandbox");
    } finally {
      await manager.close();
    }
  });
});

describe("stdio MCP servers without a working sandbox", () => {
  const missing = "/var/tmp/arbor-no-such-bwrap";

  it("fail with the reason when ARBOR_SANDBOX=bubblewrap cannot be had", async () => {
    const sandbox = await detectSandbox({
      env: { ARBOR_SANDBOX: "bubblewrap" },
      command: missing,
    });
    const manager = await startServers(sandbox, { probe: probeEntry() });
    try {
      expect(manager.servers()[0]).toMatchObject({
        status: "failed",
        error: expect.stringMatching(
          /^not started: ARBOR_SANDBOX=bubblewrap, but .*no-such-bwrap is not installed; install bubblewrap/,
        ),
      });
    } finally {
      await manager.close();
    }
  });

  it("under auto, do not start (nobody approves a server's start), with how to fix it", async () => {
    const sandbox = await detectSandbox({ env: {}, command: missing });
    expect(sandbox).toMatchObject({ mode: "none", cause: "not_working" });
    const manager = await startServers(sandbox, { probe: probeEntry() });
    try {
      expect(manager.servers()[0]).toMatchObject({
        status: "failed",
        error: expect.stringMatching(
          /^not started: there is no working sandbox .*apt-get install bubblewrap.*ARBOR_SANDBOX=off/,
        ),
      });
    } finally {
      await manager.close();
    }
  });
});
