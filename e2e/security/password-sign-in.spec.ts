import { expect, test } from "@playwright/test";
import { freePort } from "../crash/app-server.js";
import { Servers } from "./harness.js";

// Issue #25, "Tests": password sign-in in the browser. Unknown email and wrong password read the
// same; sign-out ends the session on the server (the old cookie, replayed, gets 401); `next`
// only ever leads to a path of this site; past the account's limit the page gives the wait.

const OWNER_EMAIL = "owner@arbor.example";
const OWNER_PASSWORD = "correct horse battery staple";

let servers: Servers;
let arborUrl = "";

test.beforeAll(async () => {
  const port = await freePort();
  arborUrl = `http://localhost:${port}`;
  servers = await Servers.start({
    port,
    env: {
      ARBOR_PUBLIC_URL: arborUrl,
      ARBOR_OWNER_EMAIL: OWNER_EMAIL,
      ARBOR_OWNER_PASSWORD: OWNER_PASSWORD,
    },
  });
});

test.afterAll(async () => {
  await servers?.close();
});

test("password sign-in goes to next; the same message for unknown email and wrong password", async ({
  page,
}) => {
  // a page without a session sends the browser to sign in, with itself as `next`
  await page.goto(`${arborUrl}/settings/account`);
  await expect(page).toHaveURL(`${arborUrl}/login?next=%2Fsettings%2Faccount`);

  await page.getByRole("textbox", { name: "Email" }).fill(OWNER_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill("not the password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  const wrong = await page.locator("main").getByRole("alert").textContent();
  expect(wrong).toBe("That email and password do not match an account.");

  await page.getByRole("textbox", { name: "Email" }).fill("nobody@arbor.example");
  await page.getByLabel("Password", { exact: true }).fill("not the password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.locator("main").getByRole("alert")).toHaveText(wrong ?? "");

  await page.getByRole("textbox", { name: "Email" }).fill(OWNER_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(OWNER_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${arborUrl}/settings/account`);
  await expect(page.getByTestId("account-email")).toHaveText(OWNER_EMAIL);
});

test("sign-out ends the session on the server: the old cookie replayed gets 401", async ({
  page,
}) => {
  await page.goto(`${arborUrl}/login`);
  await page.getByRole("textbox", { name: "Email" }).fill(OWNER_EMAIL);
  await page.getByLabel("Password", { exact: true }).fill(OWNER_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${arborUrl}/`);
  const cookie = (await page.context().cookies(arborUrl)).find(
    (c) => c.name === "arbor.session_token",
  );
  expect(cookie?.httpOnly).toBe(true);
  const header = `${cookie?.name}=${cookie?.value}`;
  const before = await servers.raw.get("/api/sessions", { headers: { cookie: header } });
  expect(before.status, before.text).toBe(200);

  await page.goto(`${arborUrl}/settings/account`);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(`${arborUrl}/login`);
  const after = await servers.raw.get("/api/sessions", { headers: { cookie: header } });
  expect(after.status, after.text).toBe(401);
});

test("next never leaves the site", async ({ page }) => {
  for (const next of ["https://evil.example/", "//evil.example/x", "/\\evil.example"]) {
    await page.context().clearCookies();
    await page.goto(`${arborUrl}/login?next=${encodeURIComponent(next)}`);
    await page.getByRole("textbox", { name: "Email" }).fill(OWNER_EMAIL);
    await page.getByLabel("Password", { exact: true }).fill(OWNER_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page, next).toHaveURL(`${arborUrl}/`);
  }
});

test("past the account's limit the page says when to try again", async ({ page }) => {
  await page.goto(`${arborUrl}/login`);
  const email = "limited@arbor.example";
  for (let i = 0; i < 5; i++) {
    await page.getByRole("textbox", { name: "Email" }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(`wrong guess ${i}`);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.locator("main").getByRole("alert")).toHaveText(
      "That email and password do not match an account.",
    );
    // the alert is replaced on the next try: wait for the form to be usable again
    await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  }
  await page.getByLabel("Password", { exact: true }).fill("one guess too many");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.locator("main").getByRole("alert")).toHaveText(
    /^Too many failed sign-ins\. Try again in \d+ (s|min)\.$/,
  );
});
