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
import { type FakeRequest, fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

/** The tool names an Anthropic Messages request offered the model. */
function offeredTools(llmRequest: FakeRequest | undefined): string[] {
  const body = llmRequest?.body as { tools?: Array<{ name: string }> } | undefined;
  return (body?.tools ?? []).map((tool) => tool.name);
}

test("Plan mode: the model presents a plan, approving it switches to Act and the model carries on", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  // the Act run after approval edits nothing here, but would ask first
  await patchConfig(request, session_id, { approval_policy: { type: "manual" } });
  await scriptFakeLlm(request, [
    {
      blocks: [
        { type: "text", text: "Here is my plan." },
        {
          type: "toolCall",
          id: "toolu_plan_1",
          name: "present_plan",
          arguments: {
            summary: "Greet the user by name.",
            steps: [
              { title: "Read src/greeting.ts" },
              { title: "Add a name parameter", detail: 'Default it to "world".' },
            ],
          },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Carrying out the plan: step one first." }] },
  ]);

  await openSession(page, session_id);
  const modes = page.getByRole("radiogroup", { name: "Agent mode" });
  await expect(modes.getByRole("radio", { name: "Act" })).toBeChecked();

  // The shortcut from the help sheet switches the session to Plan.
  await page.keyboard.press("Control+Shift+P");
  await expect(modes.getByRole("radio", { name: "Plan" })).toBeChecked();
  await expect
    .poll(async () => {
      const detail = await request.get(`/api/sessions/${session_id}`);
      return ((await detail.json()) as { config: { agent_mode: string } }).config.agent_mode;
    })
    .toBe("plan");

  await sendFromComposer(page, "Plan how to greet the user by name.");

  const plan = transcript(page).getByRole("region", { name: "Plan" });
  await expect(plan.getByRole("list", { name: "Plan steps" }).getByRole("listitem")).toHaveText([
    "Read src/greeting.ts",
    /Add a name parameter\s*Default it to "world"\./,
  ]);
  await expect(plan).toContainText("Greet the user by name.");
  await expect(stateLine(page)).toHaveText("Ready");
  const approve = plan.getByRole("button", { name: "Approve plan and switch to Act" });
  await expect(approve).toBeEnabled();
  await keepScreenshot(page, testInfo, "plan-card");

  await approve.click();

  await expect(modes.getByRole("radio", { name: "Act" })).toBeChecked();
  await expect(assistantMessages(page).last()).toContainText(
    "Carrying out the plan: step one first.",
  );
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(approve).toBeHidden();
  await keepScreenshot(page, testInfo, "plan-approved-act");

  // Plan mode offered the plan tool and no file-changing tool; Act mode the reverse, and the
  // model was told the plan was approved.
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  expect(offeredTools(requests[0])).toContain("present_plan");
  expect(offeredTools(requests[0])).not.toContain("write_file");
  expect(offeredTools(requests[1])).not.toContain("present_plan");
  expect(offeredTools(requests[1])).toContain("write_file");
  expect(JSON.stringify(requests[1]?.body)).toContain("Plan approved");
});

test("Act mode: the model asks a question, the user picks a choice and the model carries on", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          id: "toolu_question_1",
          name: "ask_question",
          arguments: { question: "Greet in which language?", choices: ["English", "French"] },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Greeting in French: bonjour." }] },
  ]);

  await openSession(page, session_id);
  const modes = page.getByRole("radiogroup", { name: "Agent mode" });
  await expect(modes.getByRole("radio", { name: "Act" })).toBeChecked();
  await sendFromComposer(page, "Greet the user.");

  const question = transcript(page).getByRole("region", { name: "Question" });
  await expect(question).toContainText("Greet in which language?");
  await keepScreenshot(page, testInfo, "act-question");
  await question.getByRole("button", { name: "French" }).click();

  await expect(assistantMessages(page).last()).toContainText("Greeting in French: bonjour.");
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(modes.getByRole("radio", { name: "Act" })).toBeChecked();

  // act mode offered ask_question beside the file-changing tools, and never present_plan
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  expect(offeredTools(requests[0])).toContain("ask_question");
  expect(offeredTools(requests[0])).toContain("write_file");
  expect(offeredTools(requests[0])).not.toContain("present_plan");
  expect(JSON.stringify(requests[1]?.body)).toContain("French");
});
