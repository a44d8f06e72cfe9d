import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendFromComposer,
  stateLine,
  transcript,
} from "./app.js";
import { resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Context folding in the chat (issue #13): a session with folding on, whose model folds a
// subtask. The fold's card sits under the `branch` call: description, status, tokens used of its
// budget, the message the parent got, and its steps, collapsed until asked.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("a fold shows as a collapsible card with its status, budget and steps", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request, {
    config: {
      approval_policy: { type: "auto_approve_all" },
      folding: { enabled: true },
    },
  });
  // the run is sequential: the parent's branch, the fold's two turns, the parent's answer
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          name: "branch",
          arguments: { description: "read the notes", prompt: "Read notes.txt, report line 1." },
        },
      ],
    },
    {
      blocks: [{ type: "toolCall", name: "read_file", arguments: { path: "notes.txt" } }],
      usage: { input: 900, output: 100 },
    },
    {
      blocks: [{ type: "toolCall", name: "return", arguments: { message: "Line 1 is read." } }],
      usage: { input: 1000, output: 50 },
    },
    { blocks: [{ type: "text", text: "The fold found it: line 1 is read." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Fold a look at the notes.");

  await expect(assistantMessages(page).last()).toContainText("The fold found it");
  await expect(stateLine(page)).toHaveText("Ready");
  const card = transcript(page).getByRole("region", { name: "Fold: read the notes" });
  await expect(card).toBeVisible();
  await expect(card).toContainText("Returned");
  await expect(card).toContainText("Line 1 is read.");
  // tokens used of the default budget: the two turns' usage and the file read
  await expect(card).toContainText(/\d(\.\d)?k \/ 8\.2k tokens/);
  await expect(card.getByRole("listitem", { name: "Tool call read_file" })).toHaveCount(0);
  await card.getByRole("button", { name: "Steps of fold read the notes" }).click();
  await expect(card.getByRole("listitem", { name: "Tool call read_file" })).toBeVisible();
  await expect(card.getByRole("listitem", { name: "Tool call return" })).toBeVisible();
  await expect(card.getByRole("figure", { name: "Fold prompt" })).toContainText(
    "Read notes.txt, report line 1.",
  );
  await keepScreenshot(page, testInfo, "fold-card");

  // after a reload the card comes back from GET /folds
  await page.reload();
  const again = transcript(page).getByRole("region", { name: "Fold: read the notes" });
  await expect(again).toContainText("Returned");
});

test("the session settings turn folding on and keep its limits", async ({ page, request }) => {
  const { session_id } = await createSession(request);
  await openSession(page, session_id);
  await page.getByRole("button", { name: "Session settings" }).click();
  const toggle = page.getByRole("checkbox", { name: /fold side work/ });
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  await page.getByRole("button", { name: "Save" }).click();
  type Folding = { enabled: boolean; max_depth: number };
  const folding = async (): Promise<Folding> => {
    const response = await request.get(`/api/sessions/${session_id}`);
    return ((await response.json()) as { config: { folding: Folding } }).config.folding;
  };
  await expect.poll(async () => (await folding()).enabled).toBe(true);
  // the other limits stay the defaults they were
  expect((await folding()).max_depth).toBe(3);
  await page.reload();
  await page.getByRole("button", { name: "Session settings" }).click();
  await expect(page.getByRole("checkbox", { name: /fold side work/ })).toBeChecked();
});
