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

// A call inside a fold that the session's approval policy holds for a person (decision 0035):
// the fold card shows it with the chat's Approve / Deny while the fold waits; approving it runs
// the call, the fold returns, and the card shows the call approved among its steps.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("a fold's held call waits in the fold card until it is approved", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request, {
    config: {
      // reads and `branch` run at once; bash waits for a person
      approval_policy: { type: "white_list", tools: ["read_file", "branch"] },
      folding: { enabled: true },
    },
  });
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          name: "branch",
          arguments: { description: "say hello", prompt: "Run echo in the shell." },
        },
      ],
    },
    {
      blocks: [
        { type: "toolCall", name: "bash", arguments: { command: "echo fold-approved-e2e" } },
      ],
    },
    {
      blocks: [{ type: "toolCall", name: "return", arguments: { message: "Echo ran." } }],
    },
    { blocks: [{ type: "text", text: "The fold ran the echo." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Fold a shell call.");

  const card = transcript(page).getByRole("region", { name: "Fold: say hello" });
  const waiting = card.getByRole("region", { name: "Waiting for approval in fold say hello" });
  const call = waiting.getByRole("listitem", { name: "Tool call bash" });
  await expect(call).toHaveAttribute("data-approval", "pending");
  await expect(call).toContainText("fold-approved-e2e");
  await expect(card).toContainText("Running");
  await keepScreenshot(page, testInfo, "fold-waiting-for-approval");

  await call.getByRole("button", { name: "Approve" }).click();

  await expect(assistantMessages(page).last()).toContainText("The fold ran the echo.");
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(card).toContainText("Returned");
  await expect(waiting).toHaveCount(0);
  await card.getByRole("button", { name: "Steps of fold say hello" }).click();
  const decided = card.getByRole("listitem", { name: "Tool call bash" });
  await expect(decided).toHaveAttribute("data-approval", "approved");
  await expect(decided).toHaveAttribute("data-result", "success");
  await expect(decided.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await keepScreenshot(page, testInfo, "fold-call-approved");
});
