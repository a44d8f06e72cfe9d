import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendFromComposer,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";
import { LANE } from "./lane.js";

// Workspace instructions: an AGENTS.md in the workspace shows in the session settings as
// "Instructions in use" and reaches the model's system prompt; an edit shows on the next opening.

const agentsFile = join(LANE.workspace, "AGENTS.md");

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});
test.afterEach(() => {
  rmSync(agentsFile, { force: true });
});

test("the settings show the workspace instructions in use, and the model gets them", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await openSession(page, session_id);

  const openSettings = () => page.getByRole("button", { name: "Session settings" }).click();
  await openSettings();
  const dialog = page.getByRole("dialog", { name: "Session settings" });
  const inUse = dialog.getByRole("region", { name: "Instructions in use" });
  await expect(inUse).toContainText("None: add AGENTS.md");
  await dialog.getByRole("button", { name: "Cancel" }).click();

  writeFileSync(agentsFile, "Always answer in haiku.\n");
  await openSettings();
  await expect(inUse.getByRole("list", { name: "Instruction files" })).toHaveText(
    /AGENTS\.md\s*23 characters/,
  );
  await inUse.getByText("Show the text").click();
  await expect(inUse).toContainText("Always answer in haiku.");
  await keepScreenshot(page, testInfo, "instructions-in-use");
  await dialog.getByRole("button", { name: "Cancel" }).click();

  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "Noted, in haiku." }] }]);
  await sendFromComposer(page, "Hello there.");
  await expect(assistantMessages(page).last()).toContainText("Noted, in haiku.");
  const [sent] = await fakeLlmRequests(request);
  expect(JSON.stringify(sent?.body)).toContain("From AGENTS.md:\\nAlways answer in haiku.");
});
