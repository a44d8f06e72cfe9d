import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, expect, test } from "@playwright/test";
import { errorEvents, ownerContext, Servers, secret, summary, toolResults } from "./harness.js";

// Issue #27 case 12 in Chromium: a server started with no provider key (the offline model
// answers). The owner adds an Anthropic key in Settings › Model providers; the next model request
// carries it as x-api-key with no restart. The key is never shown again (the page and GET show
// its hint), never in a bash tool's environment, an answer, the store's files or the server's log.
// The workspace folder the agent works in is shown on the home page and in the chat.

let servers: Servers;
let owner: BrowserContext;
const KEY = secret("sk-ant-settings");

test.beforeAll(async ({ browser }) => {
  // the harness's own provider key is taken away: the server starts on the offline model
  servers = await Servers.start({
    env: { ANTHROPIC_API_KEY: "", ARBOR_PROVIDER: "", ARBOR_MODEL: "" },
  });
  owner = await ownerContext(browser, servers);
});

test.afterAll(async () => {
  await owner?.close();
  await servers?.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stats = statSync(path);
    if (stats.isDirectory()) return filesUnder(path);
    return stats.isFile() ? [path] : [];
  });
}

const ENV_COMMAND =
  "printenv; cat /proc/$PPID/environ | tr '\\0' '\\n'; cat /proc/1/environ | tr '\\0' '\\n'";

test("an admin adds an Anthropic key in Settings: the next request uses it, nothing shows it again, bash cannot see it", async () => {
  const page = await owner.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  // offline at first, and the home page says where a key goes
  await expect(page.getByTestId("active-model")).toContainText("offline");
  await page.getByRole("link", { name: "Settings › Model providers" }).click();
  await expect(page).toHaveURL(`${servers.url}/settings/providers`);
  await expect(page.getByTestId("key-source-anthropic")).toHaveText("No key");

  await page.getByLabel("API key for Anthropic").fill(KEY);
  await page.getByRole("button", { name: "Save key" }).first().click();
  await expect(page.getByTestId("key-source-anthropic")).toHaveText("In use: the key kept here");
  await expect(page.getByTestId("key-hint-anthropic")).toContainText(`…${KEY.slice(-4)}`);
  await expect(page.getByTestId("model-in-force")).toContainText("anthropic-messages");
  // the field was emptied and the key is nowhere in the page, now or after a reload
  await expect(page.getByLabel("Replace the key for Anthropic")).toHaveValue("");
  expect(await page.content()).not.toContain(KEY);
  await page.reload();
  await expect(page.getByTestId("key-hint-anthropic")).toBeVisible();
  expect(await page.content()).not.toContain(KEY);

  // GET shows only the hint
  const listed = await servers.api.get("/api/settings/provider-keys");
  expect(listed.status, listed.text).toBe(200);
  expect(listed.text).not.toContain(KEY);
  expect(listed.json).toMatchObject({
    model: { protocol: "anthropic-messages" },
    providers: expect.arrayContaining([
      expect.objectContaining({
        provider: "anthropic",
        source: "settings",
        hint: `…${KEY.slice(-4)}`,
        set_by: expect.objectContaining({ name: expect.any(String) }),
      }),
    ]),
  });

  // the next model request, without a restart: the fake LLM gets the key as x-api-key; bash,
  // reading its environment and its parents', gets no trace of it
  await servers.resetFake();
  await servers.script([
    {
      blocks: [
        { type: "toolCall", id: "toolu_keys_1", name: "bash", arguments: { command: ENV_COMMAND } },
      ],
    },
    { blocks: [{ type: "text", text: "Read the environment." }] },
  ]);
  const id = await servers.api.createSession({ approval_policy: { type: "auto_approve_all" } });
  const events = await servers.api.send(id, { type: "text", text: "Show me the environment." });
  expect(errorEvents(events), summary(events)).toEqual([]);
  const requests = (await servers.fakeRequests()).filter(
    (r) => r.protocol === "anthropic-messages",
  );
  expect(requests.length).toBeGreaterThanOrEqual(2);
  for (const request of requests) expect(request.headers["x-api-key"]).toBe(KEY);
  const messages = await servers.api.messages(id);
  const result = toolResults(messages).find((r) => r.tool_call_id === "toolu_keys_1");
  expect(result?.text).toContain("PATH=");
  expect(result?.text).not.toContain(KEY);
  for (const request of requests) expect(JSON.stringify(request.body)).not.toContain(KEY);
  expect(JSON.stringify(events)).not.toContain(KEY);
  expect(JSON.stringify(messages)).not.toContain(KEY);

  // audited with the hint; in no file of the data directory, nor in the server's log
  const audit = await servers.api.get("/api/audit?action=provider_key_set");
  expect(audit.text).toContain("provider_key:anthropic");
  expect(audit.text).not.toContain(KEY);
  for (const file of filesUnder(servers.dataDir)) {
    expect(readFileSync(file).includes(Buffer.from(KEY)), file).toBe(false);
  }
  const keyFile = join(servers.dataDir, "provider-keys.key");
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  expect(servers.app.output()).not.toContain(KEY);
  await page.close();
});

for (const size of [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`the workspace folder is shown on the home page and in the chat (${size.name})`, async () => {
    const page = await owner.newPage();
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto("/");
    await expect(page.getByTestId("workspace-folder")).toContainText(servers.workspace);
    const id = await servers.api.createSession({}, `workspace ${size.name}`);
    await page.goto(`/sessions/${id}`);
    const folder = page.getByTestId("workspace-folder");
    await expect(folder).toBeVisible();
    await expect(folder).toContainText(servers.workspace);
    await page.close();
  });
}
