import { everythingServerScript } from "@arbor/core/testing";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { createSession, keepScreenshot, openSession } from "./app.js";

// Issue #27, case 7: an MCP server added in Session settings by the signed-in admin (the e2e
// app's owner), with the MCP project's `everything` reference server: it starts, its tools are
// listed; turned off, they are gone (from the list and from what the model gets); removed, the
// server is gone. The app keeps it in the database (docs/decisions/0056).

const NAME = "ui-everything";

async function serverNames(request: APIRequestContext): Promise<string[]> {
  const response = await request.get("/api/mcp/servers");
  return ((await response.json()) as { servers: { name: string }[] }).servers.map((s) => s.name);
}

test.afterAll(async ({ request }) => {
  // the other specs see the servers they configure, not this one
  if ((await serverNames(request)).includes(NAME)) {
    await request.delete(`/api/mcp/servers/${NAME}`);
  }
});

test("an MCP server added in the settings shows its tools; turned off, they are gone", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await openSession(page, session_id);
  await page.getByRole("button", { name: "Session settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Session settings" });
  const section = dialog.getByRole("region", { name: "MCP servers" });
  await expect(section).toContainText("MCP servers give the model more tools");

  const form = section.getByRole("group", { name: "Add an MCP server" });
  await form.getByRole("textbox", { name: "Server name" }).fill(NAME);
  await form.getByRole("textbox", { name: "Command" }).fill(process.execPath);
  await form
    .getByRole("textbox", { name: "Arguments (one per line)" })
    .fill(`${everythingServerScript()}\nstdio`);
  await form.getByRole("button", { name: "Add server" }).click();

  const item = section.getByTestId("mcp-server").filter({ hasText: NAME });
  await expect(item).toHaveAttribute("data-status", "connected", { timeout: 30_000 });
  await item.getByText(/^\d+ tools/).click();
  await expect(item.getByText(`mcp__${NAME}__echo`)).toBeVisible();
  await keepScreenshot(page, testInfo, "mcp-server-added");

  const enabled = item.getByRole("checkbox", { name: `Enabled ${NAME}` });
  await expect(enabled).toBeChecked();
  // the switch shows the server's state: it changes once the server has answered
  await enabled.click();
  await expect(item).toHaveAttribute("data-status", "disabled");
  await expect(item.getByText(`mcp__${NAME}__echo`)).toHaveCount(0);
  await expect(enabled).not.toBeChecked();

  await enabled.click();
  await expect(item).toHaveAttribute("data-status", "connected", { timeout: 30_000 });
  await expect(enabled).toBeChecked();

  await item.getByRole("button", { name: `Remove ${NAME}` }).click();
  await expect(item).toHaveCount(0);
  expect(await serverNames(request)).not.toContain(NAME);

  // every change is in the audit log, with who made it
  for (const action of [
    "mcp_server_added",
    "mcp_server_disabled",
    "mcp_server_enabled",
    "mcp_server_removed",
  ]) {
    const audit = await request.get(`/api/audit?action=${action}`);
    const targets = ((await audit.json()) as { entries: { target: string }[] }).entries.map(
      (e) => e.target,
    );
    expect(targets, action).toContain(`mcp_server:${NAME}`);
  }
});
