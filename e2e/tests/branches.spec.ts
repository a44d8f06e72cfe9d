import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  branchMessages,
  createSession,
  keepScreenshot,
  listBranches,
  openSession,
  sendFromComposer,
  sendViaApi,
  stateLine,
  transcript,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

/** Texts of the active (or named) branch's user and assistant text messages, in order. */
async function branchTexts(
  request: APIRequestContext,
  sessionId: string,
  branch?: string,
): Promise<string[]> {
  const messages = await branchMessages(request, sessionId, branch ? { branch } : {});
  return messages
    .filter((m) => m.body.message_type === "text" && (m.role === "user" || m.role === "assistant"))
    .map((m) => m.body.text ?? "");
}

async function openBranchExplorer(page: Page) {
  const toggle = page.getByRole("button", { name: /^Branches/ });
  if ((await toggle.getAttribute("aria-pressed")) !== "true") await toggle.click();
  const explorer = page.getByRole("complementary", { name: "Branch explorer" });
  await expect(explorer.getByRole("region", { name: "Branch graph" })).toBeVisible();
  return explorer;
}

test("fork a message, switch between branches in the graph, and append-merge them", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: "Answer one." }] },
    { blocks: [{ type: "text", text: "Answer on the fork." }] },
    { blocks: [{ type: "text", text: "Answer on main." }] },
  ]);
  await sendViaApi(request, session_id, "Question one");
  const { branches: [main] = [] } = await listBranches(request, session_id);
  if (!main) throw new Error("a new session has its first branch");

  await openSession(page, session_id);
  // "Fork here" on the answer: a new branch holding everything up to it becomes current.
  const answerOne = assistantMessages(page).filter({ hasText: "Answer one." });
  await answerOne.hover();
  await answerOne.getByRole("button", { name: "Fork here" }).click();
  await expect(page.getByRole("button", { name: /^Branches · 2/ })).toBeVisible();
  const afterFork = await listBranches(request, session_id);
  const fork = afterFork.branches.find((b) => b.id !== main.id);
  if (!fork) throw new Error("the fork is listed");
  expect(afterFork.active_branch_id).toBe(fork.id);

  await sendFromComposer(page, "Question on the fork");
  await expect(assistantMessages(page).last()).toContainText("Answer on the fork.");
  await expect(stateLine(page)).toHaveText("Ready");

  // The graph shows both branches with the fork current; clicking main switches to it.
  const explorer = await openBranchExplorer(page);
  await expect(
    explorer.getByRole("button", { name: `Branch ${fork.name} (current)` }),
  ).toBeVisible();
  await keepScreenshot(page, testInfo, "branches-forked");
  await explorer.getByRole("button", { name: `Branch ${main.name}`, exact: true }).click();
  await expect(
    explorer.getByRole("button", { name: `Branch ${main.name} (current)` }),
  ).toBeVisible();
  await expect(transcript(page).getByText("Answer on the fork.")).toBeHidden();
  await expect(assistantMessages(page)).toHaveCount(1);

  await sendFromComposer(page, "Question on main");
  await expect(assistantMessages(page).last()).toContainText("Answer on main.");
  await expect(stateLine(page)).toHaveText("Ready");

  // Merge the fork into main, appending its new messages.
  await explorer.getByRole("button", { name: "Merge…" }).click();
  const dialog = page.getByRole("dialog", { name: "Merge branches" });
  await dialog.getByLabel("Source branch").selectOption({ label: fork.name });
  await dialog.getByLabel("Target branch").selectOption({ label: main.name });
  await dialog.getByRole("radio", { name: /^Append/ }).check();
  await dialog.getByRole("button", { name: "Merge", exact: true }).click();
  await expect(dialog.getByRole("status")).toHaveText("Merged.");
  await keepScreenshot(page, testInfo, "branches-append-merged");
  await dialog.getByRole("button", { name: "Close", exact: true }).click();
  await expect(dialog).toBeHidden();

  // main now holds its own turn, then the fork's
  await expect(transcript(page).getByText("Answer on the fork.")).toBeVisible();
  await expect(assistantMessages(page)).toHaveText([
    /Answer one\./,
    /Answer on main\./,
    /Answer on the fork\./,
  ]);
  expect(await branchTexts(request, session_id, main.id)).toEqual([
    "Question one",
    "Answer one.",
    "Question on main",
    "Answer on main.",
    "Question on the fork",
    "Answer on the fork.",
  ]);
  await keepScreenshot(page, testInfo, "branches-after-append");
});

test("a rebase with a conflict is resolved side by side in the merge dialog", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: "The base answer." }] },
    { blocks: [{ type: "text", text: "Take the scenic route." }] },
    { blocks: [{ type: "text", text: "Take the highway." }] },
  ]);
  // Setup through the API: both branches take the turn after the base answer differently.
  await sendViaApi(request, session_id, "How do I get there?");
  const { branches: [main] = [] } = await listBranches(request, session_id);
  if (!main) throw new Error("a new session has its first branch");
  const baseAnswer = main.message_ids.at(-1);
  const forked = await request.post(`/api/sessions/${session_id}/branches`, {
    data: { from_message_id: baseAnswer, name: "scenic" },
  });
  expect(forked.status()).toBe(201);
  await sendViaApi(request, session_id, "Is there a nicer way?");
  const checkout = await request.post(`/api/sessions/${session_id}/branches/${main.id}/checkout`);
  expect(checkout.status()).toBe(200);
  await sendViaApi(request, session_id, "What is the fastest way?");

  await openSession(page, session_id);
  await expect(assistantMessages(page)).toHaveText([/The base answer\./, /Take the highway\./]);
  const explorer = await openBranchExplorer(page);
  await explorer.getByRole("button", { name: "Merge…" }).click();
  const dialog = page.getByRole("dialog", { name: "Merge branches" });
  await dialog.getByLabel("Source branch").selectOption({ label: "scenic" });
  await dialog.getByLabel("Target branch").selectOption({ label: main.name });
  await dialog.getByRole("radio", { name: /^Rebase/ }).check();
  await dialog.getByRole("button", { name: "Merge", exact: true }).click();

  // The conflict: both sides continued after the base answer; their messages side by side.
  const conflict = dialog.getByRole("region", { name: "Conflict 1" });
  await expect(conflict).toBeVisible();
  await expect(conflict.getByRole("list", { name: "Source messages" })).toContainText(
    "Take the scenic route.",
  );
  await expect(conflict.getByRole("list", { name: "Target messages" })).toContainText(
    "Take the highway.",
  );
  const resolve = dialog.getByRole("button", { name: "Resolve conflicts" });
  await expect(resolve).toBeDisabled();
  await conflict.getByRole("radio", { name: /^Keep both/ }).check();
  await keepScreenshot(page, testInfo, "rebase-conflict");
  await resolve.click();

  await expect(dialog.getByRole("status")).toHaveText("Merged.");
  await dialog.getByRole("button", { name: "Close", exact: true }).click();

  // Keep both: the target's continuation, then the source's, on main.
  await expect(assistantMessages(page)).toHaveText([
    /The base answer\./,
    /Take the highway\./,
    /Take the scenic route\./,
  ]);
  expect(await branchTexts(request, session_id, main.id)).toEqual([
    "How do I get there?",
    "The base answer.",
    "What is the fastest way?",
    "Take the highway.",
    "Is there a nicer way?",
    "Take the scenic route.",
  ]);
  await keepScreenshot(page, testInfo, "rebase-resolved");
});

test("branch settings: rename a branch, give it its own prompt (the model gets it there only), then delete it", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: "Answer one." }] },
    { blocks: [{ type: "text", text: "Arr, answer on the fork." }] },
  ]);
  await sendViaApi(request, session_id, "Question one");
  const { branches: [main] = [] } = await listBranches(request, session_id);
  const [first] = await branchMessages(request, session_id);
  if (!main || !first) throw new Error("a session with one exchange");
  const forked = await request.post(`/api/sessions/${session_id}/branches`, {
    data: { from_message_id: first.id, name: "idea" },
  });
  expect(forked.status()).toBe(201);
  const fork = (await forked.json()) as { id: string };

  await openSession(page, session_id);
  const explorer = await openBranchExplorer(page);
  // the active branch (the fork) cannot be deleted; its settings show the base prompt
  await explorer.getByRole("button", { name: "Settings of branch idea" }).click();
  const dialog = page.getByRole("dialog", { name: "Branch idea" });
  await expect(dialog).toContainText("switch to another branch first");
  await expect(dialog.getByLabel("Base prompt")).toContainText("You are Arbor");
  await dialog.getByLabel("Name").fill("pirate");
  await dialog.getByLabel("System prompt of this branch").fill("Talk like a pirate.");
  await keepScreenshot(page, testInfo, "branch-settings");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toBeHidden();
  const pirate = explorer.getByRole("listitem", { name: "Branch pirate" });
  await expect(pirate).toContainText("own prompt");
  const listed = await listBranches(request, session_id);
  expect(listed.branches.find((b) => b.id === fork.id)?.name).toBe("pirate");
  expect(listed.branches.find((b) => b.id === main.id)?.name).toBe(main.name);

  await sendFromComposer(page, "Question on the fork");
  await expect(assistantMessages(page).last()).toContainText("Arr, answer on the fork.");
  const requests = await fakeLlmRequests(request);
  expect(JSON.stringify(requests.at(-1)?.body)).toContain("Talk like a pirate.");
  expect(JSON.stringify(requests[0]?.body)).not.toContain("Talk like a pirate.");

  // switch to main, then delete the pirate branch from its settings
  await explorer.getByRole("button", { name: `Branch ${main.name}`, exact: true }).click();
  await expect(
    explorer.getByRole("button", { name: `Branch ${main.name} (current)` }),
  ).toBeVisible();
  await pirate.getByRole("button", { name: "Settings of branch pirate" }).click();
  const pirateDialog = page.getByRole("dialog", { name: "Branch pirate" });
  await pirateDialog.getByRole("button", { name: "Delete branch" }).click();
  await pirateDialog.getByRole("button", { name: "Delete pirate for good" }).click();
  await expect(pirateDialog).toBeHidden();
  await expect(explorer.getByRole("listitem", { name: "Branch pirate" })).toBeHidden();
  await expect(page.getByRole("button", { name: /^Branches · 1/ })).toBeVisible();
  expect((await listBranches(request, session_id)).branches.map((b) => b.id)).toEqual([main.id]);
});
