import { expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendFromComposer,
  sendViaApi,
  stateLine,
  transcript,
} from "./app.js";
import {
  fakeLlmRequests,
  numberedSentences,
  resetFakeLlm,
  scriptFakeLlm,
  slowText,
} from "./fake-llm.js";

// Issue #27 case 10, "errors are over-signalled": one place per error, the right words, and
// "Retry" for a retry. Each test counts what a person reads on the whole page (header, toasts,
// banners, transcript, the bar above the composer).

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

/** How many times `text` appears in what the page shows (toasts included). */
async function timesShown(page: Page, text: string): Promise<number> {
  const body = String(await page.evaluate("document.body.innerText"));
  return body.split(text).length - 1;
}

const BROKEN = "The model server broke down.";

test("a provider 500 is said once, with Retry; Retry sends the request again and the answer arrives", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(90_000);
  const { session_id } = await createSession(request);
  // a plain 500 ("api_error") is not one the runtime retries by itself: the run fails at once
  await scriptFakeLlm(request, [
    { error: { status: 500, message: BROKEN } },
    { blocks: [{ type: "text", text: "Here it is." }] },
  ]);
  await openSession(page, session_id);
  await sendFromComposer(page, "Tell me something.");

  const retry = page.getByRole("button", { name: "Retry", exact: true });
  await expect(retry).toBeVisible({ timeout: 30_000 });
  await expect(stateLine(page)).toHaveAttribute("data-state", "Failed");
  // toasts and the live error arrive a moment after the state: give them the time to show up
  await page.waitForTimeout(1_500);
  expect(await timesShown(page, BROKEN)).toBe(1);
  await expect(retry).toHaveCount(1);
  await keepScreenshot(page, testInfo, "provider-500");
  expect(await fakeLlmRequests(request)).toHaveLength(1);

  await retry.click();
  await expect(assistantMessages(page).last()).toContainText("Here it is.", { timeout: 20_000 });
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(retry).toHaveCount(0);
  expect(await timesShown(page, BROKEN)).toBe(0);
  expect(await fakeLlmRequests(request)).toHaveLength(2);
});

test("an interrupt says Interrupted once", async ({ page, request }, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [slowText(numberedSentences(60, "Stoppable"), 100, 16)]);
  await openSession(page, session_id);
  await sendFromComposer(page, "Tell me a long story.");
  await expect(assistantMessages(page).last()).toContainText("Stoppable sentence 2.");
  await page.keyboard.press("Escape");
  await expect(stateLine(page)).toHaveText("Paused");
  await expect(page.getByRole("button", { name: "Resume" })).toBeVisible();
  await page.waitForTimeout(1_000);
  expect(await timesShown(page, "Interrupted")).toBe(1);
  await keepScreenshot(page, testInfo, "interrupted");
});

test("offline with a loaded session: the header says so, not Ready, and nothing claims the session failed to load", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "Loaded answer." }] }]);
  await sendViaApi(request, session_id, "hello");
  await openSession(page, session_id);
  await expect(assistantMessages(page).last()).toContainText("Loaded answer.");
  await expect(stateLine(page)).toHaveText("Ready");

  // the server is gone: every request of the session fails, the browser knows it is offline
  await page.route(`**/api/sessions/${session_id}**`, (route) => route.abort());
  await page.context().setOffline(true);
  await expect(stateLine(page)).toHaveText("Offline · trying to reconnect");
  // the live stream's reconnects fail meanwhile; what was loaded stays, and is not called unloadable
  await page.waitForTimeout(4_000);
  await expect(stateLine(page)).toHaveText(/Offline|Reconnecting/);
  expect(await timesShown(page, "Could not load the session")).toBe(0);
  await expect(assistantMessages(page).last()).toContainText("Loaded answer.");
  await keepScreenshot(page, testInfo, "offline-loaded");

  await page.context().setOffline(false);
  await page.unroute(`**/api/sessions/${session_id}**`);
  await expect(stateLine(page)).toHaveText("Ready", { timeout: 20_000 });
});

test("a tool error is shown open next to its call, marked as an error", async ({
  page,
  request,
}) => {
  const { session_id } = await createSession(request, {
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  await scriptFakeLlm(request, [
    {
      blocks: [
        { type: "toolCall", id: "r1", name: "read_file", arguments: { path: "no-such-file.txt" } },
      ],
      stopReason: "toolUse",
    },
    { blocks: [{ type: "text", text: "Done." }] },
  ]);
  await openSession(page, session_id);
  await sendFromComposer(page, "Read the missing file.");
  await expect(stateLine(page)).toHaveText("Ready", { timeout: 20_000 });
  const call = transcript(page).getByRole("listitem", { name: "Tool call read_file" });
  await expect(call).toHaveAttribute("data-result", "error");
  const toggle = call.getByRole("button", { name: "read_file result (error)" });
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(call.locator('[data-result-status="error"] pre')).toContainText("no-such-file.txt");
});
