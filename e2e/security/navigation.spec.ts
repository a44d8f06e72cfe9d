import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, parseDatabaseUrl } from "@arbor/db";
import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { DESKTOP, nonce, PHONE, type Servers, useServersAndBrowser } from "./harness.js";

// Issue #27, cases 5, 11 and the navigation bugs, in Chromium against the production build:
// "New session" from inside a chat (desktop sidebar and phone drawer); rename, export and delete
// (with a 10 s Undo that waits while hovered) from a row's menu; the list grouped by date; the
// phone header (a readable title, status and model picker behind one button, a composer of at
// most ~12% of the screen, no keyboard hint without a keyboard); the skip link; the model
// picker's name. Signed in as the owner through the `?token=` URL.

let servers: Servers;
let browser: Browser;

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

/** A signed-in page at desktop size, or as a phone (touch, no hover: no keyboard assumed). */
async function signedIn(
  size: "desktop" | "phone",
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(
    size === "desktop"
      ? { viewport: DESKTOP, acceptDownloads: true }
      : { viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 3 },
  );
  const page = await context.newPage();
  await page.goto(`${servers.url}/?token=${servers.token}`);
  return { context, page };
}

async function sessionIds(): Promise<string[]> {
  const listed = await servers.api.get("/api/sessions");
  return (listed.json as Array<{ id: string }>).map((s) => s.id);
}

/** The row's own menu in a session list. */
function rowMenu(page: Page, title: string) {
  return page.getByRole("button", { name: `Actions for “${title}”`, exact: true });
}

test("New session from inside a chat: the desktop sidebar", async () => {
  const id = await servers.api.createSession({}, `Sidebar ${nonce()}`);
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/sessions/${id}`);
  const sidebar = page.getByRole("complementary", { name: "Other sessions" });
  const before = await sessionIds();
  await sidebar.getByRole("button", { name: "New session", exact: true }).click();
  await expect(page).not.toHaveURL(new RegExp(`/sessions/${id}$`));
  await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
  const created = page.url().split("/sessions/")[1] ?? "";
  expect(before).not.toContain(created);
  expect(await sessionIds()).toContain(created);
  await expect(page.getByRole("heading", { level: 1, name: "New session" })).toBeVisible();
  await context.close();
});

test("New session from inside a chat: the phone drawer", async () => {
  const id = await servers.api.createSession({}, `Drawer ${nonce()}`);
  const { context, page } = await signedIn("phone");
  await page.goto(`${servers.url}/sessions/${id}`);
  await page.getByRole("button", { name: "Open the session list" }).click();
  const drawer = page.getByRole("dialog", { name: "Sessions" });
  await drawer.getByRole("button", { name: "New session", exact: true }).click();
  await expect(page).not.toHaveURL(new RegExp(`/sessions/${id}$`));
  await expect(drawer).toBeHidden();
  const created = page.url().split("/sessions/")[1] ?? "";
  expect(await sessionIds()).toContain(created);
  await context.close();
});

test("a row's menu renames and exports the session", async () => {
  const title = `Rename me ${nonce()}`;
  const id = await servers.api.createSession({}, title);
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/`);
  await rowMenu(page, title).click();
  await page.getByRole("menuitem", { name: "Rename…" }).click();
  const renamed = `Renamed ${nonce()}`;
  await page.getByRole("dialog", { name: "Rename session" }).getByLabel("Title").fill(renamed);
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  await expect(page.getByRole("button", { name: new RegExp(`^${renamed}`) })).toBeVisible();
  expect((await servers.api.get(`/api/sessions/${id}`)).json).toMatchObject({ title: renamed });

  await rowMenu(page, renamed).click();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("menuitem", { name: "Export as Markdown" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^renamed-[a-f0-9]+\.md$/);
  const path = await download.path();
  expect(readFileSync(path, "utf8")).toContain(`# ${renamed}`);

  await rowMenu(page, renamed).click();
  const [json] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("menuitem", { name: "Export as JSON" }).click(),
  ]);
  const file = JSON.parse(readFileSync(await json.path(), "utf8")) as {
    format: string;
    session: { id: string };
  };
  expect(file).toMatchObject({ format: "arbor-session", session: { id } });
  await context.close();
});

test("a row's menu deletes; Undo lasts 10 s and waits while hovered", async () => {
  const kept = `Keep me ${nonce()}`;
  const keptId = await servers.api.createSession({}, kept);
  const gone = `Delete me ${nonce()}`;
  const goneId = await servers.api.createSession({}, gone);
  const { context, page } = await signedIn("desktop");
  // the page's clock (its timers and Date) is moved on by the test, not waited for; it also
  // runs on by itself meanwhile, as a real one does
  await page.clock.install();
  await page.goto(`${servers.url}/`);
  const row = (title: string) => page.getByRole("button", { name: new RegExp(`^${title}`) });
  // the DELETEs the page sends: a timer that fires in a jump of the clock sends its DELETE at once
  const deletes: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "DELETE") deletes.push(new URL(request.url()).pathname);
  });

  // deleted and left alone: gone after 10 s, not before
  await rowMenu(page, gone).click();
  await page.getByRole("menuitem", { name: "Delete session" }).click();
  await expect(row(gone)).toBeHidden();
  await page.clock.fastForward(7_000);
  expect((await servers.api.get(`/api/sessions/${goneId}`)).status).toBe(200);
  await page.clock.fastForward(3_500);
  await expect
    .poll(async () => (await servers.api.get(`/api/sessions/${goneId}`)).status, {
      timeout: 6_000,
    })
    .toBe(404);

  // deleted, then the Undo is hovered for longer than 10 s: it waits, and Undo keeps the session
  await rowMenu(page, kept).click();
  await page.getByRole("menuitem", { name: "Delete session" }).click();
  const notice = page.getByText(`Deleted “${kept}”`);
  await expect(notice).toBeVisible();
  await notice.hover();
  await page.clock.fastForward(12_000);
  await page.waitForTimeout(500);
  expect(deletes).toEqual([`/api/sessions/${goneId}`]);
  await expect(notice).toBeVisible();
  expect((await servers.api.get(`/api/sessions/${keptId}`)).status).toBe(200);
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(row(kept)).toBeVisible();
  await page.mouse.move(0, 0);
  await page.clock.fastForward(11_000);
  await page.waitForTimeout(500);
  expect(deletes).toEqual([`/api/sessions/${goneId}`]);
  expect((await servers.api.get(`/api/sessions/${keptId}`)).status).toBe(200);
  await context.close();
});

test("the Undo waits while it has the keyboard focus", async () => {
  const kept = `Focus me ${nonce()}`;
  const keptId = await servers.api.createSession({}, kept);
  const { context, page } = await signedIn("desktop");
  await page.clock.install();
  await page.goto(`${servers.url}/`);
  const deletes: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "DELETE") deletes.push(new URL(request.url()).pathname);
  });
  await rowMenu(page, kept).click();
  await page.getByRole("menuitem", { name: "Delete session" }).click();
  const undo = page.getByRole("button", { name: "Undo" });
  await undo.focus();
  await page.clock.fastForward(12_000);
  await page.waitForTimeout(500);
  expect(deletes).toEqual([]);
  await expect(undo).toBeVisible();
  expect((await servers.api.get(`/api/sessions/${keptId}`)).status).toBe(200);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: new RegExp(`^${kept}`) })).toBeVisible();
  await context.close();
});

test("the session list is grouped by date: Today, Yesterday, Previous 7 and 30 days, months", async () => {
  const day = 24 * 60 * 60 * 1000;
  const now = Date.now();
  const ages = { today: 0, yesterday: 1, week: 4, month: 20, older: 70 } as const;
  const titles: Record<string, string> = {};
  const db = await openDatabase(parseDatabaseUrl(`file:${join(servers.dataDir, "arbor.db")}`));
  try {
    for (const [name, age] of Object.entries(ages)) {
      const title = `Dated ${name} ${nonce()}`;
      titles[name] = title;
      const id = await servers.api.createSession({}, title);
      const at = new Date(now - age * day).toISOString();
      const changed = await db.client.$executeRawUnsafe(
        "UPDATE sessions SET updated_at = ? WHERE id = ?",
        at,
        id,
      );
      expect(changed).toBe(1);
    }
  } finally {
    await db.close();
  }
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/`);
  const older = new Date(now - ages.older * day).toLocaleString("en-US", {
    month: "long",
    year: "numeric",
  });
  const groups: Array<[string, string]> = [
    ["Today", titles.today ?? ""],
    ["Yesterday", titles.yesterday ?? ""],
    ["Previous 7 days", titles.week ?? ""],
    ["Previous 30 days", titles.month ?? ""],
    [older, titles.older ?? ""],
  ];
  for (const [heading, title] of groups) {
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    const group = page.getByRole("region", { name: heading, exact: true });
    await expect(group.getByRole("button", { name: new RegExp(`^${title}`) })).toBeVisible();
  }
  // in the order a person reads them
  const headings = await page.getByRole("region").locator("h3").allTextContents();
  expect(headings.filter((h) => groups.some(([g]) => g === h))).toEqual(groups.map(([g]) => g));
  await context.close();
});

test("the phone header shows the title; status, meter and model are one tap away; the composer is small", async () => {
  const title = "Parser refactor";
  const id = await servers.api.createSession({}, title);
  const { context, page } = await signedIn("phone");
  await page.goto(`${servers.url}/sessions/${id}`);
  const heading = page.getByRole("heading", { level: 1, name: title });
  await expect(heading).toBeVisible();
  // the whole title is shown, not cut to a letter
  expect(await heading.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  expect((await heading.boundingBox())?.width ?? 0).toBeGreaterThan(80);

  const more = page.getByRole("button", { name: /status and tools/ });
  await expect(more).toHaveAttribute("aria-expanded", "false");
  await more.click();
  await expect(more).toHaveAttribute("aria-expanded", "true");
  for (const control of [
    page.getByRole("combobox", { name: "Model" }),
    page.getByRole("meter", { name: "Context usage" }),
    page.getByRole("status", { name: "Session state" }),
  ]) {
    await expect(control).toBeVisible();
    const box = await control.boundingBox();
    expect(box).not.toBeNull();
    // inside the screen, not clipped at its edge
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= PHONE.width).toBe(true);
  }
  await more.click();
  await expect(page.getByRole("combobox", { name: "Model" })).toBeHidden();

  // the composer at rest: at most ~12% of the screen's height, no keyboard hint on a touch screen
  const composer = page
    .locator("footer")
    .filter({ has: page.getByRole("form", { name: "Message composer" }) });
  const box = await composer.boundingBox();
  expect(box?.height ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(PHONE.height * 0.125);
  const placeholder = await page.getByLabel("Message", { exact: true }).getAttribute("placeholder");
  expect(placeholder).not.toMatch(/Enter|Shift/);
  await context.close();
});

test("the desktop composer names its keys; the model picker is labelled", async () => {
  const id = await servers.api.createSession({}, `Keys ${nonce()}`);
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/sessions/${id}`);
  const placeholder = await page.getByLabel("Message", { exact: true }).getAttribute("placeholder");
  expect(placeholder).toContain("Enter to send");
  await expect(page.getByRole("combobox", { name: "Model" })).toBeVisible();
  await context.close();
});

/** The page's first Tab stop is the skip link, shown once focused; Enter puts the focus on main. */
async function skipsToMain(page: Page, name: string): Promise<void> {
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name });
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();
}

test("the first Tab stop skips to the conversation", async () => {
  const id = await servers.api.createSession({}, `Skip ${nonce()}`);
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/sessions/${id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await skipsToMain(page, "Skip to conversation");
  // the next Tab goes on from the conversation, not back through the session list
  await page.keyboard.press("Tab");
  const inSidebar = await page.evaluate(`document.activeElement?.closest("aside") !== null`);
  expect(inSidebar).toBe(false);
  await context.close();
});

test("the home page's first Tab stop skips to the sessions", async () => {
  await servers.api.createSession({}, `Home skip ${nonce()}`);
  const { context, page } = await signedIn("desktop");
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  await skipsToMain(page, "Skip to sessions");
  // the next Tab goes on inside the page's content, not through the header's links
  await page.keyboard.press("Tab");
  const inHeader = await page.evaluate(`document.activeElement?.closest("header") !== null`);
  expect(inHeader).toBe(false);
  await expect(page.getByRole("button", { name: "New session", exact: true })).toBeFocused();
  await context.close();
});

test("an explanation opens on a tap on a touch screen and closes on a tap outside (issue #27, case 12)", async () => {
  const id = await servers.api.createSession({}, `Explain ${nonce()}`);
  const { context, page } = await signedIn("phone");
  await page.goto(`${servers.url}/sessions/${id}`);
  const about = page.getByRole("button", { name: "About the transcript views" });
  // no title tooltip left on the view switch: a touch screen never shows one
  await expect(page.getByRole("radio", { name: "What the model sees" })).not.toHaveAttribute(
    "title",
    /./,
  );
  const bubble = page.getByRole("dialog", { name: "the transcript views" });
  // a tap that lands before the page is hydrated does nothing (a person taps again): the first
  // tap is retried while no bubble shows, never once one does (a second tap would close it)
  await expect(async () => {
    if (!(await bubble.isVisible())) await about.tap();
    await expect(bubble).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(bubble).toContainText("older messages may be summarized or shortened");
  await expect(bubble).toContainText("Every message as it was written");
  // inside the screen's width
  const box = await bubble.boundingBox();
  expect(box).not.toBeNull();
  expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= PHONE.width).toBe(true);
  await page.getByRole("heading", { level: 1 }).tap();
  await expect(bubble).toBeHidden();

  // the context meter's explanation, in the status row the header's summary opens
  await page.getByRole("button", { name: /: status and tools$/ }).tap();
  await page.getByRole("button", { name: "About context usage" }).tap();
  await expect(page.getByRole("dialog", { name: "context usage" })).toContainText(
    "How much of the model's context window the next request fills",
  );
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "context usage" })).toBeHidden();
  await context.close();
});

test("an explanation opens from the keyboard at desktop size", async () => {
  const id = await servers.api.createSession({}, `Explain keys ${nonce()}`);
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/sessions/${id}`);
  const about = page.getByRole("button", { name: "About the workspace folder" });
  await about.focus();
  await page.keyboard.press("Enter");
  const bubble = page.getByRole("dialog", { name: "the workspace folder" });
  await expect(bubble).toContainText("The agent reads, searches and changes files only inside");
  await page.keyboard.press("Escape");
  await expect(bubble).toBeHidden();
  await expect(about).toBeFocused();
  await context.close();
});
