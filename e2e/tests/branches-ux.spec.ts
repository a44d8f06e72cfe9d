import { expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  listBranches,
  messageBox,
  openSession,
  sendViaApi,
  stateLine,
  transcript,
  userMessages,
} from "./app.js";
import { resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Issue #27, cases 6 and 9: branches say what happened. A fork, a regenerate and an edit each
// leave a line in the transcript naming the branch; the header names the current branch; the
// graph keeps the versions of one message in one group; after a fork the merge dialog offers to
// merge the fork back into the branch it came from. Ask N ways: another candidate can be chosen
// from its card (and stays chosen after a reload); an unparsable judge reply reads as one honest
// sentence; the ‹ 1/2 › switcher sits on the answer, not on the verdict notice.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

function branchNotices(page: Page) {
  return transcript(page).getByRole("note", { name: "Branch notice" });
}

function currentBranch(page: Page) {
  return page.getByTestId("current-branch");
}

async function openExplorer(page: Page) {
  const toggle = page.getByRole("button", { name: /^Branches/ });
  if ((await toggle.getAttribute("aria-pressed")) !== "true") await toggle.click();
  const explorer = page.getByRole("complementary", { name: "Branch explorer" });
  await expect(explorer.getByRole("region", { name: "Branch graph" })).toBeVisible();
  return explorer;
}

test("a fork says so in the transcript and the header; the merge dialog merges it back by default", async ({
  page,
  request,
}, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { session_id } = await createSession(request, { title: "Fork notice" });
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "Answer one." }] }]);
  await sendViaApi(request, session_id, "Question one");
  const { branches: [main] = [] } = await listBranches(request, session_id);
  if (!main) throw new Error("a new session has its first branch");

  await openSession(page, session_id);
  await expect(currentBranch(page)).toHaveText(main.name);
  await expect(branchNotices(page)).toHaveCount(0);
  const answer = assistantMessages(page).filter({ hasText: "Answer one." });
  await answer.hover();
  await answer.getByRole("button", { name: "Fork here" }).click();
  await expect(page.getByRole("button", { name: /^Branches · 2/ })).toBeVisible();
  const fork = (await listBranches(request, session_id)).branches.find((b) => b.id !== main.id);
  if (!fork) throw new Error("the fork is listed");

  await expect(branchNotices(page)).toHaveCount(1);
  await expect(branchNotices(page)).toHaveText(
    `Forked into branch ${fork.name} from ${main.name} after this message.`,
  );
  await expect(currentBranch(page)).toHaveText(fork.name);
  await keepScreenshot(page, testInfo, "fork-notice");

  // the notice and the header survive a reload: they come from the stored branches
  await page.reload();
  await expect(branchNotices(page)).toHaveCount(1);
  await expect(currentBranch(page)).toHaveText(fork.name);

  const explorer = await openExplorer(page);
  await explorer.getByRole("button", { name: "Merge…" }).click();
  const dialog = page.getByRole("dialog", { name: "Merge branches" });
  await expect(dialog.getByLabel("Source branch")).toHaveValue(fork.id);
  await expect(dialog.getByLabel("Target branch")).toHaveValue(main.id);
});

test("at phone size the header still names the current branch", async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { session_id } = await createSession(request, { title: "Phone branch" });
  await openSession(page, session_id);
  const { branches: [main] = [] } = await listBranches(request, session_id);
  await expect(currentBranch(page)).toHaveText(main?.name ?? "");
  await expect(currentBranch(page)).toBeInViewport();
});

test("regenerate and edit say which branch the new version is on; the graph groups the versions", async ({
  page,
  request,
}, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: "First answer." }] },
    { blocks: [{ type: "text", text: "Second answer." }] },
    { blocks: [{ type: "text", text: "Third answer." }] },
    { blocks: [{ type: "text", text: "Answer to the edit." }] },
  ]);
  const { session_id } = await createSession(request, { title: "Versions grouped" });
  await openSession(page, session_id);
  await messageBox(page).fill("tell me something");
  await messageBox(page).press("Enter");
  await expect(assistantMessages(page).last()).toContainText("First answer.");
  await expect(stateLine(page)).toHaveText("Ready");
  const { branches: [main] = [] } = await listBranches(request, session_id);
  if (!main) throw new Error("a new session has its first branch");

  for (const text of ["Second answer.", "Third answer."]) {
    await assistantMessages(page).last().hover();
    await assistantMessages(page).last().getByRole("button", { name: "Regenerate" }).click();
    await expect(assistantMessages(page).last()).toContainText(text);
    await expect(stateLine(page)).toHaveText("Ready");
  }
  const regenerated = (await listBranches(request, session_id)).branches.at(-1);
  if (!regenerated) throw new Error("the regenerated answer's branch is listed");
  await expect(branchNotices(page)).toHaveCount(1);
  await expect(branchNotices(page)).toContainText(
    `Regenerated: this answer is on branch ${regenerated.name}`,
  );
  await expect(currentBranch(page)).toHaveText(regenerated.name);

  const mine = userMessages(page).last();
  await mine.hover();
  await mine.getByRole("button", { name: "Edit & resend" }).click();
  await page.getByRole("textbox", { name: "Edited message" }).fill("tell me something else");
  await page.getByRole("button", { name: "Resend as new branch" }).click();
  await expect(assistantMessages(page).last()).toContainText("Answer to the edit.");
  await expect(stateLine(page)).toHaveText("Ready");
  const edited = (await listBranches(request, session_id)).branches.at(-1);
  if (!edited) throw new Error("the edit's branch is listed");
  await expect(branchNotices(page)).toContainText(
    `Edited and resent: this version is on branch ${edited.name}`,
  );
  await expect(currentBranch(page)).toHaveText(edited.name);

  // four branches: the first, two regenerated answers, one edit. The answers' versions are one
  // group under the question; the edit is a version of the question itself (its own group).
  const explorer = await openExplorer(page);
  const answers = explorer.getByRole("group", { name: /^3 versions of / });
  await expect(answers).toBeVisible();
  await expect(answers.getByRole("button", { name: /^Branch / })).toHaveCount(2);
  const questions = explorer.getByRole("group", { name: /^2 versions of / });
  await expect(questions.getByRole("button", { name: /^Branch / })).toHaveCount(1);
  await expect(
    explorer.getByRole("button", { name: `Branch ${edited.name} (current)` }),
  ).toBeVisible();
  await keepScreenshot(page, testInfo, "versions-grouped");
});

const ANSWERS = ["Four, exactly.", "It is 4 because two and two make four.", "4"];

async function askThreeWays(page: Page, text: string) {
  await messageBox(page).fill(text);
  await page.getByRole("button", { name: "Ask N ways" }).click();
  const panel = page.getByRole("region", { name: "Ask N ways" });
  await expect(panel.getByRole("listitem")).toHaveCount(3);
  await panel.getByRole("button", { name: "Ask 3 ways" }).click();
  const columns = page.getByRole("region", { name: "Parallel answers" });
  await expect(columns.getByRole("region", { name: "Verdict" })).toBeVisible();
  return columns;
}

test("ask 3 ways: choose another candidate from its card; it stays chosen after a reload", async ({
  page,
  request,
}, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { session_id } = await createSession(request, {
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  await scriptFakeLlm(request, [
    ...ANSWERS.map((text) => ({ blocks: [{ type: "text" as const, text }] })),
    { blocks: [{ type: "text", text: "1. It is the most precise." }] },
  ]);
  await openSession(page, session_id);
  const columns = await askThreeWays(page, "What is 2+2?");
  const first = columns.getByRole("article", { name: "Candidate 1: Precise" });
  const second = columns.getByRole("article", { name: "Candidate 2: Balanced" });
  await expect(first).toHaveAttribute("data-chosen", "true");
  const firstText = ((await first.getByTestId("candidate-text").textContent()) ?? "").trim();
  const secondText = ((await second.getByTestId("candidate-text").textContent()) ?? "").trim();
  await expect(assistantMessages(page).last()).toContainText(firstText);
  // the chosen card offers nothing; the others offer to take their answer
  await expect(first.getByRole("button", { name: "Use this answer" })).toHaveCount(0);

  // the switcher is on the answer, not on the verdict notice
  const notice = transcript(page).locator('[data-kind="notice"]');
  await expect(notice).toContainText("Precise was chosen");
  await expect(
    transcript(page).locator("article", { has: notice }).getByRole("navigation", {
      name: "Versions",
    }),
  ).toHaveCount(0);
  await expect(
    assistantMessages(page).last().getByRole("navigation", { name: "Versions" }),
  ).toContainText("1/3");

  await second.getByRole("button", { name: "Use this answer" }).click();
  await expect(second).toHaveAttribute("data-chosen", "true");
  await expect(first).not.toHaveAttribute("data-chosen", "true");
  await expect(columns.getByRole("region", { name: "Verdict" })).toContainText(
    "You chose Balanced",
  );
  await expect(assistantMessages(page).last()).toContainText(secondText);
  await expect(notice).toContainText("you chose Balanced");
  await keepScreenshot(page, testInfo, "ask-n-ways-use-this-answer");

  await page.reload();
  await expect(assistantMessages(page).last()).toContainText(secondText);
  await expect(transcript(page).locator('[data-kind="notice"]')).toContainText(
    "you chose Balanced",
  );
  // three branches still: the judge's pick is kept on a branch of its own
  const { branches } = await listBranches(request, session_id);
  expect(branches).toHaveLength(3);
  expect(branches.map((b) => b.name)).toContain("Precise (asked 3 ways)");
});

test("ask 3 ways: an unparsable judge reply reads as one sentence that does not contradict itself", async ({
  page,
  request,
}) => {
  const { session_id } = await createSession(request, {
    config: { approval_policy: { type: "auto_approve_all" } },
  });
  await scriptFakeLlm(request, [
    ...ANSWERS.map((text) => ({ blocks: [{ type: "text" as const, text }] })),
    { blocks: [{ type: "text", text: "They are all fine answers." }] },
  ]);
  await openSession(page, session_id);
  const columns = await askThreeWays(page, "What is 2+2?");
  const verdict = columns.getByRole("region", { name: "Verdict" });
  await expect(verdict).toContainText("Precise was taken as the first candidate.");
  await expect(verdict).toContainText(
    "The judge named no candidate (1 to 3), so the first candidate was taken.",
  );
  await expect(verdict).toContainText("They are all fine answers.");
  await expect(verdict).not.toContainText("the judge's verdict");
  await expect(verdict).not.toContainText("was chosen");
});
