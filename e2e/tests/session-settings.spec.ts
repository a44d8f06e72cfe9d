import { expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  openSession,
  sendFromComposer,
  stateLine,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Issue #27, case 7: the settings that were reachable only through the API, changed in Session
// settings and used by the next request the fake LLM receives.

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

interface AnthropicBody {
  max_tokens?: number;
  system?: Array<{ text: string }> | string;
  thinking?: { type: string; budget_tokens?: number };
}

function dialog(page: Page) {
  return page.getByRole("dialog", { name: "Session settings" });
}

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Session settings" }).click();
  await expect(dialog(page)).toBeVisible();
  return dialog(page);
}

async function lastBody(request: Parameters<typeof fakeLlmRequests>[0]): Promise<AnthropicBody> {
  const requests = await fakeLlmRequests(request);
  return requests.at(-1)?.body as AnthropicBody;
}

test("context window, max tokens, system prompt and thinking level go to the next request", async ({
  page,
  request,
}) => {
  const { session_id } = await createSession(request, {
    config: {
      model: { protocol: "anthropic-messages", model: "claude-e2e", context_window: 100_000 },
    },
  });
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: "First answer." }] },
    { blocks: [{ type: "text", text: "Second answer." }] },
  ]);
  await openSession(page, session_id);
  const meter = page.getByRole("meter", { name: "Context usage" });
  await expect(meter).toHaveAttribute("aria-valuetext", /\/ 100k tokens/);

  let settings = await openSettings(page);
  await settings.getByRole("textbox", { name: "Context window" }).fill("50000");
  await settings.getByRole("textbox", { name: "Max tokens per answer" }).fill("777");
  await settings
    .getByRole("textbox", { name: "System prompt" })
    .fill("You are the settings test. Answer in one line.");
  await settings.getByRole("button", { name: "Save" }).click();
  await expect(settings).toBeHidden();
  // the context window is the meter's limit, and optimization's trigger is a share of it
  await expect(meter).toHaveAttribute("aria-valuetext", /\/ 50k tokens/);

  await sendFromComposer(page, "Say something.");
  await expect(assistantMessages(page).last()).toContainText("First answer.");
  const first = await lastBody(request);
  expect(first.max_tokens).toBe(777);
  expect(JSON.stringify(first.system)).toContain("You are the settings test. Answer in one line.");
  expect(first.thinking).toBeUndefined();

  settings = await openSettings(page);
  await expect(settings.getByRole("textbox", { name: "Max tokens per answer" })).toHaveValue("777");
  await settings.getByRole("combobox", { name: "Thinking level" }).selectOption("high");
  await settings.getByRole("button", { name: "Save" }).click();
  await expect(settings).toBeHidden();
  await expect(stateLine(page)).toHaveText("Ready");

  await sendFromComposer(page, "Think first.");
  await expect(assistantMessages(page).last()).toContainText("Second answer.");
  const second = await lastBody(request);
  // the AI SDK adds the thinking budget to max_tokens: the answer keeps its 777
  expect(second.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
  expect(second.max_tokens).toBe(777 + 8192);
});

test("the iteration timeout and the folding budgets are saved; a fold above the new largest budget is refused", async ({
  page,
  request,
}) => {
  const { session_id } = await createSession(request, {
    config: {
      approval_policy: { type: "auto_approve_all" },
      folding: { enabled: true },
    },
  });
  await scriptFakeLlm(request, [
    {
      blocks: [
        {
          type: "toolCall",
          name: "branch",
          arguments: { description: "a big side task", prompt: "Look around.", budget: 10_000 },
        },
      ],
    },
    { blocks: [{ type: "text", text: "The fold was refused." }] },
  ]);
  await openSession(page, session_id);
  const settings = await openSettings(page);
  const timeout = settings.getByRole("textbox", { name: "Iteration timeout" });
  await expect(timeout).toHaveValue("30");
  await timeout.fill("90");
  await settings.getByRole("textbox", { name: "Largest fold budget" }).fill("6000");
  await settings.getByRole("textbox", { name: "Fold budget", exact: true }).fill("4000");
  await settings.getByRole("button", { name: "Save" }).click();
  await expect(settings).toBeHidden();

  type Config = {
    auto_loop_iteration_timeout_ms: number;
    folding: { enabled: boolean; default_budget: number; max_budget: number };
  };
  const config = async (): Promise<Config> => {
    const response = await request.get(`/api/sessions/${session_id}`);
    return ((await response.json()) as { config: Config }).config;
  };
  await expect.poll(async () => (await config()).auto_loop_iteration_timeout_ms).toBe(90_000);
  expect((await config()).folding).toMatchObject({
    enabled: true,
    default_budget: 4000,
    max_budget: 6000,
  });

  await sendFromComposer(page, "Fold it.");
  await expect(assistantMessages(page).last()).toContainText("The fold was refused.");
  // the model was told the new limit in the next request
  expect(JSON.stringify(await lastBody(request))).toContain("exceeds the maximum 6000");

  await page.reload();
  const again = await openSettings(page);
  await expect(again.getByRole("textbox", { name: "Iteration timeout" })).toHaveValue("90");
  await expect(again.getByRole("textbox", { name: "Fold budget", exact: true })).toHaveValue(
    "4000",
  );
});

test("the sandbox is shown read-only, with how to change it", async ({ page, request }) => {
  const { session_id } = await createSession(request);
  await openSession(page, session_id);
  const settings = await openSettings(page);
  const sandbox = settings.getByRole("region", { name: "Sandbox" });
  await expect(sandbox.getByTestId("sandbox-mode")).toHaveText(/Commands|There is no sandbox/);
  await expect(sandbox.getByTestId("sandbox-how-to")).toContainText("ARBOR_SANDBOX=auto");
  await expect(sandbox.locator("input, select, textarea")).toHaveCount(0);
});

for (const viewport of [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`the settings dialog scrolls to its last field at ${viewport.name} size`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const { session_id } = await createSession(request, {
      config: { model: { protocol: "anthropic-messages", model: "claude-e2e" } },
    });
    await openSession(page, session_id);
    const settings = await openSettings(page);
    const save = settings.getByRole("button", { name: "Save" });
    await save.scrollIntoViewIfNeeded();
    await expect(save).toBeInViewport();
    const prompt = settings.getByRole("textbox", { name: "System prompt" });
    await prompt.scrollIntoViewIfNeeded();
    await expect(prompt).toBeInViewport();
  });
}
