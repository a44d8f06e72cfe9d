import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  keepScreenshot,
  sendFromComposer,
  stateLine,
  transcript,
} from "./app.js";

// The app on port 3101 has no provider configured: the offline model answers, deterministically,
// and uses the workspace tools like a real model would. No fake LLM server is involved.

test("with no provider configured the app starts on the offline model", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Arbor" })).toBeVisible();
});

test("the offline model lists the workspace files with its tool and answers", async ({
  page,
}, testInfo) => {
  await page.goto("/");
  await page.getByRole("button", { name: "New session", exact: true }).click();
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);

  await sendFromComposer(page, "list the files");

  // A new session runs read-only tools without asking (issue #27): the listing is approved by
  // its rule, and the card says so.
  const call = transcript(page).getByRole("listitem", { name: "Tool call list_files" });
  await expect(call).toContainText("Auto-approved · rule approve_read_only");

  await expect(stateLine(page)).toHaveText("Ready");
  const answer = assistantMessages(page).last();
  await expect(answer).toContainText("I listed the workspace root");
  await expect(answer).toContainText("README.md");
  await expect(answer).toContainText("src/");
  // the tool's own output, one click away, holds every file of the workspace
  const result = transcript(page).getByRole("button", { name: "list_files result" });
  await result.click();
  const listing = transcript(page).locator('[data-result-status="success"] pre');
  for (const file of ["README.md", "notes.txt", "src/"]) await expect(listing).toContainText(file);
  await keepScreenshot(page, testInfo, "offline-list-files");
});
