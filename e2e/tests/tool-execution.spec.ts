import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everythingServerScript } from "@arbor/core/testing";
import { type APIRequestContext, expect, test } from "@playwright/test";
import {
  branchMessages,
  createSession,
  keepScreenshot,
  openSession,
  sendViaApi,
  stateLine,
  transcript,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";
import { LANE } from "./lane.js";

// Issue #26 finding 3 against the production build: a session's read-only tool calls of one
// answer run at the same time (tool_execution parallel_read_only, the default) while a write of
// the same answer waits for a person's approval; each call has its own card, and the model gets
// every result in call order. The read-only tool is the MCP reference server's
// trigger-long-running-operation (annotated readOnlyHint), whose progress notifications the
// session stores as tool_progress events: their store sequence is when each call was running.

const LONG = "mcp__everything__trigger-long-running-operation";
const written = join(LANE.workspace, `tool-execution-e2e-${process.pid}.txt`);

async function mcpStatuses(request: APIRequestContext): Promise<string[]> {
  const response = await request.get("/api/mcp/servers");
  expect(response.status()).toBe(200);
  const { servers } = (await response.json()) as {
    servers: Array<{ name: string; status: string }>;
  };
  return servers.map((s) => `${s.name}:${s.status}`);
}

test.beforeAll(async ({ request }) => {
  writeFileSync(
    LANE.mcpConfig,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [everythingServerScript(), "stdio"] },
      },
    }),
  );
  await expect
    .poll(() => mcpStatuses(request), { timeout: 30_000 })
    .toEqual(["everything:connected"]);
});

test.afterAll(async ({ request }) => {
  rmSync(LANE.mcpConfig, { force: true });
  rmSync(written, { force: true });
  await expect.poll(async () => (await mcpStatuses(request)).length, { timeout: 30_000 }).toBe(0);
});

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("three read-only tool calls of one turn overlap in time while a write waits for its approval", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await createSession(request, {
    config: { approval_policy: { type: "white_list", tools: [LONG] } },
  });
  const detail = await request.get(`/api/sessions/${session_id}`);
  expect(((await detail.json()) as { config: { tool_execution: string } }).config).toMatchObject({
    tool_execution: "parallel_read_only",
  });
  const long = (id: string) => ({
    type: "toolCall" as const,
    id,
    name: LONG,
    arguments: { duration: 3, steps: 3 },
  });
  const fileName = written.slice(LANE.workspace.length + 1);
  await scriptFakeLlm(request, [
    {
      blocks: [
        long("toolu_read_1"),
        long("toolu_read_2"),
        long("toolu_read_3"),
        {
          type: "toolCall",
          id: "toolu_write",
          name: "write_file",
          arguments: { path: fileName, content: "written after approval\n" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Three reads and one write." }] },
  ]);

  const started = Date.now();
  const events = await sendViaApi(request, session_id, "Run three long reads, then write a file.");
  const elapsed = Date.now() - started;
  const moves = events.flatMap((e) => {
    const data = e.data as { previous_state?: unknown; current_state?: { type: string } };
    return e.event === "context_update" && data.previous_state !== undefined && data.current_state
      ? [{ sequence: e.id ?? 0, state: data.current_state }]
      : [];
  });
  // the write's card waits from before the first read starts to after the last one ends
  const waits = moves.filter((m) => m.state.type === "AwaitingToolApproval");
  const executing = moves.filter((m) => m.state.type === "ExecutingTool");
  expect(waits.length).toBe(2);
  expect(executing.length).toBe(3);
  expect(waits[0]!.sequence).toBeLessThan(executing[0]!.sequence);
  expect(moves.at(-1)?.state).toEqual({
    type: "AwaitingToolApproval",
    pending_requests: ["toolu_write"],
    tool_names: ["write_file"],
  });
  const progress = events.flatMap((e) => {
    const data = e.data as { tool_call_id?: string };
    return e.event === "tool_progress" && data.tool_call_id
      ? [{ sequence: e.id ?? 0, call: data.tool_call_id }]
      : [];
  });
  const calls = ["toolu_read_1", "toolu_read_2", "toolu_read_3"];
  const span = (call: string) => {
    const seen = progress.filter((p) => p.call === call).map((p) => p.sequence);
    return { first: Math.min(...seen), last: Math.max(...seen), count: seen.length };
  };
  for (const a of calls) {
    expect(span(a).count, `progress of ${a}`).toBeGreaterThanOrEqual(2);
    for (const b of calls) {
      // a's first report comes before b's last: the two ran at the same time
      if (a !== b) expect(span(a).first, `${a} before ${b} ends`).toBeLessThan(span(b).last);
    }
  }
  expect(waits[1]!.sequence).toBeGreaterThan(Math.max(...progress.map((p) => p.sequence)));
  // three 3-second operations in well under their 9 seconds one after another
  expect(elapsed).toBeLessThan(8_000);
  expect(existsSync(written)).toBe(false);

  // one card per call: three ran (auto-approved), the write waits; the reads' results are stored
  const stored = await branchMessages(request, session_id, { view: "full" });
  const toolRequest = stored.find((m) => m.body.message_type === "tool_request");
  const toolCalls = (toolRequest?.body.calls ?? []) as Array<{ id: string; approval: string }>;
  const approvals = toolCalls.map((c) => `${c.id}:${c.approval}`);
  expect(approvals).toEqual([
    "toolu_read_1:auto_approved",
    "toolu_read_2:auto_approved",
    "toolu_read_3:auto_approved",
    "toolu_write:pending",
  ]);
  expect(
    stored.filter((m) => m.body.message_type === "tool_result").map((m) => m.body.tool_call_id),
  ).toEqual(calls);

  // in Chromium the write's card asks for approval; approving it runs the write and the model
  await openSession(page, session_id);
  const card = transcript(page).getByRole("listitem", { name: "Tool call write_file" });
  await expect(card).toContainText("Waiting for approval");
  await keepScreenshot(page, testInfo, "tool-execution-write-waits");
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(stateLine(page)).toHaveText("Ready", { timeout: 30_000 });
  expect(existsSync(written)).toBe(true);

  const requests = await fakeLlmRequests(request);
  expect(requests).toHaveLength(2);
  const body = requests[1]?.body as {
    messages: Array<{ content: Array<{ type: string; tool_use_id?: string }> | string }>;
  };
  const results = body.messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id),
  );
  expect(results).toEqual([...calls, "toolu_write"]);
});

test("the session settings change tool_execution, and the setting is stored", async ({
  page,
  request,
}) => {
  const { session_id } = await createSession(request);
  await openSession(page, session_id);
  await page.getByRole("button", { name: "Session settings" }).click();
  const readOnly = page.getByRole("radio", {
    name: "Read-only tools together, others one at a time",
  });
  await expect(readOnly).toBeChecked();
  await page.getByRole("radio", { name: "One tool at a time" }).check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect
    .poll(async () => {
      const response = await request.get(`/api/sessions/${session_id}`);
      return ((await response.json()) as { config: { tool_execution: string } }).config
        .tool_execution;
    })
    .toBe("sequential");
  await page.reload();
  await page.getByRole("button", { name: "Session settings" }).click();
  await expect(page.getByRole("radio", { name: "One tool at a time" })).toBeChecked();
});
