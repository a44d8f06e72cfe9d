import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  messageBox,
  openSession,
  sendFromComposer,
  stateLine,
  userMessages,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm, slowText } from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("a new user creates a session from the home page and gets a streamed answer", async ({
  page,
  request,
}, testInfo) => {
  const answer = "Hello! I can read, search and edit the files of this workspace.";
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: answer }], chunkSize: 6 }]);

  await page.goto("/");
  await page.getByRole("button", { name: "New session", exact: true }).click();
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
  await expect(page.getByText("Ask the agent something to begin.")).toBeVisible();

  await sendFromComposer(page, "Hello, what can you do?");

  await expect(userMessages(page).last()).toContainText("Hello, what can you do?");
  await expect(assistantMessages(page).last()).toContainText(answer);
  await expect(stateLine(page)).toHaveText("Ready");
  await keepScreenshot(page, testInfo, "first-chat-answer");

  // The model got the user's words, over HTTP, in the provider's wire format.
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(1);
  expect(JSON.stringify(requests[0]?.body)).toContain("Hello, what can you do?");

  // The session is stored with the exchange, for the next visit.
  const sessionId = new URL(page.url()).pathname.split("/").at(-1) ?? "";
  const stored = await request.get(`/api/sessions/${sessionId}/messages`);
  const { messages } = (await stored.json()) as { messages: Array<{ role: string }> };
  expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
});

test("the state line counts streamed chunks, then says Ready", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  const answer = Array.from({ length: 60 }, (_, i) => `word${i + 1}`).join(" ");
  // ~60 deltas 120 ms apart: seven seconds of streaming to watch
  await scriptFakeLlm(request, [slowText(answer, 120, 8)]);

  await openSession(page, session_id);
  await expect(stateLine(page)).toHaveText("Ready");
  await sendFromComposer(page, "Count to forty, slowly.");

  await expect(stateLine(page)).toHaveText(/^Streaming · \d+ chunks?$/);
  const streaming = assistantMessages(page).last();
  await expect(streaming).toHaveAttribute("data-status", "streaming");
  await expect(streaming).toContainText("word1 ");
  await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();
  await keepScreenshot(page, testInfo, "streaming-state-line");

  await expect(stateLine(page)).toHaveText("Ready", { timeout: 20_000 });
  await expect(streaming).toHaveAttribute("data-status", "complete");
  await expect(streaming).toContainText("word60");
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
  await expect(messageBox(page)).toBeEnabled();
  await keepScreenshot(page, testInfo, "streaming-done");
});
