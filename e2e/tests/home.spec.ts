import { expect, test } from "@playwright/test";
import { assistantMessages, keepScreenshot, sendFromComposer, stateLine } from "./app.js";
import { E2E_TOKEN } from "./e2e-token.js";
import { resetFakeLlm, scriptFakeLlm } from "./fake-llm.js";

test.beforeEach(async ({ request }) => {
  await resetFakeLlm(request);
});

test("the production build serves the app", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Arbor" })).toBeVisible();
});

test("a person signs in with the printed URL's token: the sign-in page, then the session cookie carries every request", async ({
  browser,
  request,
  baseURL,
}, testInfo) => {
  const answer = "Signed in and answering through the session cookie.";
  await scriptFakeLlm(request, [{ blocks: [{ type: "text", text: answer }], chunkSize: 8 }]);
  // a fresh browser context: no Bearer header (the project's is replaced), no cookie
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: {} });
  const page = await context.newPage();
  try {
    // without a session a page sends the browser to sign in, and back after
    await page.goto("/");
    await expect(page).toHaveURL(`${baseURL}/login?next=%2F`);
    await expect(page.getByRole("textbox", { name: "Email" })).toBeVisible();
    await keepScreenshot(page, testInfo, "sign-in-page");

    // the URL the server printed signs the browser in as the owner
    await page.goto(`/?token=${encodeURIComponent(E2E_TOKEN)}`);
    await expect(page).toHaveURL(`${baseURL}/`);
    await expect(page.getByRole("heading", { name: "Arbor" })).toBeVisible();
    const cookie = (await context.cookies()).find((c) => c.name === "arbor.session_token");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(cookie?.value).not.toContain(E2E_TOKEN);

    // the app's own requests (a POST with its Origin, the SSE stream) go with the cookie alone
    await page.getByRole("button", { name: "New session", exact: true }).click();
    await expect(page).toHaveURL(/\/sessions\/[^/]+$/);
    await sendFromComposer(page, "Are you there?");
    await expect(assistantMessages(page).last()).toContainText(answer);
    await expect(stateLine(page)).toHaveText("Ready");
    await keepScreenshot(page, testInfo, "signed-in-chat");
  } finally {
    await context.close();
  }
});
