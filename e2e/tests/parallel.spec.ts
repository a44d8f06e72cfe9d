import { expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  listBranches,
  messageBox,
  openSession,
  patchConfig,
} from "./app.js";
import { resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Ask N ways (issue #14): from the composer, one message to several candidates at once; the
// answers stream into columns, a judge (the fake LLM's next scripted turn) chooses, the chosen
// answer continues the conversation and the others become branches. The fake serves scripted
// turns in the order requests arrive: the candidates' first requests take the first turns (in
// any order), the judge's request comes once they all finished.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

const ANSWERS = ["Four, exactly.", "It is 4 because two and two make four.", "4"];

async function askWays(page: Page, text: string) {
  await messageBox(page).fill(text);
  await page.getByRole("button", { name: "Ask N ways" }).click();
  const panel = page.getByRole("region", { name: "Ask N ways" });
  await expect(panel.getByRole("listitem")).toHaveCount(3);
  return panel;
}

test("ask 3 ways: columns stream, the judge's verdict shows, the chosen answer continues", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request, {
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  await scriptFakeLlm(request, [
    ...ANSWERS.map((text) => ({
      blocks: [{ type: "text" as const, text }],
      chunkSize: 4,
      chunkDelayMs: 20,
    })),
    { blocks: [{ type: "text", text: "2. It explains why, and it is correct." }] },
  ]);
  await openSession(page, session_id);
  const panel = await askWays(page, "What is 2+2?");
  await panel.getByRole("button", { name: "Ask 3 ways" }).click();
  await expect(messageBox(page)).toHaveValue("");

  const columns = page.getByRole("region", { name: "Parallel answers" });
  await expect(columns.getByRole("article")).toHaveCount(3);
  const verdict = columns.getByRole("region", { name: "Verdict" });
  await expect(verdict).toContainText("Balanced was chosen");
  await expect(verdict).toContainText("It explains why, and it is correct.");
  const chosen = columns.locator('article[data-chosen="true"]');
  await expect(chosen).toHaveAttribute("aria-label", "Candidate 2: Balanced");
  const chosenText = ((await chosen.locator("div.whitespace-pre-wrap").textContent()) ?? "").trim();
  expect(ANSWERS).toContain(chosenText);
  for (const answer of ANSWERS) await expect(columns).toContainText(answer);
  await keepScreenshot(page, testInfo, "ask-n-ways-verdict");

  // the chosen answer is the conversation's last answer; the two others are branches
  await expect(assistantMessages(page).last()).toContainText(chosenText);
  const { branches } = await listBranches(request, session_id);
  expect(branches).toHaveLength(3);
  await expect(page.getByRole("button", { name: /^Branches · 3/ })).toBeVisible();
  await page.getByRole("button", { name: /^Branches/ }).click();
  const explorer = page.getByRole("complementary", { name: "Branch explorer" });
  await expect(explorer.getByRole("region", { name: "Branch graph" })).toBeVisible();
  for (const name of ["Precise", "Creative"]) {
    await expect(
      explorer.getByRole("button", { name: `Branch ${name} (asked 3 ways)`, exact: true }),
    ).toBeVisible();
  }

  // the admin loop tree shows the group: three branches, one of them the winner
  await page.goto(`/admin/sessions/${session_id}`);
  const group = page.getByRole("listitem", { name: /^Parallel group / });
  await expect(group).toContainText("Parallel · 3 branches");
  await keepScreenshot(page, testInfo, "ask-n-ways-loop-tree");
});

test("a candidate that needs approval waits in its own column until approved there", async ({
  page,
  request,
}) => {
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
          id: "toolu_par_1",
          name: "read_file",
          arguments: { path: "notes.txt" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Answer without tools." }] },
    // the approved call's candidate continues with this turn; then the judge
    { blocks: [{ type: "text", text: "The notes were read." }] },
    { blocks: [{ type: "text", text: "1. It read the notes." }] },
  ]);
  await openSession(page, session_id);
  const panel = await askWays(page, "What do the notes say?");
  await panel.getByRole("button", { name: "Remove way 3" }).click();
  await panel.getByRole("button", { name: "Ask 2 ways" }).click();

  const columns = page.getByRole("region", { name: "Parallel answers" });
  const waiting = columns.locator('article[data-status="waiting"]');
  await expect(waiting).toHaveCount(1);
  await expect(waiting).toContainText("read_file");
  // the other column finished meanwhile
  await expect(columns.locator('article[data-status="complete"]')).toContainText(
    "Answer without tools.",
  );
  await expect(columns.getByRole("region", { name: "Verdict" })).toHaveCount(0);
  await waiting.getByRole("button", { name: "Approve" }).click();
  await expect(columns.getByRole("region", { name: "Verdict" })).toContainText(
    "It read the notes.",
  );
  await expect(columns).toContainText("The notes were read.");
});
