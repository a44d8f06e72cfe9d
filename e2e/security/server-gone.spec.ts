import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { DESKTOP, nonce, PHONE, type Servers, useServersAndBrowser } from "./harness.js";

// Issue #27 case 10 with the browser online and the app server gone (decision 0055): the server
// is stopped under an open page and started again on the same port and data, at desktop and
// phone size. One place per error, the right words, a Retry that works once the server is back:
// the chat says "Reconnecting…" (state line and phone header alike), never "Could not load the
// session" over a loaded transcript, and a text sent meanwhile waits, listing the files that go
// with it, and goes by itself when the server is back; the home page's "New session" says once
// that the server could not be reached, with Retry; a proxy's 502 for the list is said once, in
// those words, with a Retry that loads it. Signed in as the owner through the `?token=` URL (the
// sign-in is stored, so it outlives the restart).

let servers: Servers;
let browser: Browser;

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

// each test stops and starts the app server (~10-40 s on a loaded machine)
test.describe.configure({ timeout: 240_000 });

// the app server is up again after a test that failed halfway
test.afterEach(async () => {
  if ((await fetch(`${servers.url}/api/sessions`).catch(() => undefined)) === undefined) {
    await servers.startApp();
  }
});

const SIZES = [
  { name: "desktop", viewport: DESKTOP, touch: false },
  { name: "phone", viewport: PHONE, touch: true },
] as const;

async function signedIn(
  size: (typeof SIZES)[number],
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: size.viewport,
    ...(size.touch ? { isMobile: true, hasTouch: true } : {}),
  });
  const page = await context.newPage();
  await page.goto(`${servers.url}/?token=${servers.token}`);
  await expect(page).toHaveURL(`${servers.url}/`);
  return { context, page };
}

/** How many times `text` appears in what the page shows (toasts included). */
async function timesShown(page: Page, text: string): Promise<number> {
  const body = String(await page.evaluate("document.body.innerText"));
  return body.split(text).length - 1;
}

/** GET /api/sessions (with or without a query), as the home page lists them */
const SESSION_LIST = /\/api\/sessions(?:\?[^/]*)?$/;

const stateLine = (page: Page) => page.locator('[role="status"][aria-label="Session state"]');
const messageBox = (page: Page) => page.getByRole("textbox", { name: "Message", exact: true });

for (const size of SIZES) {
  test(`the server stops under an open chat (${size.name}): Reconnecting… once, a text with a file waits listing it and goes when the server is back`, async () => {
    await servers.resetFake();
    await servers.script([{ blocks: [{ type: "text", text: "Back again, notes read." }] }]);
    const id = await servers.api.createSession({}, `Gone ${nonce()}`);
    const { context, page } = await signedIn(size);
    await page.goto(`${servers.url}/sessions/${id}`);
    await expect(messageBox(page)).toBeEnabled();
    // below 640 px the state line is behind the header's summary button, which says the same
    const summary = page.getByRole("button", { name: /: status and tools$/ });

    await servers.app.kill();
    if (size.touch) {
      await expect(summary).toHaveAccessibleName("Reconnecting…: status and tools", {
        timeout: 30_000,
      });
      await summary.click();
    }
    await expect(stateLine(page)).toHaveText("Reconnecting…", { timeout: 30_000 });

    await page.getByLabel("Files to upload").setInputFiles({
      name: "notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("NOTES-7: the server went away"),
    });
    await messageBox(page).fill("What do the notes say?");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const waiting = page.locator("article[data-outgoing]");
    await expect(waiting).toHaveAttribute("data-status", "held");
    await expect(waiting).toContainText("Waiting for the connection · sends when it is back");
    const files = waiting.getByRole("list", { name: "Files with this message" });
    await expect(files).toHaveText(/notes\.md\s*29 B/);

    // one place: the header's line (and on a phone its summary) says it, nothing else does
    await page.waitForTimeout(1_500);
    await expect(stateLine(page)).toHaveText("Reconnecting…");
    expect(await timesShown(page, "Could not load the session")).toBe(0);
    expect(await timesShown(page, "could not be reached")).toBe(0);

    await servers.startApp();
    await expect(
      page.locator('section[aria-label="Transcript"] article[aria-label="Assistant message"]'),
    ).toContainText("Back again, notes read.", { timeout: 60_000 });
    await expect(waiting).toHaveCount(0);
    await expect(stateLine(page)).toHaveText("Ready");
    expect(await timesShown(page, "Reconnecting…")).toBe(0);
    // the text and its file went as one message, once
    const users = (await servers.api.messages(id)).filter((m) => m.role === "user");
    expect(users).toHaveLength(1);
    expect(JSON.stringify(users[0]?.body)).toContain("notes.md");
    await context.close();
  });

  test(`the server stops under the home page (${size.name}): New session says so once, with a Retry that works when it is back`, async () => {
    const { context, page } = await signedIn(size);
    await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
    await servers.app.kill();

    await page.getByRole("button", { name: "New session", exact: true }).click();
    const toasts = page.getByRole("region", { name: /Notifications/ });
    await expect(toasts).toContainText("Could not create a session");
    await expect(toasts).toContainText("The server could not be reached.");
    await page.waitForTimeout(1_000);
    await expect(toasts.getByText("The server could not be reached.")).toHaveCount(1);
    expect(await timesShown(page, "Could not load the sessions")).toBe(0);
    const retry = page.getByRole("button", { name: "Retry", exact: true });
    await expect(retry).toHaveCount(1);

    await servers.startApp();
    await retry.click();
    await expect(page).toHaveURL(/\/sessions\/[^/]+$/, { timeout: 30_000 });
    await expect(messageBox(page)).toBeEnabled();
    expect(await timesShown(page, "could not be reached")).toBe(0);
    await context.close();
  });

  test(`a proxy's 502 for the session list (${size.name}): said once in plain words, Retry loads the list`, async () => {
    const title = `Listed ${nonce()}`;
    await servers.api.createSession({}, title);
    const { context, page } = await signedIn(size);
    // the proxy answers for an app server it cannot reach
    await page.route(SESSION_LIST, (route) =>
      route.fulfill({ status: 502, contentType: "text/html", body: "<h1>502 Bad Gateway</h1>" }),
    );
    await page.reload();
    const alert = page.getByRole("alert").filter({ hasText: "Could not load the sessions" });
    await expect(alert).toHaveText(
      /Could not load the sessions: The server could not be reached \(502 Bad Gateway\)\.\s*Retry/,
      { timeout: 30_000 },
    );
    expect(await timesShown(page, "could not be reached")).toBe(1);
    expect(await timesShown(page, "Bad Gateway")).toBe(1);

    await page.unroute(SESSION_LIST);
    await alert.getByRole("button", { name: "Retry" }).click();
    await expect(alert).toHaveCount(0);
    await expect(page.getByRole("button", { name: new RegExp(`^${title}`) })).toBeVisible();
    await context.close();
  });
}
