import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import {
  assistantMessages,
  createSession,
  messageBox,
  openSession,
  sendViaApi,
  stateLine,
  transcript,
  userMessages,
} from "./app.js";
import { fakeLlmRequests, resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

// Issue #18, the chat as people expect it. These flows run on the built-in offline model (set per
// session), so they need no scripted answers: it calls list_files for "list files" and answers
// from the result. Screenshots of the main screens, at desktop and phone size, light and dark, go
// to e2e/screenshots/ (not committed) for a reviewer to look at.

const SCREENSHOTS = join(import.meta.dirname, "..", "screenshots");
mkdirSync(SCREENSHOTS, { recursive: true });

const PHONE = { width: 390, height: 844 };
const OFFLINE_MODEL = { protocol: "offline", model: "arbor-offline" };

async function offlineSession(request: APIRequestContext, title?: string) {
  return createSession(request, {
    ...(title ? { title } : {}),
    config: { model: OFFLINE_MODEL, approval_policy: { type: "auto_approve_all" } },
  });
}

// The e2e typecheck has no DOM library, so code run in the page is passed as source text.

async function shoot(page: Page, name: string): Promise<void> {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate(
      `document.documentElement.classList.toggle("dark", ${theme === "dark" ? "true" : "false"})`,
    );
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${theme}.png`) });
  }
  await page.evaluate(`document.documentElement.classList.remove("dark")`);
}

/** True when the element's box lies inside the viewport. */
async function inView(page: Page, selector: string): Promise<boolean> {
  const result = await page.evaluate(`(() => {
    const box = document.querySelector(${JSON.stringify(selector)})?.getBoundingClientRect();
    if (!box) return false;
    return box.top >= 0 && box.bottom <= window.innerHeight + 1 && box.height > 0;
  })()`);
  return result === true;
}

test("a sent message shows at once on a slow network, and the state line agrees with it", async ({
  page,
  request,
}, testInfo) => {
  const { session_id } = await offlineSession(request);
  await openSession(page, session_id);
  // the server gets the message only after 2.5 s
  await page.route(`**/api/sessions/${session_id}/messages`, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await route.continue();
  });
  await messageBox(page).fill("hello there");
  await messageBox(page).press("Enter");
  const mine = userMessages(page).filter({ hasText: "hello there" });
  await expect(mine).toHaveAttribute("data-status", "sending", { timeout: 1_000 });
  await expect(mine).toContainText("Sending…");
  // not "Ready" while the message is on its way
  await expect(stateLine(page)).toHaveText("Processing your message…");
  await page.screenshot({ path: testInfo.outputPath("sending.png") });
  // stored: the card is the stored message now, and the answer follows
  await expect(stateLine(page)).toHaveText("Ready", { timeout: 20_000 });
  await expect(assistantMessages(page).last()).toContainText("Hello!");
  await expect(userMessages(page)).toHaveCount(1);
  await expect(userMessages(page).first()).not.toHaveAttribute("data-status", "sending");
  await expect(transcript(page).locator('[data-status="streaming"]')).toHaveCount(0);
});

test("a refused send keeps the text with the reason and Retry, and a toast says so", async ({
  page,
  request,
}) => {
  const { session_id } = await offlineSession(request);
  await openSession(page, session_id);
  let refuse = true;
  await page.route(`**/api/sessions/${session_id}/messages`, async (route) => {
    if (route.request().method() !== "POST" || !refuse) return route.continue();
    await route.fulfill({
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({ error: "internal", message: "The server broke." }),
    });
  });
  await messageBox(page).fill("list files");
  await messageBox(page).press("Enter");
  const mine = userMessages(page).filter({ hasText: "list files" });
  await expect(mine).toHaveAttribute("data-status", "failed");
  await expect(mine.getByRole("alert")).toHaveText("Not sent · The server broke.");
  const toasts = page.getByRole("region", { name: /Notifications/ });
  await expect(toasts).toContainText("Your message was not sent");
  refuse = false;
  await mine.getByRole("button", { name: "Retry" }).click();
  await expect(stateLine(page)).toHaveText("Ready", { timeout: 20_000 });
  await expect(assistantMessages(page).last()).toContainText("I listed the workspace root");
  await expect(userMessages(page)).toHaveCount(1);
});

test("the header shows the live stream's state: live, then offline while the server is away; a send waits for it", async ({
  page,
  request,
}) => {
  const { session_id } = await offlineSession(request);
  await openSession(page, session_id);
  const indicator = page.locator("[data-connection]");
  await expect(indicator).toHaveAttribute("data-connection", "connected");
  // the stream drops and every reconnect fails, as when the server is stopped
  await page.route(`**/api/sessions/${session_id}/events**`, (route) => route.abort());
  await page.context().setOffline(true);
  await expect(indicator).toHaveAttribute("data-connection", "offline");
  await expect(indicator).toHaveAccessibleName("Connection: Offline");
  // a message sent now is held, not refused, and goes when the connection is back
  await messageBox(page).fill("hello while away");
  await messageBox(page).press("Enter");
  const held = transcript(page).locator('article[data-status="held"]');
  await expect(held).toContainText("hello while away");
  await expect(held).toContainText("Waiting for the connection");
  await page.context().setOffline(false);
  await page.unroute(`**/api/sessions/${session_id}/events**`);
  await expect(indicator).toHaveAttribute("data-connection", "connected", { timeout: 20_000 });
  await expect(held).toHaveCount(0);
  await expect(userMessages(page).last()).toContainText("hello while away");
  await expect(assistantMessages(page).last()).toBeVisible();
  await expect(stateLine(page)).toHaveText("Ready");
});

test("one card per tool call: the call, its approval and its result together", async ({
  page,
  request,
}) => {
  const { session_id } = await offlineSession(request);
  await sendViaApi(request, session_id, "list files");
  await openSession(page, session_id);
  const call = transcript(page).getByRole("listitem", { name: "Tool call list_files" });
  await expect(call).toContainText("Auto-approved");
  await expect(call).toHaveAttribute("data-result", "success");
  await call.getByRole("button", { name: "list_files result" }).click();
  await expect(call).toContainText("README.md");
  // no separate result card
  await expect(transcript(page).locator('article[aria-label="Tool message"]')).toHaveCount(0);
});

test("two branches that both used the offline model's tools append-merge", async ({ request }) => {
  const { session_id, branch_id } = await offlineSession(request);
  await sendViaApi(request, session_id, "hello");
  const first = await (await request.get(`/api/sessions/${session_id}/messages`)).json();
  const hello = (first.messages as Array<{ id: string; role: string }>).find(
    (m) => m.role === "user",
  );
  if (!hello) throw new Error("the first message is stored");
  await sendViaApi(request, session_id, "list files");
  const fork = await request.post(`/api/sessions/${session_id}/branches`, {
    data: { from_message_id: hello.id, name: "side" },
  });
  expect(fork.status(), await fork.text()).toBe(201);
  const side = (await fork.json()) as { id: string };
  const checkout = await request.post(`/api/sessions/${session_id}/branches/${side.id}/checkout`);
  expect(checkout.status()).toBe(200);
  await sendViaApi(request, session_id, "list files in src");
  const merge = await request.post(`/api/sessions/${session_id}/merges`, {
    data: { source_branch_id: side.id, target_branch_id: branch_id, strategy: "append" },
  });
  const answer = (await merge.json()) as { status: string };
  expect(merge.status(), JSON.stringify(answer)).toBe(200);
  expect(answer.status).not.toBe("conflicts");
});

test("sessions: rename, export as Markdown and JSON, find by message text, delete with Undo", async ({
  page,
  request,
}) => {
  const { session_id } = await offlineSession(request, "Before rename");
  const word = `zebra${Date.now()}`;
  await sendViaApi(request, session_id, `hello ${word}`);
  // the Undo's window is passed by moving the page's clock on, not by waiting it out
  await page.clock.install();
  await openSession(page, session_id);

  await page.getByRole("button", { name: "Session actions" }).click();
  await page.getByRole("menuitem", { name: "Rename…" }).click();
  const titleBox = page.getByRole("textbox", { name: "Title" });
  await titleBox.fill("Renamed session");
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Renamed session");

  for (const [item, file] of [
    ["Export as Markdown", "renamed-session.md"],
    ["Export as JSON", "renamed-session.json"],
  ] as const) {
    await page.getByRole("button", { name: "Session actions" }).click();
    const download = page.waitForEvent("download");
    await page.getByRole("menuitem", { name: item }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe(file);
    const path = await saved.path();
    const text = readFileSync(path, "utf8");
    expect(text).toContain(word);
    if (file.endsWith(".md")) expect(text.startsWith("# Renamed session")).toBe(true);
    else expect(JSON.parse(text).session.title).toBe("Renamed session");
  }

  // full-text search finds the message, not only titles
  await page.goto("/");
  await page.getByRole("searchbox", { name: "Search sessions" }).fill(word);
  const found = page.getByRole("region", { name: "Messages found" });
  await expect(found).toContainText(`hello ${word}`);
  await found.getByRole("button").first().click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session_id}\\?message=`));

  // delete, then Undo: the session stays
  await page.getByRole("button", { name: "Session actions" }).click();
  await page.getByRole("menuitem", { name: "Delete session" }).click();
  await expect(page).toHaveURL(/\/$/);
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText("Kept “Renamed session”")).toBeVisible();
  // past the undo window, the session is still there
  await page.clock.fastForward(11_000);
  await page.waitForTimeout(500);
  expect((await request.get(`/api/sessions/${session_id}`)).status()).toBe(200);
  // delete for good
  await page.goto(`/sessions/${session_id}`);
  await page.getByRole("button", { name: "Session actions" }).click();
  await page.getByRole("menuitem", { name: "Delete session" }).click();
  // (the list is not there at all when no other session is left)
  await expect(
    page.getByRole("navigation", { name: "Sessions" }).getByText("Renamed session"),
  ).toHaveCount(0);
  await page.clock.fastForward(10_500);
  await expect
    .poll(async () => (await request.get(`/api/sessions/${session_id}`)).status(), {
      timeout: 15_000,
    })
    .toBe(404);
});

test("a session exported as JSON comes back through Import… on the home page", async ({
  page,
  request,
}) => {
  const { session_id } = await offlineSession(request, `Round trip ${Date.now()}`);
  const word = `okapi${Date.now()}`;
  await sendViaApi(request, session_id, `remember the ${word}`);
  await openSession(page, session_id);
  await page.getByRole("button", { name: "Session actions" }).click();
  const download = page.waitForEvent("download");
  await page.getByRole("menuitem", { name: "Export as JSON" }).click();
  const file = await (await download).path();

  await page.goto("/");
  await page.getByLabel("Session file to import").setInputFiles(file);
  await expect(page.getByText(/Imported \d+ messages/)).toBeVisible();
  await expect(page).toHaveURL(/\/sessions\/[^/?]+$/);
  expect(page.url()).not.toContain(session_id);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Round trip/);
  await expect(userMessages(page).first()).toContainText(`remember the ${word}`);
  await expect(assistantMessages(page).first()).toBeVisible();

  // a file that is not a session export is refused with the reason, and nothing is created
  const before = ((await (await request.get("/api/sessions")).json()) as unknown[]).length;
  await page.goto("/");
  await page.getByLabel("Session file to import").setInputFiles({
    name: "notes.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify({ hello: "world" })),
  });
  await expect(page.getByRole("alert").filter({ hasText: "Could not import" })).toContainText(
    "format",
  );
  expect(((await (await request.get("/api/sessions")).json()) as unknown[]).length).toBe(before);
});

test("the header's model picker switches the session's model, and the next answer comes from it", async ({
  page,
  request,
}) => {
  const { session_id } = await createSession(request, { title: "Picker" });
  await resetFakeLlm(request);
  await openSession(page, session_id);
  const picker = page.getByRole("banner").getByLabel("Model");
  // the app's configured model until the session has one of its own
  await expect(picker).toHaveValue("anthropic-messages:claude-e2e");
  await picker.selectOption({ label: "Offline model (no provider needed)" });
  await expect
    .poll(async () => {
      const detail = (await (await request.get(`/api/sessions/${session_id}`)).json()) as {
        config: { model?: { protocol: string } };
      };
      return detail.config.model?.protocol;
    })
    .toBe("offline");

  await messageBox(page).fill("hello there");
  await messageBox(page).press("Enter");
  await expect(assistantMessages(page).last()).toBeVisible();
  await expect(stateLine(page)).toHaveText("Ready");
  // the fake provider was never asked: the offline model answered
  expect(await fakeLlmRequests(request)).toEqual([]);
  await page.reload();
  await expect(page.getByRole("banner").getByLabel("Model")).toHaveValue(/^offline:/);
});

test("the composer grows with its text, keeps a long paste aside, and the sent paste is shown cut", async ({
  page,
  request,
}) => {
  const { session_id } = await offlineSession(request);
  await openSession(page, session_id);
  const box = messageBox(page);
  const heightOf = async () => (await box.boundingBox())?.height ?? 0;
  const empty = await heightOf();
  await box.fill("one\ntwo\nthree\nfour\nfive\nsix");
  expect(await heightOf()).toBeGreaterThan(empty + 20);
  await box.fill("");

  // a 30,000-character paste, as the browser delivers it
  const pasted = Array.from({ length: 600 }, (_, i) => `row ${i} ${"·".repeat(40)}`).join("\n");
  await box.focus();
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    data.setData("text/plain", ${JSON.stringify(pasted)});
    document.activeElement.dispatchEvent(
      new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
    );
  })()`);
  await expect(box).toHaveValue("");
  await expect(page.getByRole("list", { name: "Pasted texts" })).toContainText("600 lines");
  await box.fill("hello, here is the log");
  await box.press("Enter");
  const mine = userMessages(page).last();
  await expect(mine).toContainText("hello, here is the log");
  await expect(mine.getByRole("button", { name: /Show all \(602 lines/ })).toBeVisible();
  expect((await mine.boundingBox())?.height ?? 0).toBeLessThan(600);
  await expect(stateLine(page)).toHaveText("Ready");
});

test("Regenerate gives a sibling answer with a ‹ 1/2 › switcher; an edit gets one too", async ({
  page,
  request,
}) => {
  await resetFakeLlm(request);
  await scriptFakeLlm(request, [
    { blocks: [{ type: "text", text: "First answer." }] },
    { blocks: [{ type: "text", text: "Second answer." }] },
    { blocks: [{ type: "text", text: "Answer to the edit." }] },
  ]);
  const { session_id } = await createSession(request, { title: "Versions" });
  await openSession(page, session_id);
  await messageBox(page).fill("tell me something");
  await messageBox(page).press("Enter");
  await expect(assistantMessages(page).last()).toContainText("First answer.");
  await expect(stateLine(page)).toHaveText("Ready");

  await assistantMessages(page).last().hover();
  await assistantMessages(page).last().getByRole("button", { name: "Regenerate" }).click();
  await expect(assistantMessages(page).last()).toContainText("Second answer.");
  await expect(stateLine(page)).toHaveText("Ready");
  const versions = assistantMessages(page).last().getByRole("navigation", { name: "Versions" });
  await expect(versions).toContainText("2/2");
  await versions.getByRole("button", { name: "Previous version" }).click();
  await expect(assistantMessages(page).last()).toContainText("First answer.");
  await expect(
    assistantMessages(page).last().getByRole("navigation", { name: "Versions" }),
  ).toContainText("1/2");

  // edit in place: the user's message gets the same switcher
  const mine = userMessages(page).last();
  await mine.hover();
  await mine.getByRole("button", { name: "Edit & resend" }).click();
  await page.getByRole("textbox", { name: "Edited message" }).fill("tell me something else");
  await page.getByRole("button", { name: "Resend as new branch" }).click();
  await expect(assistantMessages(page).last()).toContainText("Answer to the edit.");
  await expect(
    userMessages(page).last().getByRole("navigation", { name: "Versions" }),
  ).toContainText("2/2");
  await expect(stateLine(page)).toHaveText("Ready");
});

test("the answer's card is placed when its stream begins and stays the one card once stored", async ({
  page,
  request,
}) => {
  await resetFakeLlm(request);
  await scriptFakeLlm(request, [
    {
      blocks: [{ type: "text", text: "One, two, three, four, five, six, seven, eight." }],
      chunkSize: 4,
      chunkDelayMs: 150,
    },
  ]);
  const { session_id } = await createSession(request, { title: "Lifecycle" });
  await openSession(page, session_id);
  await messageBox(page).fill("count slowly");
  await messageBox(page).press("Enter");
  const card = assistantMessages(page).first();
  await expect(card).toHaveAttribute("data-status", "streaming");
  const id = await card.getAttribute("data-message-id");
  expect(id).toBeTruthy();
  await expect(card).toContainText("One, two");
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(assistantMessages(page)).toHaveCount(1);
  await expect(assistantMessages(page).first()).toHaveAttribute("data-message-id", id ?? "");
  await expect(assistantMessages(page).first()).toHaveAttribute("data-status", "complete");
});

test("files uploaded or dropped into the composer reach the model with the text, in one request: an image as an image, text as text", async ({
  page,
  request,
}) => {
  await resetFakeLlm(request);
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: "Done." }] }]);
  const { session_id } = await createSession(request, { title: "Files" });
  await openSession(page, session_id);
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
    "base64",
  );
  await page.getByLabel("Files to upload").setInputFiles({
    name: "pixel.png",
    mimeType: "image/png",
    buffer: png,
  });
  await expect(page.getByRole("list", { name: "Attachments" })).toContainText("pixel.png");
  // a dropped text file joins it
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    data.items.add(new File(["- fix the parser"], "notes.md", { type: "text/markdown" }));
    const form = document.querySelector('form[aria-label="Message composer"]');
    form.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  })()`);
  await expect(page.getByRole("list", { name: "Attachments" })).toContainText("notes.md");
  await messageBox(page).fill("what are these?");
  await messageBox(page).press("Enter");
  await expect(assistantMessages(page).last()).toContainText("Done.");
  await expect(stateLine(page)).toHaveText("Ready");
  await expect(transcript(page).getByRole("img", { name: "Attached: pixel.png" })).toBeVisible();
  await expect(
    transcript(page).getByRole("button", { name: "Attached file notes.md" }),
  ).toBeVisible();
  // one user message, one model request with the image, the notes and the question (issue #27)
  await expect(userMessages(page)).toHaveCount(1);
  const bodies = (await fakeLlmRequests(request)).map((r) => JSON.stringify(r.body));
  expect(bodies).toHaveLength(1);
  expect(bodies[0]).toContain('"media_type":"image/png"');
  expect(bodies[0]).toContain("fix the parser");
  expect(bodies[0]).toContain("what are these?");
});

test("an unknown session says not found at once", async ({ page }) => {
  await page.goto("/sessions/no-such-session");
  await expect(page.getByRole("heading", { name: "Session not found" })).toBeVisible({
    timeout: 2_500,
  });
});

test("desktop: copy a code block; screenshots of the chat", async ({ page, request }) => {
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  const { session_id } = await offlineSession(request, "Screenshots");
  await sendViaApi(request, session_id, "list files");
  await openSession(page, session_id);
  await expect(assistantMessages(page).last()).toContainText("I listed the workspace root");
  const answer = assistantMessages(page).last();
  await answer.hover();
  await answer.getByRole("button", { name: "Copy message" }).click();
  await expect(answer.getByRole("button", { name: "Copy message" })).toHaveText("Copied");
  const copied = String(await page.evaluate("navigator.clipboard.readText()"));
  expect(copied).toContain("I listed the workspace root");
  await shoot(page, "chat-desktop");
});

test.describe("phone", () => {
  test.use({ viewport: PHONE });

  test("at 390 × 844 the main flow works: send, approve the tool, the answer, regenerate with versions", async ({
    page,
    request,
  }) => {
    const { session_id } = await createSession(request, {
      title: "Phone flow",
      // a person approves the listing (read-only tools otherwise run by their rule, issue #27)
      config: { model: OFFLINE_MODEL, approve_read_only: false },
    });
    await openSession(page, session_id);
    await expect(page.getByRole("banner").getByLabel("Model")).toBeVisible();
    await messageBox(page).fill("list the files");
    await messageBox(page).press("Enter");
    const call = transcript(page).getByRole("listitem", { name: "Tool call list_files" });
    await expect(call).toContainText("Waiting for approval");
    await call.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(stateLine(page)).toHaveText("Ready");
    const answer = assistantMessages(page).last();
    await expect(answer).toContainText("I listed the workspace root");
    // nothing is wider than the screen
    const overflow = await page.evaluate(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBeLessThanOrEqual(0);

    await answer.getByRole("button", { name: "Regenerate" }).click();
    await expect(stateLine(page)).not.toHaveText("Ready");
    await expect(stateLine(page)).toHaveText(/Ready|Waiting for your approval/);
    const versions = page.getByRole("navigation", { name: "Versions" }).first();
    await expect(versions).toContainText("2/2");
    expect(await inView(page, 'nav[aria-label="Versions"]')).toBe(true);
    await shoot(page, "chat-phone-versions");
  });

  test("at 390 × 844 the sessions drawer and the branch sheet open in view", async ({
    page,
    request,
  }) => {
    const { session_id } = await offlineSession(request, "Phone session");
    await sendViaApi(request, session_id, "list files");
    await sendViaApi(request, session_id, "hello");
    await openSession(page, session_id);
    await shoot(page, "chat-phone");
    // scrolled to the end of the chat, the Branches button still opens the panel in view
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await page.getByRole("button", { name: /^Branches/ }).click();
    const sheet = page.getByRole("dialog", { name: "Branches" });
    await expect(sheet.getByRole("region", { name: "Branch graph" })).toBeVisible();
    expect(await inView(page, '[role="dialog"][aria-label="Branches"]')).toBe(true);
    await shoot(page, "branches-phone");
    await sheet.getByRole("button", { name: "Close" }).click();
    await expect(sheet).toHaveCount(0);

    await page.getByRole("button", { name: "Open the session list" }).click();
    const drawer = page.getByRole("dialog", { name: "Sessions" });
    await expect(drawer.getByRole("navigation", { name: "Sessions" })).toBeVisible();
    await expect(drawer).toContainText("Phone session");
    expect(await inView(page, '[role="dialog"]')).toBe(true);
    await shoot(page, "sessions-drawer-phone");
  });
});
