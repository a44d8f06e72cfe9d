import { expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  branchMessages,
  createSession,
  keepScreenshot,
  messageBox,
  openSession,
  sendFromComposer,
  stateLine,
  transcript,
  userMessages,
} from "./app.js";
import {
  type FakeRequest,
  fakeLlmRequests,
  numberedSentences,
  releaseFakeLlm,
  resetFakeLlm,
  scriptFakeLlm,
} from "./fake-llm.js";

// Typing while the agent works (docs/decisions/0011): the composer stays usable during a run,
// Enter steers the agent at its next step, Alt+Enter sends a follow-up for after the run, and the
// composer lists each queued message until it is delivered and appears in the transcript at its
// real place. The fake LLM holds each answer after its first sentences (holdAfterChunks) until the
// test has typed and checked what it needs mid-run, then releases it: no race with a timer.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

/** The composer's list of queued messages (CSS, not getByRole: see app.ts on mid-stream queries). */
function queuedList(page: Page) {
  return page.locator('form[aria-label="Message composer"] ul[aria-label="Queued messages"]');
}

/** The last user text of a model request (Anthropic Messages body). */
function lastUserText(request: FakeRequest | undefined): string {
  const body = request?.body as {
    messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  };
  const user = body.messages.filter((m) => m.role === "user").at(-1);
  if (typeof user?.content === "string") return user.content;
  return (user?.content ?? []).map((b) => (b.type === "text" ? (b.text ?? "") : b.type)).join("|");
}

test("Enter while the agent works steers it after the running tool, before its next request", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request, {
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  const preamble = numberedSentences(40, "Reading");
  await scriptFakeLlm(request, [
    {
      blocks: [
        { type: "text", text: preamble },
        { type: "toolCall", name: "read_file", arguments: { path: "notes.txt" } },
      ],
      chunkSize: 12,
      // held after its first sentences (two events open the message, one a block) until released
      holdAfterChunks: 8,
    },
    { blocks: [{ type: "text", text: "Only the first line: first line of the notes." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Read notes.txt and tell me everything.");
  await expect(assistantMessages(page).last()).toContainText("Reading sentence 2.");
  await expect(stateLine(page)).toHaveText(/^Streaming · /);

  // the composer is still usable, the Stop button is still there
  await expect(messageBox(page)).toBeEnabled();
  await expect(page.locator('form[aria-label="Message composer"] button[title="Esc"]')).toHaveText(
    "Stop",
  );
  await sendFromComposer(page, "Actually, only the first line.");

  await expect(queuedList(page)).toContainText("Queued · steer");
  await expect(queuedList(page)).toContainText("Actually, only the first line.");
  await keepScreenshot(page, testInfo, "steer-queued");
  expect(await releaseFakeLlm(request)).toBe(1);

  // delivered after the tool's result: it leaves the list and sits in the transcript there
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(queuedList(page)).toBeHidden();
  await expect(userMessages(page).last()).toContainText("Actually, only the first line.");
  await expect(assistantMessages(page).last()).toContainText("Only the first line");
  await keepScreenshot(page, testInfo, "steer-delivered");

  const stored = await branchMessages(request, session_id);
  expect(
    stored.map((m) => (m.body.message_type === "text" ? m.body.text : m.body.message_type)),
  ).toEqual([
    "Read notes.txt and tell me everything.",
    "tool_request",
    "tool_result",
    "Actually, only the first line.",
    "Only the first line: first line of the notes.",
  ]);
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  expect(lastUserText(requests[1])).toContain("Actually, only the first line.");
  expect(JSON.stringify(requests[1]?.body)).toContain("third line of the notes");
});

test("Alt+Enter queues a follow-up that starts its own run once the answer is done", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  const story = numberedSentences(40, "Story");
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: story }], chunkSize: 12, holdAfterChunks: 8 },
    { blocks: [{ type: "text", text: "In short: forty numbered sentences." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Tell me a story.");
  await expect(assistantMessages(page).last()).toContainText("Story sentence 2.");

  const box = messageBox(page);
  await box.fill("Now summarise it in one line.");
  await box.press("Alt+Enter");
  await expect(box).toHaveValue("");
  await expect(queuedList(page)).toContainText("Queued · follow-up");
  // still streaming the first answer: the follow-up is not in the transcript yet
  await expect(transcript(page)).not.toContainText("Now summarise it in one line.");
  await keepScreenshot(page, testInfo, "follow-up-queued");
  expect(await releaseFakeLlm(request)).toBe(1);

  await expect(assistantMessages(page).last()).toContainText("In short: forty numbered sentences.");
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(queuedList(page)).toBeHidden();
  await expect(userMessages(page)).toHaveCount(2);
  await expect(userMessages(page).last()).toContainText("Now summarise it in one line.");
  await keepScreenshot(page, testInfo, "follow-up-delivered");

  const stored = await branchMessages(request, session_id);
  expect(stored.map((m) => m.body.text)).toEqual([
    "Tell me a story.",
    story,
    "Now summarise it in one line.",
    "In short: forty numbered sentences.",
  ]);
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  expect(lastUserText(requests[1])).toBe("Now summarise it in one line.");
});
