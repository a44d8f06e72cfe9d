import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendViaApi,
  transcript,
  userMessages,
} from "./app.js";
import { fakeLlmRequests, fakeSummaryRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

/** A long question (~520 tokens) that ends "Question number n". */
function longQuestion(n: number): string {
  const facts = Array.from({ length: 42 }, (_, i) => `Fact ${n}.${i}: the quick brown fox jumps.`);
  return `${facts.join(" ")} Question number ${n}`;
}

test("history past the trigger is optimized: the divider expands to the originals, full history shows all", async ({
  page,
  request,
}, testInfo) => {
  // A 4,300-token window (the system prompt and the tool definitions take about 2,160 of it: the
  // prompt names the tools, their definitions come with the request) and the recent-N strategy,
  // which drops without summarizing. The questions are long and the answers short, so the context
  // crosses the 80% trigger (3,440 tokens) when the third question is sent (~3,740), not after an
  // answer (~3,220 after the second): the optimization runs on the send, not ahead of it.
  const { session_id } = await createSession(request, {
    config: {
      model: { protocol: "anthropic-messages", model: "claude-e2e", context_window: 4_300 },
      // the figures above are Arbor's estimate; the fake LLM counts JSON / 4
      optimization: {
        strategy: { type: "recent_n", n: 2 },
        trigger_ratio: 0.8,
        target_ratio: 0.5,
        token_counting: "estimate",
      },
    },
  });
  await scriptFakeLlm(
    request,
    [1, 2, 3].map((n) => ({ blocks: [{ type: "text" as const, text: `Answer number ${n}.` }] })),
  );
  for (const n of [1, 2, 3]) await sendViaApi(request, session_id, longQuestion(n));

  // What the model saw last: the third question alone, the first two exchanges dropped.
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(3);
  const lastBody = JSON.stringify(requests[2]?.body);
  expect(lastBody).toContain("Question number 3");
  expect(lastBody).not.toContain("Question number 1");
  expect(lastBody).not.toContain("Fact 2.0");
  expect(lastBody).not.toContain("Answer number 2");

  await openSession(page, session_id);
  const views = page.getByRole("radiogroup", { name: "Transcript view" });
  // the conversation as the person had it first (issue #27): their own messages, all of them,
  // and where the model's view now starts
  await expect(views.getByRole("radio", { name: "Full history" })).toBeChecked();
  await expect(userMessages(page)).toHaveText([
    /Question number 1$/,
    /Question number 2$/,
    /Question number 3$/,
  ]);
  const divider = transcript(page).getByRole("region", { name: "History optimization" });
  await expect(divider).toContainText(/^History optimized · /);
  await expect(divider.getByRole("button")).toHaveCount(0);
  await views.getByRole("radio", { name: "What the model sees" }).click();
  const toggle = divider.getByRole("button", { name: /^History optimized · / });
  await expect(toggle).toHaveText(
    /^History optimized · [\d.]+k? → [\d.]+k? tokens · 5 → 1 messages\s*· show 4 originals$/,
  );
  await expect(userMessages(page)).toHaveText([/Question number 3$/]);
  await keepScreenshot(page, testInfo, "optimization-divider");

  await toggle.click();
  const originals = divider.getByRole("region", { name: "Original messages" });
  await expect(originals.getByRole("article")).toHaveCount(4);
  await expect(originals.getByRole("article", { name: "You message" })).toHaveCount(2);
  await expect(originals).toContainText("Fact 2.41: the quick brown fox jumps.");
  await expect(originals).toContainText("Answer number 2.");
  await expect(toggle).toContainText("hide originals");
  await keepScreenshot(page, testInfo, "optimization-expanded");

  await views.getByRole("radio", { name: "Full history" }).click();
  await expect(views.getByRole("radio", { name: "Full history" })).toBeChecked();
  // over the full history the divider marks the cut, without a second copy of the originals
  await expect(divider.getByRole("button")).toHaveCount(0);
  await expect(userMessages(page)).toHaveText([
    /Question number 1$/,
    /Question number 2$/,
    /Question number 3$/,
  ]);
  await expect(assistantMessages(page)).toHaveCount(3);
  await keepScreenshot(page, testInfo, "optimization-full-history");

  await views.getByRole("radio", { name: "What the model sees" }).click();
  await expect(divider.getByRole("button", { name: /^History optimized · / })).toBeVisible();
  await expect(userMessages(page)).toHaveText([/Question number 3$/]);
});

const PADDING = "The archive review goes on, shelf after shelf, with nothing new. ".repeat(15);

test("Optimize now: the model summarizes, the divider names it, the meter shows the fixed part, the settings change the trigger", async ({
  page,
  request,
}, testInfo) => {
  // an 8,000-token window aimed at 45% (3,600 tokens): the fixed part (~2,350) and six padded
  // turns are over the target, far below the 80% trigger, until "Optimize now"
  const { session_id } = await createSession(request, {
    config: {
      model: { protocol: "anthropic-messages", model: "claude-e2e", context_window: 8_000 },
      optimization: {
        strategy: { type: "recent_n", n: 2 },
        trigger_ratio: 0.8,
        target_ratio: 0.45,
        token_counting: "estimate",
      },
    },
  });
  await scriptFakeLlm(
    request,
    [1, 2, 3, 4, 5, 6].map((n) => ({
      blocks: [{ type: "text" as const, text: `Noted, room ${n}.` }],
    })),
  );
  for (const n of [1, 2, 3, 4, 5, 6]) {
    await sendViaApi(
      request,
      session_id,
      `The vault code for room R${n} is garnet-10${n}4. ${PADDING}`,
    );
  }
  await openSession(page, session_id);

  // the usage meter names the fixed part every request pays
  const meter = page.getByRole("meter", { name: "Context usage" });
  await expect(meter).toHaveAttribute(
    "aria-valuetext",
    /[\d.]+k in every request \(instructions [\d.]+k? \+ tool descriptions [\d.]+k\)/,
  );

  const before = Number(await meter.getAttribute("aria-valuenow"));
  expect(before).toBeGreaterThan(3_600);

  await page.getByRole("button", { name: "Optimize now", exact: true }).click();
  await expect(page.getByText(/^History optimized: [\d.]+k → [\d.]+k tokens$/)).toBeVisible();
  const divider = transcript(page).getByRole("region", { name: "History optimization" });
  await expect(divider.getByRole("list", { name: "How it was optimized" })).toHaveText(
    /Summary by anthropic-messages\/claude-e2e · replaced 10 messages, [\d.]+k tokens/,
  );
  // the summary itself, as the model reads it (issue #27 case 8)
  const summary = divider.getByRole("figure", { name: "Summary the model reads" });
  await expect(summary).toContainText("garnet-1014");
  await expect(summary).toContainText("garnet-1054");
  // the meter counts the optimized request at once
  await expect
    .poll(async () => Number(await meter.getAttribute("aria-valuenow")))
    .toBeLessThan(before);
  // the person's own messages stay in the default view, all six
  await expect(userMessages(page)).toHaveCount(6);
  await expect(userMessages(page).last()).toHaveText(/room R6 is garnet-1064/);
  await keepScreenshot(page, testInfo, "optimize-now");
  await page
    .getByRole("radiogroup", { name: "Transcript view" })
    .getByRole("radio", { name: "What the model sees" })
    .click();
  await expect(userMessages(page)).toHaveText([/room R6 is garnet-1064/]);
  await expect(summary).toContainText("garnet-1014");

  // the model was asked once, with the summarization prompt; its summary kept the codes
  const summaries = await fakeSummaryRequests(request);
  expect(summaries).toHaveLength(1);
  const messages = await request.get(`/api/sessions/${session_id}/messages?view=optimized`);
  const body = JSON.stringify(await messages.json());
  for (const n of [1, 2, 3, 4, 5]) expect(body).toContain(`garnet-10${n}4`);

  // the settings change when optimization starts
  await page.getByRole("button", { name: "Session settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Session settings" });
  const trigger = dialog.getByRole("textbox", { name: "Optimize at (% of window)" });
  await expect(trigger).toHaveValue("80");
  await trigger.fill("70");
  await dialog.getByRole("combobox", { name: "Summaries written by" }).selectOption("extractive");
  await keepScreenshot(page, testInfo, "optimization-settings");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toBeHidden();
  await expect
    .poll(async () => {
      const detail = await request.get(`/api/sessions/${session_id}`);
      return ((await detail.json()) as { config: { optimization: unknown } }).config.optimization;
    })
    .toMatchObject({
      trigger_ratio: 0.7,
      target_ratio: 0.45,
      summary_model: { protocol: "offline" },
    });
});
