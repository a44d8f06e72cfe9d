import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { type FakeBlock, nonce, type Servers, useServersAndBrowser } from "./harness.js";

// Issue #27 case 2, "Approvals do not fit the risk", against the production build: a read-only
// tool runs without a card by default; "Always allow" on bash is scoped (`Bash(npm test:*)`) and
// a command beyond it still asks; the rule is shown in the session settings and removing it makes
// the command ask again; Deny carries a reason, and the model's next request holds it.

let servers: Servers;
let browser: Browser;
const tag = nonce();

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

test.beforeAll(async () => {
  writeFileSync(join(servers.workspace, "notes.txt"), `first ${tag}\nsecond\nthird\n`);
  writeFileSync(
    join(servers.workspace, "package.json"),
    JSON.stringify({ name: "rules", scripts: { test: "echo tested", build: "echo built" } }),
  );
});
// a test that stops at an approval leaves its later turns scripted: each test starts afresh
test.beforeEach(async () => {
  await servers.resetFake();
});

const bash = (id: string, command: string): FakeBlock => ({
  type: "toolCall",
  id,
  name: "bash",
  arguments: { command },
});

async function openSession(id: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${servers.url}/?token=${servers.token}`);
  await page.goto(`${servers.url}/sessions/${id}`);
  await expect(messageBox(page)).toBeEnabled({ timeout: 20_000 });
  return page;
}

const messageBox = (page: Page) => page.getByRole("textbox", { name: "Message", exact: true });
const transcript = (page: Page) => page.locator('section[aria-label="Transcript"]');
const stateLine = (page: Page) => page.locator('[role="status"][aria-label="Session state"]');

async function send(page: Page, text: string): Promise<void> {
  await messageBox(page).fill(text);
  await messageBox(page).press("Enter");
  await expect(messageBox(page)).toHaveValue("");
}

/** The card of the tool call `id`. */
const callCard = (page: Page, id: string) =>
  transcript(page).locator(`li[data-tool-call-id="${id}"]`);

test("a read-only tool runs without a card asking, recorded as approved by the rule", async () => {
  await servers.script([
    {
      blocks: [
        { type: "toolCall", id: "call_read", name: "read_file", arguments: { path: "notes.txt" } },
      ],
    },
    { blocks: [{ type: "text", text: `The notes start with first ${tag}.` }] },
  ]);
  // the default config: the manual policy, read-only tools approved by their rule
  const id = await servers.api.createSession({});
  const page = await openSession(id);
  await send(page, "What is in notes.txt?");
  await expect(transcript(page)).toContainText(`The notes start with first ${tag}.`);
  const card = callCard(page, "call_read");
  await expect(card).toHaveAttribute("data-approval", "auto_approved");
  await expect(card).toContainText("Auto-approved · rule approve_read_only");
  await expect(transcript(page).getByRole("button", { name: "Approve", exact: true })).toHaveCount(
    0,
  );
  await expect(stateLine(page)).toHaveText("Ready");
  // the stored call names the rule that decided, and no person
  const messages = await servers.api.messages(id);
  const request = messages.find((m) => m.body.message_type === "tool_request");
  expect(request?.body.calls).toEqual([
    expect.objectContaining({ approval: "auto_approved", approval_note: "rule approve_read_only" }),
  ]);
  await page.close();
});

test("with approve_read_only off, the same read asks", async () => {
  await servers.script([
    {
      blocks: [
        { type: "toolCall", id: "call_read2", name: "read_file", arguments: { path: "notes.txt" } },
      ],
    },
    { blocks: [{ type: "text", text: "read" }] },
  ]);
  const id = await servers.api.createSession({ approve_read_only: false });
  const page = await openSession(id);
  await send(page, "Read it");
  const card = callCard(page, "call_read2");
  await expect(card).toContainText("Waiting for approval");
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await page.close();
});

test("Always allow `npm test …` lets `npm test -- --watch` run, `npm run build` still asks; removed in settings it asks again; a denial's reason reaches the model", async () => {
  test.setTimeout(120_000);
  const reason = `use pnpm here, not npm ${tag}`;
  await servers.script([
    { blocks: [bash("call_t1", "npm test")] },
    { blocks: [{ type: "text", text: "Tests ran." }] },
    { blocks: [bash("call_t2", "npm test -- --watch")] },
    { blocks: [{ type: "text", text: "Watched." }] },
    { blocks: [bash("call_b1", "npm run build")] },
    { blocks: [{ type: "text", text: "Understood, no build." }] },
    { blocks: [bash("call_t3", "npm test")] },
    { blocks: [{ type: "text", text: "Asked again." }] },
  ]);
  const id = await servers.api.createSession({});
  const page = await openSession(id);

  await send(page, "Run the tests");
  const first = callCard(page, "call_t1");
  await expect(first).toContainText("Waiting for approval");
  // the card offers both scopes: this exact command, and commands starting with `npm test`
  await expect(
    first.getByRole("button", { name: "Always allow the command npm test" }),
  ).toBeVisible();
  await first.getByRole("button", { name: "Always allow commands starting with npm test" }).click();
  await expect(transcript(page)).toContainText("Tests ran.");
  await expect(first).toHaveAttribute("data-approval", "approved");

  await send(page, "Watch them");
  await expect(transcript(page)).toContainText("Watched.");
  const second = callCard(page, "call_t2");
  await expect(second).toHaveAttribute("data-approval", "auto_approved");
  await expect(second).toContainText("rule Bash(npm test:*)");

  await send(page, "Build it");
  const build = callCard(page, "call_b1");
  await expect(build).toContainText("Waiting for approval");
  const before = (await servers.fakeRequests()).length;
  await build.getByRole("button", { name: "Deny with a reason…" }).click();
  await build.getByRole("textbox", { name: /Why not\?/ }).fill(reason);
  await build.getByRole("button", { name: "Deny with this reason" }).click();
  await expect(transcript(page)).toContainText("Understood, no build.");
  await expect(build).toHaveAttribute("data-approval", "denied");
  const after = await servers.fakeRequests();
  const next = after.slice(before).find((r) => JSON.stringify(r.body).includes("tool_result"));
  expect(JSON.stringify(next?.body)).toContain(reason);

  // the rule is in the session settings; removing it makes `npm test` ask again
  await page.getByRole("button", { name: "Session settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Session settings" });
  await expect(dialog).toContainText("Bash(npm test:*)");
  await expect(dialog).toContainText("commands starting with npm test");
  await dialog.getByRole("button", { name: "Remove rule Bash(npm test:*)" }).click();
  await expect(dialog).not.toContainText("Bash(npm test:*)");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toBeHidden();
  await expect
    .poll(async () => {
      const answer = await servers.api.get(`/api/sessions/${id}`);
      return (answer.json as { config: { allow_rules: string[] } }).config.allow_rules;
    })
    .toEqual([]);

  await send(page, "Once more");
  const third = callCard(page, "call_t3");
  await expect(third).toContainText("Waiting for approval");
  await page.close();
});
