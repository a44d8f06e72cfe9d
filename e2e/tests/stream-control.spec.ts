import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  branchMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendFromComposer,
  stateLine,
} from "./app.js";
import {
  fakeLlmRequests,
  numberedSentences,
  resetFakeLlm,
  scriptFakeLlm,
  slowText,
} from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("Esc stops a streaming answer, Resume finishes the run", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  const long = numberedSentences(60, "Stoppable");
  const rest = "Picking up where I stopped: that is the whole answer.";
  await scriptFakeLlm(request, [
    // ~80 deltas 100 ms apart: long enough that Esc lands mid-stream
    slowText(long, 100, 16),
    { blocks: [{ type: "text", text: rest }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Tell me a long story.");
  const cut = assistantMessages(page).last();
  await expect(cut).toContainText("Stoppable sentence 2.");
  await expect(stateLine(page)).toHaveText(/^Streaming · /);

  await page.keyboard.press("Escape");

  await expect(stateLine(page)).toHaveText("Paused");
  const resume = page.getByRole("button", { name: "Resume" });
  await expect(resume).toBeVisible();
  // the part already streamed is kept, marked incomplete, and the stream really stopped
  await expect(cut).toHaveAttribute("data-status", "incomplete");
  await expect(cut).toContainText("Incomplete");
  await expect(cut).not.toContainText("Stoppable sentence 60.");
  await keepScreenshot(page, testInfo, "interrupt-paused");

  await resume.click();

  await expect(stateLine(page)).toHaveText("Ready");
  await expect(assistantMessages(page).last()).toContainText(rest);
  await expect(resume).toBeHidden();
  await keepScreenshot(page, testInfo, "interrupt-resumed");
  expect(await fakeLlmRequests(request)).toHaveLength(2);
});

test("a reload in the middle of a stream picks it up without losing or repeating text", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  const answer = numberedSentences(40, "Reloaded");
  // ~100 deltas 150 ms apart: fifteen seconds, so the reload lands mid-stream with text on both
  // sides even on a loaded machine (a reload there has taken over six seconds)
  await scriptFakeLlm(request, [slowText(answer, 150, 10)]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Stream something long.");
  await expect(assistantMessages(page).last()).toContainText("Reloaded sentence 3.");
  await keepScreenshot(page, testInfo, "reload-before");

  await page.reload();

  // Back on the page, the answer is still arriving: the reload did not wait for the end.
  await expect(stateLine(page)).toHaveText(/^Streaming · /);
  const card = assistantMessages(page).last();
  await expect(card).toContainText("Reloaded sentence 1.");
  await keepScreenshot(page, testInfo, "reload-mid-stream");

  await expect(stateLine(page)).toHaveText("Ready", { timeout: 40_000 });
  await expect(card).toHaveAttribute("data-status", "complete");
  // Every sentence exactly once, in order: nothing lost in the reload, nothing applied twice.
  await expect(card.locator(".arbor-markdown")).toHaveText(answer);
  await expect(assistantMessages(page)).toHaveCount(1);
  await keepScreenshot(page, testInfo, "reload-after");

  const stored = (await branchMessages(request, session_id)).filter((m) => m.role === "assistant");
  expect(stored.map((m) => m.body.text)).toEqual([answer]);
});
