import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  patchConfig,
  sendFromComposer,
  stateLine,
  transcript,
} from "./app.js";
import { resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Issue #12 where the user sees it: a codebase tool's result card lists `file:line` links, and a
// link opens the file view at that line (the fixture workspace's src/greeting.ts).

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("find_definition's result lists file:line links that open the file at the line", async ({
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
          id: "toolu_def_1",
          name: "find_definition",
          arguments: { symbol: "DEFAULT_NAME" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "DEFAULT_NAME is defined in src/greeting.ts." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Where is DEFAULT_NAME defined?");
  const call = transcript(page).getByRole("listitem", { name: "Tool call find_definition" });
  await call.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(assistantMessages(page).last()).toContainText("defined in src/greeting.ts");
  await expect(stateLine(page)).toHaveText("Ready");

  await transcript(page).getByRole("button", { name: "find_definition result" }).click();
  const definitions = transcript(page).getByRole("list", { name: "Definitions of DEFAULT_NAME" });
  const link = definitions.getByRole("button", { name: "Open src/greeting.ts:5" });
  await expect(link).toBeVisible();
  await keepScreenshot(page, testInfo, "codebase-definition-card");

  await link.click();
  const view = page.getByRole("list", { name: "Contents of src/greeting.ts" });
  await expect(view).toBeVisible();
  const current = view.locator('[aria-current="location"]');
  await expect(current).toHaveCount(1);
  await expect(current).toContainText('export const DEFAULT_NAME = "world";');
  await keepScreenshot(page, testInfo, "codebase-file-view");
});
