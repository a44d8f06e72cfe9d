import { type Browser, expect, test } from "@playwright/test";
import { type Servers, useServersAndBrowser } from "./harness.js";

// Issue #25, Admin › Audit log in Chromium against the production build: the rows the API wrote,
// a filter by action, paging by cursor, and "Verify chain". Signed in as the owner through the
// `?token=` URL, as a person opens the printed link.

let servers: Servers;
let browser: Browser;

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

test("the audit page lists, filters, pages and verifies", async () => {
  const api = servers.api;
  const id = await api.createSession({});
  // 51 rows: one more than a page
  for (let i = 0; i < 51; i++) {
    const patched = await api.patch(`/api/sessions/${id}/config`, { system_prompt: `v${i}` });
    expect(patched.status).toBe(200);
  }
  const page = await browser.newPage();
  await page.goto(`${servers.url}/?token=${servers.token}`);
  await page.goto(`${servers.url}/admin/audit`);
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();

  const rows = page.getByRole("row");
  const changed = page.getByRole("cell", { name: "Session config changed" });
  await expect(changed).toHaveCount(50);
  await expect(rows.nth(1).getByRole("cell").first()).toHaveText("51");
  await page.getByRole("button", { name: "Older →" }).click();
  await expect(changed).toHaveCount(1);
  await expect(rows.nth(1).getByRole("cell").first()).toHaveText("1");
  await expect(page.getByRole("button", { name: "Older →" })).toBeDisabled();
  await page.getByRole("button", { name: "← Newer" }).click();
  await expect(changed).toHaveCount(50);

  await page.getByLabel("Action").selectOption("tool_approved");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No entries match.")).toBeVisible();
  await page.getByRole("button", { name: "Clear" }).click();
  await expect(changed).toHaveCount(50);

  await page.getByRole("button", { name: "Verify chain" }).click();
  await expect(page.getByRole("status")).toContainText("Chain intact: 51 rows checked");
});
