import { everythingServerScript } from "@arbor/core/testing";
import { expect, test } from "@playwright/test";
import { APP_TOKEN, type ServerProcess } from "../crash/app-server.js";
import { createSession, getMessages, scriptFake, sendAndWait } from "../crash/client.js";
import { toolResults } from "../security/harness.js";
import { multiInstance } from "./cluster.js";

// Issue #27 / docs/decisions/0056 over HTTP against the production build: two instances on one
// PostgreSQL, each with a data directory of its own. An MCP server an admin adds through A's API
// (the settings' POST /api/mcp/servers) is the database's: B lists it as the settings' own, starts
// it, and a session on B calls its tool within seconds; turned off or removed through A, B stops
// offering it.

const multi = multiInstance({ prefix: "mcp_settings" });

interface ServerView {
  name: string;
  status: string;
  managed?: boolean;
  tools: Array<{ model_name: string }>;
}

function call(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${APP_TOKEN}`);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  return fetch(url, { ...init, headers });
}

async function listed(app: ServerProcess, name: string): Promise<ServerView | undefined> {
  const response = await call(`${app.url}/api/mcp/servers`);
  expect(response.status).toBe(200);
  const { servers } = (await response.json()) as { servers: ServerView[] };
  return servers.find((s) => s.name === name);
}

test("an MCP server added through A's API is listed, started and used in a session on B; off or removed on A, B stops offering it", async () => {
  const [a, b] = await multi.twoInstances();
  expect(await listed(b, "shared")).toBeUndefined();

  const added = await call(`${a.url}/api/mcp/servers`, {
    method: "POST",
    body: JSON.stringify({
      name: "shared",
      command: process.execPath,
      args: [everythingServerScript(), "stdio"],
    }),
  });
  expect(added.status, await added.clone().text()).toBe(201);
  const addedAt = Date.now();

  // B: listed as the settings' own, enabled and connected, within its poll (2 s) and the start
  await expect
    .poll(async () => (await listed(b, "shared"))?.status, { timeout: 20_000, intervals: [250] })
    .toBe("connected");
  const onB = await listed(b, "shared");
  expect(onB?.managed).toBe(true);
  expect(onB?.tools.map((t) => t.model_name)).toContain("mcp__shared__echo");
  expect(Date.now() - addedAt).toBeLessThan(15_000);

  // a session on B calls it
  const sessionId = await createSession(b.url, "mcp on B", {
    approval_policy: { type: "auto_approve_all" },
  });
  await scriptFake(multi.fake.url, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_shared_echo",
          name: "mcp__shared__echo",
          arguments: { message: "from B" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Echoed." }] },
  ]);
  await sendAndWait(b.url, sessionId, "Echo through the shared server.");
  const result = toolResults(
    (await getMessages(b.url, sessionId)) as Parameters<typeof toolResults>[0],
  ).find((r) => r.tool_call_id === "toolu_shared_echo");
  expect(result?.status).toBe("success");
  expect(result?.text).toContain("from B");

  // turned off through A: disabled on B, its tools gone
  const off = await call(`${a.url}/api/mcp/servers/shared`, {
    method: "PATCH",
    body: JSON.stringify({ enabled: false }),
  });
  expect(off.status).toBe(200);
  await expect
    .poll(async () => (await listed(b, "shared"))?.status, { timeout: 15_000, intervals: [250] })
    .toBe("disabled");
  expect((await listed(b, "shared"))?.tools).toEqual([]);

  // removed through A: B no longer lists or offers it
  const removed = await call(`${a.url}/api/mcp/servers/shared`, { method: "DELETE" });
  expect(removed.status).toBe(204);
  await expect
    .poll(async () => await listed(b, "shared"), { timeout: 15_000, intervals: [250] })
    .toBeUndefined();

  // every change was audited once, on the instance that made it
  const audit = await call(`${b.url}/api/audit?action=mcp_server_added`);
  const targets = ((await audit.json()) as { entries: Array<{ target: string }> }).entries.map(
    (e) => e.target,
  );
  expect(targets).toEqual(["mcp_server:shared"]);
});
