import { expect, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  keepScreenshot,
  openSession,
  parseSse,
  patchConfig,
  recordedStates,
  recordStateLine,
  sendFromComposer,
  stateLine,
  transcript,
} from "./app.js";
import {
  type FakeRequest,
  fakeLlmRequests,
  releaseFakeLlm,
  resetFakeLlm,
  scriptFakeLlm,
} from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  is_error?: boolean;
  content: unknown;
}

/** The tool_result blocks an Anthropic Messages request carries back to the model. */
function toolResults(llmRequest: FakeRequest | undefined): ToolResultBlock[] {
  const body = llmRequest?.body as { messages?: Array<{ content: unknown }> } | undefined;
  return (body?.messages ?? []).flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type?: string }>).filter(
          (block): block is ToolResultBlock => block.type === "tool_result",
        )
      : [],
  );
}

test("a tool call approved by the user runs and its result card shows", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await patchConfig(request, session_id, {
    approval_policy: { type: "manual" },
    approve_read_only: false,
  });
  await scriptFakeLlm(request, [
    {
      blocks: [
        { type: "text", text: "I'll read the notes." },
        {
          type: "toolCall",
          id: "toolu_read_1",
          name: "read_file",
          arguments: { path: "notes.txt" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "The notes have three lines." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "What is in notes.txt?");

  const call = transcript(page).getByRole("listitem", { name: "Tool call read_file" });
  await expect(call).toContainText("Waiting for approval");
  await expect(call.getByRole("figure", { name: "Arguments of read_file" })).toContainText(
    "notes.txt",
  );
  await expect(stateLine(page)).toHaveText("Waiting for your approval");
  await keepScreenshot(page, testInfo, "approval-pending");

  await call.getByRole("button", { name: "Approve", exact: true }).click();

  const result = transcript(page).getByRole("button", { name: "read_file result" });
  await expect(result).toBeVisible();
  await expect(call).toContainText("Approved");
  await expect(assistantMessages(page).last()).toContainText("The notes have three lines.");
  await expect(stateLine(page)).toHaveText("Ready");
  // collapsed until asked; expanded it shows what the tool read
  await result.click();
  await expect(transcript(page).getByText(/second line of the notes/)).toBeVisible();
  await keepScreenshot(page, testInfo, "approval-approved");

  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  const [sent] = toolResults(requests[1]);
  expect(sent?.tool_use_id).toBe("toolu_read_1");
  expect(sent?.is_error ?? false).toBe(false);
  expect(JSON.stringify(sent?.content)).toContain("second line of the notes");
});

test("a tool call denied by the user does not run and the model is told so", async ({
  page,
  request,
}, testInfo) => {
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
          id: "toolu_read_2",
          name: "read_file",
          arguments: { path: "notes.txt" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Understood, I will not read it." }] },
  ]);

  await openSession(page, session_id);
  await sendFromComposer(page, "Read notes.txt, if I allow it.");

  const call = transcript(page).getByRole("listitem", { name: "Tool call read_file" });
  await expect(call.getByRole("button", { name: "Deny", exact: true })).toBeVisible();
  await call.getByRole("button", { name: "Deny", exact: true }).click();

  await expect(call).toContainText("Denied");
  await expect(assistantMessages(page).last()).toContainText("Understood, I will not read it.");
  await expect(stateLine(page)).toHaveText("Ready");
  const result = transcript(page).getByRole("button", { name: /^read_file result/ });
  await expect(result).toContainText("Denied");
  await keepScreenshot(page, testInfo, "approval-denied");

  // The file was never read: the model got an error result saying the user denied the call.
  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  const [sent] = toolResults(requests[1]);
  expect(sent?.tool_use_id).toBe("toolu_read_2");
  expect(sent?.is_error).toBe(true);
  const content = JSON.stringify(sent?.content);
  expect(content).toContain("denied");
  expect(content).not.toContain("second line of the notes");
});

test("auto-approve runs three tool rounds in a row, then the model answers", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await patchConfig(request, session_id, { approval_policy: { type: "auto_approve_all" } });
  const calls = [
    { id: "toolu_auto_1", name: "read_file", arguments: { path: "notes.txt" } },
    { id: "toolu_auto_2", name: "read_file", arguments: { path: "README.md" } },
    { id: "toolu_auto_3", name: "list_files", arguments: { path: "src" } },
  ];
  await scriptFakeLlm(request, [
    ...calls.map((call) => ({
      blocks: [{ type: "toolCall" as const, ...call }],
      // each round takes a moment, so the rounds can be watched
      firstChunkDelayMs: 300,
    })),
    { blocks: [{ type: "text", text: "Three looks later: the workspace is small." }] },
  ]);

  await openSession(page, session_id);
  const posted = page.waitForResponse(
    (response) =>
      response.request().method() === "POST" &&
      response.url().endsWith(`/api/sessions/${session_id}/messages`),
  );
  await sendFromComposer(page, "Look around the workspace.");

  await expect(assistantMessages(page).last()).toContainText("Three looks later");
  await expect(stateLine(page)).toHaveText("Ready");
  const toolCalls = transcript(page).getByRole("listitem", { name: /^Tool call / });
  await expect(toolCalls).toHaveCount(3);
  for (const call of await toolCalls.all()) {
    await expect(call).toContainText("Auto-approved");
    await expect(call.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  }
  await expect(
    transcript(page).getByRole("button", { name: /(read_file|list_files) result/ }),
  ).toHaveCount(3);
  await keepScreenshot(page, testInfo, "auto-loop-done");

  // The page was told of each round as it happened: the operation's stream carried them.
  const events = parseSse(await (await posted).text());
  const rounds = events.flatMap((e) => {
    const state = (e.data as { current_state?: { type: string; depth?: number } }).current_state;
    return e.event === "context_update" && state?.type === "ToolAutoLoop" ? [state.depth] : [];
  });
  expect([...new Set(rounds)]).toEqual([1, 2, 3]);

  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(4);
  expect(toolResults(requests[3]).map((r) => r.tool_use_id)).toEqual(calls.map((c) => c.id));
});

// Needs the chat page to keep the current auto-loop round on the state line while the next
// request runs: ToolAutoLoop is a passing state (it lasts a millisecond between a round's results
// and the next request), so today the line shows it only when a frame happens to land on it.
test("the state line shows each auto-processing round while the loop runs", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request);
  await patchConfig(request, session_id, { approval_policy: { type: "auto_approve_all" } });
  await scriptFakeLlm(request, [
    ...[1, 2, 3].map((n) => ({
      blocks: [
        {
          type: "toolCall" as const,
          id: `toolu_round_${n}`,
          name: "read_file",
          arguments: { path: "notes.txt" },
        },
      ],
      // each request after the first is held before it starts: the round it follows stays on
      // screen until the test has seen it and releases the next answer
      ...(n > 1 ? { holdAfterChunks: 0 } : {}),
    })),
    { blocks: [{ type: "text", text: "Done looking." }], holdAfterChunks: 0 },
  ]);

  await recordStateLine(page);
  await openSession(page, session_id);
  await sendFromComposer(page, "Read the notes three times.");
  for (const round of ["round 1 · 1 tool", "round 2 · 2 tools", "round 3 · 3 tools"]) {
    await expect(stateLine(page)).toContainText(`Auto-processing · ${round}`);
    await expect.poll(() => releaseFakeLlm(request)).toBe(1);
  }
  await expect(assistantMessages(page).last()).toContainText("Done looking.");
  await expect(stateLine(page)).toHaveText("Ready");
  await keepScreenshot(page, testInfo, "auto-loop-rounds");

  const seen = (await recordedStates(page)).join("\n");
  expect(seen).toContain("Auto-processing · round 1 · 1 tool");
  expect(seen).toContain("Auto-processing · round 2 · 2 tools");
  expect(seen).toContain("Auto-processing · round 3 · 3 tools");
});
