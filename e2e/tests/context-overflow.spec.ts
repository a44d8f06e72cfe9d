import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendFromComposer,
  sendViaApi,
  stateLine,
  transcript,
  userMessages,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Issue #10 item 5 in the browser: the provider refuses a request as too long (the fake LLM
// answers 400 "prompt is too long" in Anthropic's own error format); the session optimizes the
// branch, retries once, and the transcript shows the optimization divider over the answer.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("a 400 prompt is too long: the history is optimized, the request retried, the divider shown", async ({
  page,
  request,
}, testInfo) => {
  // recent-N drops without summarizing: what the model no longer sees sits behind the divider
  const { session_id } = await createSession(request, {
    config: { optimization: { strategy: { type: "recent_n", n: 2 } } },
  });
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: `First answer. ${"More words. ".repeat(40)}` }] },
    { blocks: [{ type: "text", text: `Second answer. ${"More words. ".repeat(40)}` }] },
    { error: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" } },
    { blocks: [{ type: "text", text: "It fits now." }] },
  ]);
  await sendViaApi(request, session_id, "Question number 1");
  await sendViaApi(request, session_id, "Question number 2");

  await openSession(page, session_id);
  await sendFromComposer(page, "Question number 3");
  await expect(assistantMessages(page).last()).toContainText("It fits now.");
  await expect(stateLine(page)).toHaveText("Ready");

  // the refused request, then the optimized one sent again
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(4);
  const [refused, retried] = requests.slice(-2).map((r) => JSON.stringify(r.body));
  expect(refused).toContain("Question number 1");
  expect(retried).not.toContain("Question number 1");
  expect(retried).toContain("Question number 3");

  await page
    .getByRole("radiogroup", { name: "Transcript view" })
    .getByRole("radio", { name: "What the model sees" })
    .click();
  const divider = transcript(page).getByRole("region", { name: "History optimization" });
  await expect(divider.getByRole("button", { name: /^History optimized · / })).toBeVisible();
  await expect(userMessages(page)).toHaveText([/Question number 3$/]);
  // no error shown (Next's route announcer is an empty alert of its own)
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveCount(0);
  await keepScreenshot(page, testInfo, "context-overflow-divider");
});
