import { costOfUsage } from "@arbor/core";
import {
  type Browser,
  type BrowserContext,
  chromium,
  expect,
  type Page,
  test,
} from "@playwright/test";
import { nonce, Servers } from "./harness.js";

// Issue #28 (cost), in Chromium against the production build: what a person sees of cost in the
// usage meter, the session list, an answer's details and the admin loop tree, for a session on a
// priced model (the fake reports the requested model, claude-sonnet-4-5) and one on a model
// without a price, which says "no price for this model", never $0.00. Desktop and phone.

let servers: Servers;
let browser: Browser;

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const USAGE = { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 400 };
const NO_PRICE = "no price for this model";

let priced: { id: string; title: string };
let unpriced: { id: string; title: string };
/** "$0.0084": claude-sonnet-4-5's cost of USAGE at list prices, as the UI writes it */
let pricedText: string;

test.beforeAll(async () => {
  servers = await Servers.start();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const api = servers.api;
  priced = { title: `Priced ${nonce()}`, id: "" };
  unpriced = { title: `Local ${nonce()}`, id: "" };
  priced.id = await api.createSession({}, priced.title);
  unpriced.id = await api.createSession({}, unpriced.title);
  // the harness's apps ask for "claude-test" (no price): each session names its model
  for (const [{ id }, model] of [
    [priced, "claude-sonnet-4-5"],
    [unpriced, "local-llama-3"],
  ] as const) {
    const patched = await api.patch(`/api/sessions/${id}/config`, {
      model: { protocol: "anthropic-messages", model },
    });
    expect(patched.status).toBe(200);
  }
  for (const { id } of [priced, unpriced]) {
    await servers.script([{ blocks: [{ type: "text", text: "Hello there." }], usage: USAGE }]);
    await api.send(id, { type: "text", text: "hi" });
    expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  }
  const cost = costOfUsage({ ...USAGE, totalTokens: 4600 }, "claude-sonnet-4-5");
  expect(cost).toBeGreaterThanOrEqual(0.0001);
  expect(cost).toBeLessThan(0.01);
  pricedText = `$${cost!.toFixed(4)}`;
});

test.afterAll(async () => {
  await browser?.close();
  await servers?.close();
});

async function signedIn(
  size: "desktop" | "phone",
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(
    size === "desktop"
      ? { viewport: DESKTOP }
      : { viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 3 },
  );
  const page = await context.newPage();
  await page.goto(`${servers.url}/?token=${servers.token}`);
  return { context, page };
}

/** The session list's row of `title` on the home page. */
function row(page: Page, title: string) {
  return page.getByRole("button", { name: new RegExp(title) }).first();
}

/** Opens the answer's details and returns what its Cost says. */
async function answerCost(page: Page): Promise<string | null> {
  const answer = page.getByRole("article", { name: "Assistant message" }).last();
  await expect(answer).toContainText("Hello there.");
  await answer.getByText("Details", { exact: true }).click();
  return answer.getByTestId("answer-cost").textContent();
}

for (const size of ["desktop", "phone"] as const) {
  test(`${size}: the session list, the answer's details and the meter show cost, or that there is no price`, async () => {
    const { context, page } = await signedIn(size);
    await expect(row(page, priced.title).getByTestId("session-cost")).toHaveText(pricedText);
    await expect(row(page, unpriced.title).getByTestId("session-cost")).toHaveText(NO_PRICE);

    await page.goto(`${servers.url}/sessions/${priced.id}`);
    expect(await answerCost(page)).toBe(pricedText);
    const meterCost = page.getByTestId("meter-cost");
    if (size === "desktop") await expect(meterCost).toHaveText(`· ${pricedText} spent`);
    // a phone shows the meter's bar alone (its words stay in aria-valuetext)
    else await expect(meterCost).toBeHidden();

    await page.goto(`${servers.url}/sessions/${unpriced.id}`);
    expect(await answerCost(page)).toBe(NO_PRICE);
    if (size === "desktop") {
      await expect(page.getByTestId("meter-cost")).toHaveText(`· ${NO_PRICE}`);
    }
    // never a made-up $0.00 for the model without a price
    await expect(page.getByText(/\$0\.00(?!\d)/)).toHaveCount(0);
    await context.close();
  });
}

test("desktop: the admin loop tree shows each loop's cost and the whole tree's", async () => {
  const { context, page } = await signedIn("desktop");
  await page.goto(`${servers.url}/admin/sessions/${priced.id}`);
  const loop = page.getByRole("listitem", { name: /^Loop / }).first();
  await expect(loop.getByTestId("loop-cost")).toHaveText(` · ${pricedText}`);
  await expect(page.getByTestId("loop-tree-total")).toHaveText(
    `Whole tree: 1 loop · 4.6k tokens · ${pricedText}`,
  );

  await page.goto(`${servers.url}/admin/sessions/${unpriced.id}`);
  await expect(
    page
      .getByRole("listitem", { name: /^Loop / })
      .first()
      .getByTestId("loop-cost"),
  ).toHaveText(` · ${NO_PRICE}`);
  await expect(page.getByTestId("loop-tree-total")).toHaveText(
    `Whole tree: 1 loop · 4.6k tokens · ${NO_PRICE}`,
  );
  await context.close();
});
