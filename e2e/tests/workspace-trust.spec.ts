import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testServerScript } from "@arbor/core/testing";
import { expect, test } from "@playwright/test";
import { nonce, Servers } from "../security/harness.js";
import { keepScreenshot } from "./app.js";

// Issue #24 in Chromium: a workspace whose mcp_servers.json defines a server. The chat shows the
// trust prompt with the command that would run; trusting starts the server; an edit of the file
// asks again. This spec starts its own app on a workspace of its own (the shared app's fixture
// workspace must not carry an MCP file), signed in through the install token's URL.

test.use({ extraHTTPHeaders: {} });

let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
});
test.afterAll(async () => {
  await servers?.close();
});

function entry(mark: string, tag: string) {
  return {
    command: "sh",
    args: ["-c", `echo ${tag} >> '${mark}'; exec '${process.execPath}' '${testServerScript()}'`],
  };
}

test("the trust prompt shows the command; trusting starts the server; a changed file asks again", async ({
  page,
}, testInfo) => {
  const mark = join(servers.workspace, `ran-${nonce()}.txt`);
  const config = join(servers.workspace, "mcp_servers.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { repo: entry(mark, "first") } }));
  const id = await servers.api.createSession({}, "trust");

  await page.goto(`${servers.url}/?token=${servers.token}`);
  await page.goto(`${servers.url}/sessions/${id}`);
  const prompt = page.getByTestId("workspace-trust-prompt");
  await expect(prompt).toBeVisible({ timeout: 20_000 });
  const card = prompt.getByTestId("trust-definition");
  await expect(card).toHaveAttribute("data-name", "repo");
  await expect(card).toHaveAttribute("data-status", "untrusted");
  // the command as a shell would need it written (quotes escaped)
  await expect(card.getByTestId("trust-command")).toContainText("sh -c 'echo first >> ");
  await expect(card.getByTestId("trust-command")).toContainText(mark);
  await expect(card).toContainText("mcp_servers.json");
  await keepScreenshot(page, testInfo, "trust-prompt");
  expect(() => readFileSync(mark)).toThrow();

  await card.getByRole("button", { name: "Trust repo" }).click();
  await expect(prompt).toBeHidden();
  await page.getByRole("button", { name: "Session settings" }).click();
  const server = page.getByRole("list", { name: "MCP servers" }).getByTestId("mcp-server");
  await expect(server).toHaveAttribute("data-status", "connected", { timeout: 15_000 });
  expect(readFileSync(mark, "utf8").trim()).toBe("first");
  const listed = page
    .getByRole("list", { name: "Workspace configuration" })
    .getByTestId("trust-definition");
  await expect(listed).toHaveAttribute("data-status", "trusted");
  await expect(listed).toContainText("by Owner");
  await page.keyboard.press("Escape");

  // the file changes under the running app: the server stops and the prompt asks again
  writeFileSync(config, JSON.stringify({ mcpServers: { repo: entry(mark, "second") } }));
  await expect(prompt).toBeVisible({ timeout: 15_000 });
  await expect(prompt.getByTestId("trust-definition")).toHaveAttribute("data-status", "changed");
  await expect(prompt.getByTestId("trust-command")).toContainText("echo second");
  await keepScreenshot(page, testInfo, "trust-prompt-changed");
  expect(readFileSync(mark, "utf8").trim()).toBe("first");

  await prompt.getByRole("button", { name: "Trust repo" }).click();
  await expect(prompt).toBeHidden();
  await expect
    .poll(() => readFileSync(mark, "utf8").trim().split("\n"), { timeout: 15_000 })
    .toEqual(["first", "second"]);
});
