import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { Servers, toolCalls } from "./harness.js";

// Issue #27, case 1 "Approving a code change is blind", through the production build in
// Chromium: the approval card of an edit_file call shows the diff against the file on disk
// (path, removed and added lines with their line numbers) before anything runs; write_file a new
// file as its content; bash its command and working directory; the raw JSON arguments are behind
// a click; after approval the card shows the diff the call applied. And the bug "Plan and
// question cards are shown a second time as raw tool JSON".

let servers: Servers;

const MATH = [
  "export function add(a: number, b: number) {",
  "  return a + b;",
  "}",
  "",
  "export function sub(a: number, b: number) {",
  "  return a - b;",
  "}",
  "",
].join("\n");

test.beforeAll(async () => {
  servers = await Servers.start();
  mkdirSync(join(servers.workspace, "src"));
  writeFileSync(join(servers.workspace, "src", "math.ts"), MATH);
});

test.afterAll(async () => {
  await servers?.close();
});

async function open(browser: Browser, id: string, viewport: { width: number; height: number }) {
  const context = await browser.newContext({
    baseURL: servers.url,
    viewport,
    extraHTTPHeaders: { authorization: `Bearer ${servers.token}` },
  });
  const page = await context.newPage();
  await page.goto(`/sessions/${id}`);
  return { context, page };
}

/** A diff figure's rows as "old|new|sign|code" (the table's cells). */
function diffRows(page: Page, name: string): Promise<string[]> {
  return page
    .getByRole("figure", { name })
    .locator("table:visible tr[data-change]")
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(
          row.querySelectorAll("td"),
          (cell: { textContent: string | null }) => cell.textContent ?? "",
        ).join("|"),
      ),
    );
}

test("edit_file, write_file and bash are reviewed from a diff, the new file and the command; the applied diff follows", async ({
  browser,
}) => {
  const api = servers.api;
  await servers.resetFake();
  await servers.script([
    {
      blocks: [
        { type: "text", text: "Three changes." },
        {
          type: "toolCall",
          id: "call_edit",
          name: "edit_file",
          arguments: {
            path: "src/math.ts",
            old_text: "  return a - b;\n",
            new_text: "  const difference = a - b;\n  return difference;\n",
          },
        },
        {
          type: "toolCall",
          id: "call_write",
          name: "write_file",
          arguments: { path: "docs/notes.md", content: "# Notes\n\nFirst note.\n" },
        },
        {
          type: "toolCall",
          id: "call_bash",
          name: "bash",
          arguments: { command: "ls -1 | sort", cwd: "src" },
        },
      ],
    },
    { blocks: [{ type: "text", text: "Done." }] },
  ]);
  const id = await api.createSession({ approval_policy: { type: "manual" } }, "diffs");
  await api.send(id, { type: "text", text: "change things" });
  await api.waitForState(id, (s) => s.type === "AwaitingToolApproval");
  // the preview was read from the disk when the call was stored; the disk is unchanged
  expect(readFileSync(join(servers.workspace, "src", "math.ts"), "utf8")).toBe(MATH);
  const [edit] = toolCalls(await api.messages(id)) as Array<{ preview?: { kind: string } }>;
  expect(edit?.preview?.kind).toBe("file_change");

  const { context, page } = await open(browser, id, { width: 1440, height: 900 });
  const proposed = page.getByRole("figure", { name: "Proposed change to src/math.ts" });
  await expect(proposed).toBeVisible();
  await expect(proposed.getByText("src/math.ts", { exact: true })).toBeVisible();
  expect(await diffRows(page, "Proposed change to src/math.ts")).toEqual([
    "3|3| |}",
    "4|4| |",
    "5|5| |export function sub(a: number, b: number) {",
    "6||-|  return a - b;",
    "|6|+|  const difference = a - b;",
    "|7|+|  return difference;",
    "7|8| |}",
  ]);
  // syntax-highlighted (highlight.js classes on the code)
  await expect(proposed.locator(".hljs-keyword").first()).toHaveText("export");
  // a new file as its content, numbered
  const created = page.getByRole("figure", { name: "Proposed change to docs/notes.md" });
  await expect(created).toContainText("new file");
  expect(await diffRows(page, "Proposed change to docs/notes.md")).toEqual([
    "|1|+|# Notes",
    "|2|+|",
    "|3|+|First note.",
  ]);
  // bash: the command and where it runs
  const command = page.getByRole("figure", { name: "Command of bash" });
  await expect(command).toContainText("$ ls -1 | sort");
  await expect(command).toContainText("in src");
  // no raw JSON on the card until asked for; then one click shows it
  await expect(page.getByText('"old_text"')).toHaveCount(0);
  await page.getByRole("button", { name: "Raw arguments of edit_file" }).click();
  await expect(page.getByText(/"old_text": " {2}return a - b;\\n"/)).toBeVisible();
  // wide screens can put the two sides next to each other
  await proposed.getByRole("radio", { name: "Side by side" }).click();
  expect(await diffRows(page, "Proposed change to src/math.ts")).toContain(
    "6|  return a - b;|6|  const difference = a - b;",
  );
  await page.screenshot({ path: test.info().outputPath("approval-diff-desktop.png") });

  await api.events(`/api/sessions/${id}/approvals`, {
    decisions: [
      { tool_call_id: "call_edit", decision: "approve" },
      { tool_call_id: "call_write", decision: "approve" },
      { tool_call_id: "call_bash", decision: "approve" },
    ],
  });
  await api.waitForState(id, (s) => s.type === "Idle", 30_000);
  await page.reload();
  // after the run: the diff the call applied, read from its result
  const applied = page.getByRole("figure", { name: "Applied change to src/math.ts" });
  await expect(applied).toBeVisible();
  await expect(page.getByRole("figure", { name: "Proposed change to src/math.ts" })).toHaveCount(0);
  expect(await diffRows(page, "Applied change to src/math.ts")).toContain(
    "|6|+|  const difference = a - b;",
  );
  await expect(page.getByRole("figure", { name: "Applied change to docs/notes.md" })).toBeVisible();
  await context.close();

  // a phone gets the unified diff without the layout toggle
  const phone = await open(browser, id, { width: 390, height: 844 });
  const small = phone.page.getByRole("figure", { name: "Applied change to src/math.ts" });
  await expect(small).toBeVisible();
  await expect(small.getByRole("radiogroup", { name: "Diff layout" })).toBeHidden();
  expect(await diffRows(phone.page, "Applied change to src/math.ts")).toContain(
    "6||-|  return a - b;",
  );
  await phone.page.screenshot({ path: test.info().outputPath("approval-diff-phone.png") });
  await phone.context.close();
});

test("a plan is shown once, as its Plan card, not again as the present_plan call's raw JSON", async ({
  browser,
}) => {
  const api = servers.api;
  await servers.resetFake();
  await servers.script([
    {
      blocks: [
        { type: "text", text: "Here is my plan." },
        {
          type: "toolCall",
          id: "call_plan",
          name: "present_plan",
          arguments: { summary: "Swap the operands.", steps: [{ title: "Edit src/math.ts" }] },
        },
      ],
    },
  ]);
  const id = await api.createSession({ agent_mode: "plan" }, "plan once");
  await api.send(id, { type: "text", text: "plan it" });
  await api.waitForState(id, (s) => s.type === "Idle");
  const { context, page } = await open(browser, id, { width: 1440, height: 900 });
  const plan = page.getByRole("region", { name: "Plan" });
  await expect(plan).toContainText("Edit src/math.ts");
  await expect(page.getByText("Here is my plan.")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "Tool call present_plan" })).toHaveCount(0);
  await expect(page.getByText("Swap the operands.")).toHaveCount(1);
  await expect(page.getByText('"summary"')).toHaveCount(0);
  await context.close();
});
