import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PetstoreServer, petstoreSpecPath, startPetstoreServer } from "@arbor/core/testing";
import { expect, test } from "@playwright/test";
import { Servers, secret } from "./harness.js";

// Issue #14, OpenAPI tools through the running app (the production build): the Swagger Petstore
// spec in the workspace's .arbor/openapi.json, a local Petstore that wants an API key, and the
// fake LLM calling a Petstore tool. The key lives in a variable whose name does not say it is
// secret, is named in ARBOR_TOOL_ENV, and still never reaches a tool process or any output.

const KEY = secret("petstore");
let petstore: PetstoreServer;
let servers: Servers;

test.beforeAll(async () => {
  petstore = await startPetstoreServer({ auth: { header: "api_key", value: KEY } });
  const workspace = mkdtempSync(join(tmpdir(), "arbor-e2e-openapi-"));
  mkdirSync(join(workspace, ".arbor"));
  copyFileSync(petstoreSpecPath(), join(workspace, "petstore.yaml"));
  writeFileSync(
    join(workspace, ".arbor", "openapi.json"),
    JSON.stringify([
      {
        spec: "petstore.yaml",
        base_url: petstore.baseUrl,
        auth: { type: "api_key", env: "PETSTORE_PASS" },
        filter: { tags: ["pet"] },
      },
    ]),
  );
  servers = await Servers.start({
    env: {
      WORKSPACE_DIR: workspace,
      PETSTORE_PASS: KEY,
      ARBOR_TOOL_ENV: "PETSTORE_PASS",
      // an OpenAPI credential's variable must be allowed; the Petstore listens on 127.0.0.1
      ARBOR_OPENAPI_ENV: "PETSTORE_PASS",
      ARBOR_OPENAPI_ALLOW_LOOPBACK: "1",
    },
  });
  // the workspace's spec is read only once a person trusts it (issue #24)
  expect(await servers.trustWorkspace()).toEqual(["petstore.yaml"]);
});
test.afterAll(async () => {
  await servers?.close();
  await petstore?.close();
});

test("a Petstore tool called by the model waits for approval, reaches the API with the key, and the answer reaches the model", async () => {
  const api = servers.api;
  await expect
    .poll(
      async () =>
        ((await api.get("/api/openapi/specs")).json as { specs: Array<{ status: string }> })
          .specs[0]?.status,
    )
    .toBe("loaded");
  await servers.script([
    { blocks: [{ type: "toolCall", id: "call_pet", name: "getPetById", arguments: { petId: 1 } }] },
    { blocks: [{ type: "text", text: "Pet 1 is doggie." }] },
  ]);
  const id = await api.createSession({ approval_policy: { type: "manual" } }, "openapi");
  await api.send(id, { type: "text", text: "what is pet 1?" });
  const waiting = await api.waitForState(id, (s) => s.type === "AwaitingToolApproval");
  expect(waiting.type).toBe("AwaitingToolApproval");
  expect(petstore.requests).toHaveLength(0);
  await api.events(`/api/sessions/${id}/approvals`, {
    decisions: [{ tool_call_id: waiting.pending_requests?.[0], decision: "approve" }],
  });
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  expect(petstore.requests.map((r) => [r.method, r.url, r.headers.api_key])).toEqual([
    ["GET", "/v2/pet/1", KEY],
  ]);
  const requests = await servers.fakeRequests();
  const first = requests[0]?.body as { tools?: Array<{ name: string }> } | undefined;
  const offered = first?.tools ?? [];
  expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(["getPetById", "addPet"]));
  expect(offered.map((t) => t.name)).not.toContain("getInventory");
  const toModel = JSON.stringify(requests.at(-1)?.body);
  expect(toModel).toContain(`GET ${petstore.baseUrl}/pet/1 → 200`);
  expect(toModel).toContain("doggie");
  expect(JSON.stringify(requests)).not.toContain(KEY);
  expect(JSON.stringify(await api.messages(id))).not.toContain(KEY);
});

test("bash never sees the credential's variable, even named in ARBOR_TOOL_ENV", async () => {
  const api = servers.api;
  await servers.script([
    {
      blocks: [
        { type: "toolCall", id: "call_env", name: "bash", arguments: { command: "printenv" } },
      ],
    },
    { blocks: [{ type: "text", text: "done" }] },
  ]);
  const id = await api.createSession({ approval_policy: { type: "auto_approve_all" } }, "env");
  await api.send(id, { type: "text", text: "print the environment" });
  await api.waitForState(id, (s) => s.type === "Idle");
  const stored = JSON.stringify(await api.messages(id));
  expect(stored).toContain("WORKSPACE_DIR");
  expect(stored).not.toContain("PETSTORE_PASS");
  expect(stored).not.toContain(KEY);
  const settings = (await api.get("/api/settings")).json as { tool_env: string[] };
  expect(settings.tool_env).not.toContain("PETSTORE_PASS");
});

test("the session settings list the spec, its credential variable and its tools", async ({
  browser,
}) => {
  const context = await browser.newContext({
    baseURL: servers.url,
    extraHTTPHeaders: { authorization: `Bearer ${servers.token}` },
  });
  const page = await context.newPage();
  const id = await servers.api.createSession({}, "settings");
  await page.goto(`/sessions/${id}`);
  await page.getByRole("button", { name: "Session settings" }).click();
  const list = page.getByRole("list", { name: "OpenAPI specs" });
  const spec = list.getByTestId("openapi-spec");
  await expect(spec).toHaveCount(1);
  await expect(spec).toHaveAttribute("data-status", "loaded");
  await expect(spec).toContainText("Swagger Petstore");
  await expect(spec.getByTestId("openapi-auth")).toHaveText("PETSTORE_PASS set");
  await spec.getByText("8 tools").click();
  await expect(spec.getByText("getPetById")).toBeVisible();
  expect(await page.content()).not.toContain(KEY);
  await context.close();
});
