import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { DESKTOP, nonce, PHONE, type Servers, useServersAndBrowser } from "./harness.js";

// Issue #27 case 10, the server gone, at desktop and phone size (decision 0055):
// - behind a proxy: a 502 for the session list is said once, in plain words ("could not be
//   reached"), with a Retry that loads the list;
// - the app server stopped under an open, loaded chat: the transcript stays, the connection's
//   words are said in one place ("Reconnecting…"), no "Could not load the session" over it even
//   for an instant, and the chat comes back by itself when the server does;
// - the app server stopped under the home page: "New session" failing is one toast with Retry,
//   which stays until acted on, and its Retry creates the session once the server is back.

let servers: Servers;
let browser: Browser;

useServersAndBrowser({}, (started) => ({ servers, browser } = started));

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

/**
 * Records, from the page's first script on, every text matching `pattern` that the page ever
 * shows, however briefly (a MutationObserver sees an alert that is gone by the next assertion).
 */
async function recordFlashes(context: BrowserContext, pattern: RegExp): Promise<void> {
  // a script in the page's own words (e2e compiles without the DOM's types)
  await context.addInitScript({
    content: `(() => {
      const seen = [];
      window.__flashes = seen;
      const matcher = new RegExp(${JSON.stringify(pattern.source)}, "g");
      const look = () => {
        const text = document.body ? document.body.innerText : "";
        for (const match of text.match(matcher) || []) seen.push(match);
      };
      new MutationObserver(look).observe(document, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    })();`,
  });
}

async function flashes(page: Page): Promise<string[]> {
  return (await page.evaluate("window.__flashes")) as string[];
}

/** The alerts that say something (Next's route announcer is an empty one, always there). */
function alerts(page: Page) {
  return page.getByRole("alert").filter({ hasText: /\S/ });
}

/** How many times `text` appears in what the page shows (toasts included). */
async function timesShown(page: Page, text: string): Promise<number> {
  const body = String(await page.evaluate("document.body.innerText"));
  return body.split(text).length - 1;
}

/** GET /api/sessions (with or without a query), as the home page lists them */
const SESSION_LIST = /\/api\/sessions(?:\?[^/]*)?$/;

for (const size of SIZES) {
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

for (const size of SIZES) {
  test(`the app server stopped under a loaded chat (${size.name}): the transcript stays, "Reconnecting…" once, back by itself`, async () => {
    test.setTimeout(180_000);
    const title = `Loaded ${nonce()}`;
    const id = await servers.api.createSession({}, title);
    await servers.script([
      { blocks: [{ type: "text", text: "The first answer is here." }] },
      { blocks: [{ type: "text", text: "The answer after the outage." }] },
    ]);
    await servers.api.send(id, { type: "text", text: "Say something." });

    const context = await browser.newContext({
      viewport: size.viewport,
      ...(size.touch ? { isMobile: true, hasTouch: true } : {}),
    });
    await recordFlashes(context, /Could not load[^\n]*|could not be reached[^\n]*/);
    const page = await context.newPage();
    await page.goto(`${servers.url}/?token=${servers.token}`);
    await expect(page).toHaveURL(`${servers.url}/`);
    await page.goto(`${servers.url}/sessions/${id}`);
    const transcript = page.locator('section[aria-label="Transcript"]');
    const answer = transcript.getByText("The first answer is here.");
    const indicator = page.locator("[data-connection]");
    const stateLine = page.locator('[role="status"][aria-label="Session state"]');
    await expect(answer).toBeVisible();
    await expect(indicator).toHaveAttribute("data-connection", "connected");

    await servers.app.kill();
    // the browser is online: the server is away, and the page says it tries again
    await expect(indicator).toHaveAttribute("data-connection", "reconnecting", {
      timeout: 30_000,
    });
    if (size.touch) {
      await expect(page.getByText("Reconnecting…", { exact: true }).first()).toBeVisible();
    } else {
      await expect(stateLine).toHaveText("Reconnecting…");
    }
    // long enough for every query's refetch and retry to fail while the chat is loaded
    await page.waitForTimeout(8_000);
    await expect(answer).toBeVisible();
    await expect(alerts(page)).toHaveCount(0);
    expect(await flashes(page)).toEqual([]);

    await servers.startApp();
    await expect(indicator).toHaveAttribute("data-connection", "connected", { timeout: 60_000 });
    if (!size.touch) await expect(stateLine).toHaveText("Ready");
    await expect(answer).toBeVisible();
    // it is live again: a message sent elsewhere arrives without a reload
    await servers.api.send(id, { type: "text", text: "Again." });
    await expect(transcript.getByText("The answer after the outage.")).toBeVisible({
      timeout: 30_000,
    });
    await expect(alerts(page)).toHaveCount(0);
    expect(await flashes(page)).toEqual([]);
    await context.close();
  });
}

for (const size of SIZES) {
  test(`the app server stopped under the home page (${size.name}): New session fails as one lasting toast whose Retry works when it is back`, async () => {
    test.setTimeout(180_000);
    const title = `Home ${nonce()}`;
    await servers.api.createSession({}, title);
    const { context, page } = await signedIn(size);
    await expect(page.getByRole("button", { name: "New session" }).first()).toBeEnabled();
    // the home page loaded: its list is shown before the server goes (a list that never loaded
    // says so itself, which is another error than the one this case is about)
    await expect(page.getByText(title).first()).toBeVisible({ timeout: 30_000 });
    const before = (await servers.api.get("/api/sessions")).json as unknown[];

    await servers.app.kill();
    await page.getByRole("button", { name: "New session" }).first().click();
    const toast = page
      .getByRole("region", { name: /Notifications/ })
      .getByRole("listitem")
      .filter({ hasText: "Could not create a session" });
    await expect(toast).toHaveCount(1, { timeout: 30_000 });
    await expect(toast).toContainText("The server could not be reached.");
    // a second try while it is still away: the same one toast, not a second. On a phone the
    // toast spans the top of the screen and covers the page's "New session" (sonner lays toasts
    // out full width below 600 px), so a person there tries again with the toast's own Retry.
    if (size.touch) await toast.getByRole("button", { name: "Retry" }).click();
    else await page.getByRole("button", { name: "New session" }).first().click();
    await page.waitForTimeout(1_000);
    await expect(toast).toHaveCount(1);
    // it stays until acted on: longer than a toast's few seconds, and than a restart takes
    await page.waitForTimeout(10_000);
    await expect(toast).toHaveCount(1);
    expect(await timesShown(page, "could not be reached")).toBe(1);

    await servers.startApp();
    await toast.getByRole("button", { name: "Retry" }).click();
    await expect(page).toHaveURL(/\/sessions\/[^/]+$/, { timeout: 30_000 });
    await expect(toast).toHaveCount(0);
    const after = (await servers.api.get("/api/sessions")).json as unknown[];
    expect(after.length).toBe(before.length + 1);
    await context.close();
  });
}
