import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  patchConfig,
  sendFromComposer,
  stateLine,
  transcript,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";
import { LANE } from "./lane.js";

// A sub-agent in the chat (issue #14): an agent file in the workspace becomes a tool; its call's
// card shows the child loop working (its tool call, its streamed text) and folds away when done,
// with its turns and tokens; the parent answers from its result. The agent file exists only
// while this spec runs (sessions re-read agent files before each message), so the other specs'
// sessions keep their usual tools.

const agents = join(LANE.workspace, ".arbor", "agents");

test.beforeAll(() => {
  mkdirSync(agents, { recursive: true });
  writeFileSync(
    join(agents, "researcher.md"),
    "---\nname: researcher\ndescription: Finds facts in the workspace\ntools: Read\n---\nYou research.\n",
  );
});

test.afterAll(() => {
  rmSync(join(agents, ".."), { recursive: true, force: true });
});

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("a sub-agent call shows its child loop live in a collapsible card", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await patchConfig(request, session_id, { approval_policy: { type: "auto_approve_all" } });
  // requests arrive in this order: parent, child, child, parent
  await scriptFakeLlm(request, [
    {
      blocks: [
        { type: "toolCall", name: "researcher", arguments: { task: "What do the notes say?" } },
      ],
    },
    { blocks: [{ type: "toolCall", name: "read_file", arguments: { path: "notes.txt" } }] },
    {
      blocks: [{ type: "text", text: "The notes list three lines of notes." }],
      usage: { input: 120, output: 30 },
      // about 5 s of streaming: long enough to watch it run
      chunkSize: 1,
      chunkDelayMs: 150,
    },
    { blocks: [{ type: "text", text: "Your notes have three lines." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Ask the researcher about my notes");

  const call = transcript(page).getByRole("listitem", { name: "Tool call researcher" });
  const card = call.getByTestId("subagent-card");
  // while the child works: open, its tool call listed, its text streaming
  await expect(card).toHaveAttribute("data-status", "running");
  await expect(card).toContainText("Sub-agent researcher");
  await expect(card.getByRole("list", { name: "Steps of researcher" })).toContainText("read_file");
  await expect(card).toContainText("The notes list");
  await keepScreenshot(page, testInfo, "subagent-running");

  // done: folded, with its turns and tokens; the parent answered from its result
  await expect(assistantMessages(page).last()).toContainText("Your notes have three lines.");
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(card).toHaveAttribute("data-status", "completed");
  await expect(card).toContainText("2 turns");
  await expect(card).not.toHaveAttribute("open", "");
  await keepScreenshot(page, testInfo, "subagent-done");

  // the child's request had its own prompt and only the tools its file names
  const requests = await fakeLlmRequests(request);
  const child = requests[1]?.body as { system?: unknown; tools?: Array<{ name: string }> };
  expect(JSON.stringify(child.system)).toContain("You research.");
  expect(child.tools?.map((t) => t.name)).toEqual(["read_file"]);

  // after a reload the card comes from the stored result
  await page.reload();
  await expect(card).toHaveAttribute("data-status", "completed");
  await expect(card).toContainText("2 turns");
});
