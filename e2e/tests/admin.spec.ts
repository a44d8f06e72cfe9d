import { expect, test } from "@playwright/test";
import { createSession, keepScreenshot, parseSse, sendViaApi } from "./app.js";
import { resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

interface LoopSummary {
  loop_id: string;
  status: string;
  turns: number;
  parent_loop_id?: string;
  usage: { totalTokens: number };
}

test("the admin viewer lists the session and shows its loop tree with status and usage", async ({
  page,
  request,
}, testInfo) => {
  const title = `Loop tree probe ${Date.now()}`;
  const { session_id } = await createSession(request, {
    title,
    // a read a person approves (approve_read_only is on by default)
    config: { approval_policy: { type: "manual" }, approve_read_only: false },
  });
  // One run that stops for approval, and its continuation once approved: a loop with a child.
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_admin_1",
          name: "read_file",
          arguments: { path: "notes.txt" },
        },
      ],
      usage: { input: 1_200, output: 300 },
    },
    {
      blocks: [{ type: "text", text: "The notes hold three lines." }],
      usage: { input: 1_500, output: 500 },
    },
  ]);
  await sendViaApi(request, session_id, "Read the notes for the admin test.");
  const approved = await request.post(`/api/sessions/${session_id}/approvals`, {
    data: { decisions: [{ tool_call_id: "toolu_admin_1", decision: "approve" }] },
  });
  expect(parseSse(await approved.text()).filter((e) => e.event === "error")).toEqual([]);
  const tree = (await (await request.get(`/api/admin/sessions/${session_id}/loops`)).json()) as {
    loops: LoopSummary[];
  };
  const root = tree.loops.find((l) => l.parent_loop_id === undefined);
  const child = tree.loops.find((l) => l.parent_loop_id !== undefined);
  if (!root || !child)
    throw new Error(`expected a loop and its continuation: ${JSON.stringify(tree)}`);

  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "All sessions" })).toBeVisible();
  const row = page.getByRole("row").filter({ has: page.getByRole("button", { name: title }) });
  await expect(row.getByRole("cell").first()).toHaveText("Ready");
  // tokens summed over the session: 1.5k + 2k
  await expect(row).toContainText("3.5k");
  await keepScreenshot(page, testInfo, "admin-sessions");
  await row.getByRole("button", { name: title }).click();

  await expect(page).toHaveURL(new RegExp(`/admin/sessions/${session_id}$`));
  await expect(page.getByRole("heading", { name: `Loop tree · ${title}` })).toBeVisible();
  const loops = page.getByRole("list", { name: "Loop tree" });
  const rootItem = loops.getByRole("listitem", { name: `Loop ${root.loop_id}`, exact: true });
  const childItem = rootItem.getByRole("listitem", { name: `Loop ${child.loop_id}`, exact: true });
  await expect(rootItem).toHaveAttribute("data-status", "completed");
  await expect(childItem).toHaveAttribute("data-status", "completed");
  // status, turns and usage per node; the approved run is a continuation under the first
  await expect(rootItem.locator(":scope > div")).toContainText(/completed.*1 turn · 1\.5k tokens/);
  await expect(childItem).toContainText(/completed.*continuation.*2 turns · 2k tokens/);
  await keepScreenshot(page, testInfo, "admin-loop-tree");

  // The user's message shows what the pipeline did to it, processor by processor.
  const processing = page.getByRole("region", { name: "Message processing" });
  await expect(processing).toContainText(/file_reference [\d.]+ ms · tool_enhancement/);
  await expect(processing).toContainText("optimization");

  // Each loop links to the messages it produced.
  await childItem.getByRole("button", { name: `Messages of loop ${child.loop_id}` }).click();
  const produced = page.getByRole("region", { name: `Messages of loop ${child.loop_id}` });
  const answer = produced.getByRole("link", { name: /The notes hold three lines\./ });
  await expect(answer).toBeVisible();
  await answer.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session_id}\\?message=`));
  await expect(page.getByText("The notes hold three lines.")).toBeVisible();
});

test("Plan mode → question → answer → plan → approve: the idle session's loop tree shows no loop running (issue #27)", async ({
  page,
  request,
}) => {
  const title = `Plan loops ${Date.now()}`;
  const { session_id } = await createSession(request, {
    title,
    config: { agent_mode: "plan", approval_policy: { type: "auto_approve_all" } },
  });
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_q_1",
          name: "ask_question",
          arguments: { question: "Which file?", choices: ["a.ts", "b.ts"] },
        },
      ],
      stopReason: "toolUse",
    },
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_p_1",
          name: "present_plan",
          arguments: { summary: "Edit a.ts", steps: [{ title: "Edit a.ts" }] },
        },
      ],
      stopReason: "toolUse",
    },
    { blocks: [{ type: "text", text: "Plan carried out." }] },
  ]);
  await sendViaApi(request, session_id, "Plan a change.");
  await sendViaApi(request, session_id, "a.ts");
  const messages = (await (await request.get(`/api/sessions/${session_id}/messages`)).json()) as {
    messages: Array<{ id: string; body: { message_type: string } }>;
  };
  const plan = messages.messages.find((m) => m.body.message_type === "plan");
  if (!plan) throw new Error(`expected a plan: ${JSON.stringify(messages)}`);
  const approved = await request.post(`/api/sessions/${session_id}/plan/approve`, {
    data: { message_id: plan.id },
  });
  expect(parseSse(await approved.text()).filter((e) => e.event === "error")).toEqual([]);

  const tree = (await (await request.get(`/api/admin/sessions/${session_id}/loops`)).json()) as {
    loops: LoopSummary[];
  };
  expect(tree.loops).toHaveLength(3);
  expect(tree.loops.map((l) => l.status)).toEqual(["completed", "completed", "completed"]);

  await page.goto(`/admin/sessions/${session_id}`);
  await expect(page.getByRole("heading", { name: `Loop tree · ${title}` })).toBeVisible();
  const loops = page.getByRole("list", { name: "Loop tree" });
  await expect(loops.locator('[data-status="completed"]')).toHaveCount(3);
  await expect(loops.locator('[data-status="running"]')).toHaveCount(0);
  await expect(loops).not.toContainText("running");
});
