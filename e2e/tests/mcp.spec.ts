import { rmSync, writeFileSync } from "node:fs";
import { everythingServerScript } from "@arbor/core/testing";
import { type APIRequestContext, expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  messageBox,
  openSession,
  patchConfig,
  sendFromComposer,
  stateLine,
  transcript,
  userMessages,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";
import { LANE } from "./lane.js";

// Issue #11 in Chromium: the app's MCP config is written while it runs (the app watches the file)
// with the MCP project's `everything` reference server and a server whose command does not exist;
// a session calls an MCP tool with manual approval, and the settings show the servers' states.

interface ServerState {
  name: string;
  status: string;
  error?: string;
}

async function mcpServers(request: APIRequestContext): Promise<ServerState[]> {
  const response = await request.get("/api/mcp/servers");
  expect(response.status()).toBe(200);
  return ((await response.json()) as { servers: ServerState[] }).servers;
}

test.beforeAll(async ({ request }) => {
  writeFileSync(
    LANE.mcpConfig,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
        ghost: { command: "arbor-e2e-no-such-mcp-server" },
      },
    }),
  );
  await expect
    .poll(async () => (await mcpServers(request)).map((s) => `${s.name}:${s.status}`), {
      timeout: 30_000,
    })
    .toEqual(["everything:connected", "ghost:failed"]);
});

test.afterAll(async ({ request }) => {
  rmSync(LANE.mcpConfig, { force: true });
  // the other specs see no MCP tools again
  await expect.poll(async () => (await mcpServers(request)).length, { timeout: 30_000 }).toBe(0);
});

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("a session calls an MCP tool after the user approves it; the card names the server", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await patchConfig(request, session_id, {
    approval_policy: { type: "manual" },
    approve_read_only: false,
  });
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_sum_1",
          name: "mcp__everything__get-sum",
          arguments: { a: 2, b: 3 },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Two and three make five." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Add 2 and 3 with the MCP tool.");

  const call = transcript(page).getByRole("listitem", {
    name: "Tool call mcp__everything__get-sum",
  });
  await expect(call).toContainText("Waiting for approval");
  await expect(call).toContainText("MCP server everything");
  await keepScreenshot(page, testInfo, "mcp-approval-pending");
  await call.getByRole("button", { name: "Approve", exact: true }).click();

  await expect(
    transcript(page).getByRole("button", { name: "mcp__everything__get-sum result" }),
  ).toBeVisible();
  await expect(assistantMessages(page).last()).toContainText("Two and three make five.");
  await expect(stateLine(page)).toHaveText("Ready");

  const requests = await fakeLlmRequests(request);
  const first = requests[0]?.body as { tools?: Array<{ name: string }> } | undefined;
  const offered = first?.tools ?? [];
  expect(offered.map((t) => t.name)).toContain("mcp__everything__get-sum");
  expect(JSON.stringify(requests[1]?.body)).toContain("The sum of 2 and 3 is 5.");
});

test("the settings panel shows each MCP server's state, the failed one's reason, and reconnects", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await openSession(page, session_id);
  await page.getByRole("button", { name: "Session settings" }).click();
  const list = page.getByRole("list", { name: "MCP servers" });
  const servers = list.getByTestId("mcp-server");
  await expect(servers).toHaveCount(2);
  await expect(servers.nth(0)).toHaveAttribute("data-status", "connected");
  await expect(servers.nth(0)).toContainText("everything");
  await expect(servers.nth(1)).toHaveAttribute("data-status", "failed");
  // the server starts in the sandbox: bwrap reports the missing command
  await expect(servers.nth(1).getByTestId("mcp-error")).toContainText("No such file or directory");
  await keepScreenshot(page, testInfo, "mcp-settings");

  await list.getByRole("button", { name: "Reconnect everything" }).click();
  await expect(list.getByRole("button", { name: "Reconnect everything" })).toBeEnabled();
  await expect(servers.nth(0)).toHaveAttribute("data-status", "connected");
});

test("a resource attached from the picker is stored as a resource card and reaches the model", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "I read the resource." }] }]);
  await openSession(page, session_id);
  await page.getByRole("button", { name: "Attach file" }).click();
  const resources = page.getByRole("listbox", { name: "MCP resources" });
  const first = resources.getByRole("option").first();
  const uri = (await first.getAttribute("title")) ?? "";
  expect(uri).not.toBe("");
  await first.click();
  await page.getByRole("button", { name: "Add resource" }).click();
  await expect(page.getByRole("list", { name: "Attached resources" })).toContainText("everything:");
  await page.getByRole("button", { name: "Send" }).click();

  await expect(transcript(page).getByText(uri).first()).toBeVisible();
  await expect(assistantMessages(page).last()).toContainText("I read the resource.");
  await keepScreenshot(page, testInfo, "mcp-resource");
  const requests = await fakeLlmRequests(request);
  expect(JSON.stringify(requests.at(-1)?.body)).toContain(uri);
});

test("a / prompt adds each of its messages to the conversation, and the model answers", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "Resource 3 looks fine." }] }]);
  await openSession(page, session_id);
  await messageBox(page).fill("/resource");
  const menu = page.getByRole("listbox", { name: "MCP prompts" });
  await menu.getByRole("option", { name: /everything:resource-prompt/ }).click();
  await page.getByRole("textbox", { name: /resourceType/ }).fill("Text");
  await page.getByRole("textbox", { name: /resourceId/ }).fill("3");
  await page.getByRole("button", { name: "Use prompt" }).click();

  // the prompt's two messages are two cards: its text, then its embedded resource
  await expect(userMessages(page)).toHaveCount(2);
  await expect(userMessages(page).nth(0)).toContainText(
    "This prompt includes the Text resource with id: 3",
  );
  await expect(userMessages(page).nth(1)).toHaveAttribute("data-message-type", "mcp_resource");
  await expect(userMessages(page).nth(1)).toContainText("demo://resource/dynamic/text/3");
  await expect(assistantMessages(page).last()).toContainText("Resource 3 looks fine.");
  await expect(messageBox(page)).toHaveValue("");
  await keepScreenshot(page, testInfo, "mcp-prompt");
  const sent = JSON.stringify((await fakeLlmRequests(request)).at(-1)?.body);
  expect(sent).toContain("This prompt includes the Text resource with id: 3");
  expect(sent).toContain("demo://resource/dynamic/text/3");
});

test("a running MCP tool's progress shows on its card", async ({ page, request }, testInfo) => {
  const { session_id } = await createSession(request);
  await patchConfig(request, session_id, { approval_policy: { type: "auto_approve_all" } });
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_long_1",
          name: "mcp__everything__trigger-long-running-operation",
          arguments: { duration: 4, steps: 4 },
        },
      ],
    },
    { blocks: [{ type: "text", text: "The long operation finished." }] },
  ]);
  await openSession(page, session_id);
  await sendFromComposer(page, "Run the long operation.");
  const call = transcript(page).getByRole("listitem", {
    name: "Tool call mcp__everything__trigger-long-running-operation",
  });
  await expect(
    call.getByRole("status", {
      name: "Progress of mcp__everything__trigger-long-running-operation",
    }),
  ).toHaveText(/^progress [123]\/4$/);
  await keepScreenshot(page, testInfo, "mcp-progress");
  await expect(assistantMessages(page).last()).toContainText("The long operation finished.");
  await expect(call.getByRole("status", { name: /^Progress of/ })).toHaveCount(0);
});

test("@ opens the picker; a resource template's variables make the URI", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "Read resource 5." }] }]);
  await openSession(page, session_id);
  await messageBox(page).pressSequentially("read @");
  const templates = page.getByRole("listbox", { name: "MCP resource templates" });
  await templates.getByRole("option", { name: /demo:\/\/resource\/dynamic\/text\// }).click();
  await page.getByRole("textbox", { name: "resourceId" }).fill("5");
  await page.getByRole("button", { name: "Add resource" }).click();
  await expect(
    page.getByRole("list", { name: "Attached resources" }).getByRole("listitem"),
  ).toHaveAttribute("title", "demo://resource/dynamic/text/5");
  await expect(messageBox(page)).toHaveValue("read ");
  await keepScreenshot(page, testInfo, "mcp-template");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(transcript(page).getByText("demo://resource/dynamic/text/5").first()).toBeVisible();
  // the resource is its own message, answered first; the text "read" follows it
  await expect(assistantMessages(page).first()).toContainText("Read resource 5.");
  const requests = await fakeLlmRequests(request);
  expect(JSON.stringify(requests[0]?.body)).toContain("demo://resource/dynamic/text/5");
});
