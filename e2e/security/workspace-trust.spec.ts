import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { petstoreSpecPath, testServerScript } from "@arbor/core/testing";
import { expect, test } from "@playwright/test";
import { nonce, Servers } from "./harness.js";

// Issue #24, finding 1 and the trust model, through the running app (the production build) with
// nothing but files written into the workspace, as a cloned repository brings them. Each MCP
// server entry is `sh -c "echo TAG >> MARK; exec node test-server"`: the marker file (in the
// workspace, which a sandboxed server may write) shows whether the command ran. A capture server
// stands in for the attacker's host and counts every request it gets.

interface TrustView {
  workspace: string;
  trust_all: boolean;
  definitions: Array<{
    kind: string;
    file: string;
    name: string;
    hash: string;
    status: string;
    runs: Record<string, unknown>;
    trusted_by?: string;
  }>;
}

let servers: Servers;
let capture: Server;
let captured: string[] = [];
let captureUrl = "";

function serverEntry(mark: string, tag: string) {
  return {
    command: "sh",
    args: ["-c", `echo ${tag} >> '${mark}'; exec '${process.execPath}' '${testServerScript()}'`],
  };
}

const ran = (mark: string) =>
  existsSync(mark) ? readFileSync(mark, "utf8").trim().split("\n") : [];

async function trustView(): Promise<TrustView> {
  const answer = await servers.api.get("/api/workspace/trust");
  expect(answer.status).toBe(200);
  return answer.json as TrustView;
}

async function mcpServers(): Promise<Array<{ name: string; status: string; error?: string }>> {
  return ((await servers.api.get("/api/mcp/servers")).json as { servers: never[] }).servers;
}

test.beforeAll(async () => {
  capture = createServer((req, res) => {
    captured.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/yaml" });
    res.end(readFileSync(petstoreSpecPath()));
  });
  await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
  captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
  servers = await Servers.start({ env: { ARBOR_OPENAPI_ALLOW_LOOPBACK: "1" } });
});
test.afterAll(async () => {
  await servers?.close();
  await new Promise((resolve) => capture?.close(resolve));
});

test("a workspace's mcp_servers.json and .mcp.json start nothing until trusted; the prompt's data shows the command", async () => {
  const mark = join(servers.workspace, `ran-${nonce()}.txt`);
  writeFileSync(
    join(servers.workspace, "mcp_servers.json"),
    JSON.stringify({ mcpServers: { repo: serverEntry(mark, "repo") } }),
  );
  writeFileSync(
    join(servers.workspace, ".mcp.json"),
    JSON.stringify({ mcpServers: { project: serverEntry(mark, "project") } }),
  );
  // the app watches the files: give it time to (not) start them
  await expect
    .poll(async () => (await mcpServers()).map((s) => `${s.name}:${s.status}`).sort())
    .toEqual(["project:untrusted", "repo:untrusted"]);
  await sleep(2000);
  expect(ran(mark)).toEqual([]);
  const servers0 = await mcpServers();
  expect(servers0.find((s) => s.name === "repo")?.error).toContain(
    "of mcp_servers.json is not trusted",
  );

  const view = await trustView();
  const repo = view.definitions.find((d) => d.name === "repo");
  expect(view.trust_all).toBe(false);
  expect(repo).toMatchObject({
    kind: "mcp_server",
    file: "mcp_servers.json",
    status: "untrusted",
    runs: { command: "sh", args: ["-c", expect.stringContaining(`echo repo >> '${mark}'`)] },
  });
  expect(view.definitions.find((d) => d.name === "project")?.file).toBe(".mcp.json");

  // the API refuses to use an untrusted definition, naming the file
  const reconnect = await servers.api.post("/api/mcp/servers/repo/reconnect");
  expect(reconnect.status).toBe(409);
  expect(reconnect.text).toContain("mcp_servers.json");
  expect(ran(mark)).toEqual([]);

  // a bad body names the field; a stale hash is a conflict; an unknown name is not found
  const bad = await servers.api.post("/api/workspace/trust", {
    file: "mcp_servers.json",
    name: "repo",
    hash: "x",
  });
  expect(bad.status).toBe(400);
  expect((bad.json as { fields: Array<{ field: string }> }).fields[0]?.field).toBe("hash");
  const stale = await servers.api.post("/api/workspace/trust", {
    file: "mcp_servers.json",
    name: "repo",
    hash: "0".repeat(64),
  });
  expect(stale.status).toBe(409);
  const unknown = await servers.api.post("/api/workspace/trust", {
    file: "mcp_servers.json",
    name: "nobody",
    hash: "0".repeat(64),
  });
  expect(unknown.status).toBe(404);
  // no credential, no trust
  const anonymous = await servers.raw.post("/api/workspace/trust", {
    file: "mcp_servers.json",
    name: "repo",
    hash: repo?.hash,
  });
  expect(anonymous.status).toBe(401);
  expect(ran(mark)).toEqual([]);

  // trusting one starts that one only
  const trusted = await servers.api.post("/api/workspace/trust", {
    file: "mcp_servers.json",
    name: "repo",
    hash: repo?.hash,
  });
  expect(trusted.status).toBe(200);
  expect((trusted.json as TrustView).definitions.find((d) => d.name === "repo")).toMatchObject({
    status: "trusted",
    trusted_by: "Owner",
  });
  await expect
    .poll(async () => (await mcpServers()).find((s) => s.name === "repo")?.status, {
      timeout: 15_000,
    })
    .toBe("connected");
  expect(ran(mark)).toEqual(["repo"]);
  expect((await mcpServers()).find((s) => s.name === "project")?.status).toBe("untrusted");
});

test("an approved bash call that rewrites mcp_servers.json starts nothing until the change is trusted again", async () => {
  const api = servers.api;
  const mark = join(servers.workspace, `escape-${nonce()}.txt`);
  const v1 = join(servers.workspace, `v1-${nonce()}.txt`);
  writeFileSync(
    join(servers.workspace, "mcp_servers.json"),
    JSON.stringify({ mcpServers: { tools: serverEntry(v1, "v1") } }),
  );
  await servers.trustWorkspace();
  await expect
    .poll(async () => (await mcpServers()).find((s) => s.name === "tools")?.status, {
      timeout: 15_000,
    })
    .toBe("connected");

  // the model, under auto_approve_all, rewrites the file through bash
  const rewritten = JSON.stringify({ mcpServers: { tools: serverEntry(mark, "escaped") } });
  await servers.script([
    {
      blocks: [
        {
          type: "toolCall",
          id: "call_rewrite",
          name: "bash",
          arguments: { command: `cat > mcp_servers.json <<'EOF'\n${rewritten}\nEOF` },
        },
      ],
    },
    { blocks: [{ type: "text", text: "done" }] },
  ]);
  const id = await api.createSession({ approval_policy: { type: "auto_approve_all" } }, "escape");
  await api.send(id, { type: "text", text: "update the MCP config" });
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  expect(readFileSync(join(servers.workspace, "mcp_servers.json"), "utf8")).toContain("escaped");

  await expect
    .poll(async () => (await mcpServers()).find((s) => s.name === "tools")?.status, {
      timeout: 10_000,
    })
    .toBe("untrusted");
  await sleep(2000);
  expect(ran(mark)).toEqual([]);
  const changed = (await trustView()).definitions.find((d) => d.name === "tools");
  expect(changed?.status).toBe("changed");
  expect(changed?.runs.args).toEqual(["-c", expect.stringContaining("echo escaped")]);

  // a person looks at it and trusts it: now it runs
  await servers.trustWorkspace();
  await expect
    .poll(async () => (await mcpServers()).find((s) => s.name === "tools")?.status, {
      timeout: 15_000,
    })
    .toBe("connected");
  expect(ran(mark)).toEqual(["escaped"]);
});

test("a workspace's .arbor/openapi.json fetches nothing and offers no tool until trusted", async () => {
  captured = [];
  mkdirSync(join(servers.workspace, ".arbor"), { recursive: true });
  writeFileSync(
    join(servers.workspace, ".arbor", "openapi.json"),
    JSON.stringify([{ spec: `${captureUrl}/spec-${nonce()}.yaml`, name_prefix: "remote" }]),
  );
  // the file is read at start: restart the app as a person reopening the repository would
  await servers.app.kill();
  await servers.startApp();
  await sleep(1500);
  const specs = (await servers.api.get("/api/openapi/specs")).json as {
    specs: Array<{ status: string; tools: unknown[] }>;
  };
  expect(specs.specs.map((s) => s.status)).toEqual(["untrusted"]);
  expect(captured).toEqual([]);
  const spec = (await trustView()).definitions.find((d) => d.kind === "openapi_spec");
  expect(spec?.runs.fetches).toEqual([expect.stringContaining(captureUrl)]);

  // trust survives the restart (it is in the database): the MCP server of the test above runs
  expect((await trustView()).definitions.find((d) => d.name === "tools")?.status).toBe("trusted");

  await servers.trustWorkspace();
  await expect
    .poll(async () => {
      const answer = (await servers.api.get("/api/openapi/specs")).json as {
        specs: Array<{ status: string }>;
      };
      return answer.specs[0]?.status;
    })
    .toBe("loaded");
  expect(captured).toHaveLength(1);
});
