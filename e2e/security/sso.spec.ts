import { expect, type Page, test } from "@playwright/test";
import { freePort } from "../crash/app-server.js";
import { Servers } from "./harness.js";
import { type Issuer, startIssuer } from "./oidc-issuer.js";

// Issue #25, "Tests": SSO against a real OpenID provider (panva's oidc-provider, in this process).
// Chromium clicks the SSO button on /login, signs in on the provider's own login and consent
// pages, and lands in Arbor signed in, with the role its roles claim names (applied again at
// every SSO sign-in). With ARBOR_SIGNUP=invite an SSO person without an invitation is refused.

const ROLES_CLAIM = "arbor_roles";

/**
 * The provider's development login page, then its consent page; either may be skipped when the
 * provider remembers this browser (its session, its grant). Called right after the click on
 * Arbor's SSO button: it follows the browser, page by page, until it is back at Arbor on another
 * page than the one it started from. Each of the provider's pages is answered once, and only
 * once it shows (a check made while the browser is still on its way there would skip the login).
 */
async function signInAtProvider(page: Page, login: string, issuerUrl: string): Promise<void> {
  const start = page.url();
  const field = page.locator('input[name="login"]');
  const consent = page.getByRole("button", { name: "Continue" });
  const answered = new Set<string>();
  /** every URL the browser was seen at, in order: the failure names the way it went */
  const seen: string[] = [];
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const url = page.url();
    if (seen.at(-1) !== url) seen.push(url);
    if (url.startsWith(issuerUrl)) {
      if (!answered.has(url) && (await field.isVisible())) {
        answered.add(url);
        await field.fill(login);
        await page.locator('input[name="password"]').fill("any password signs in here");
        await page.getByRole("button", { name: "Sign-in" }).click();
      } else if (!answered.has(url) && (await consent.isVisible())) {
        answered.add(url);
        await consent.click();
      }
    } else if (url !== start) {
      return;
    }
    await page.waitForTimeout(100);
  }
  const text = await page
    .locator("body")
    .textContent({ timeout: 2_000 })
    .catch((error: unknown) => `(no text: ${String(error)})`);
  throw new Error(
    `the sign-in at the provider did not finish: the browser is at ${page.url()}; it went ${seen.join(" → ")}; answered ${[...answered].join(", ") || "nothing"}; the page says: ${(text ?? "").replace(/\s+/g, " ").slice(0, 400)}`,
  );
}

test.describe("SSO with ARBOR_SIGNUP=sso", () => {
  let servers: Servers;
  let issuer: Issuer;
  let arborUrl = "";

  test.beforeAll(async () => {
    const port = await freePort();
    arborUrl = `http://localhost:${port}`;
    issuer = await startIssuer({
      arborUrl,
      rolesClaim: ROLES_CLAIM,
      accounts: {
        ana: { email: "ana@sso.example", name: "Ana Admin", roles: ["staff", "admin"] },
        ben: { email: "ben@sso.example", name: "Ben Viewer", roles: "viewer" },
      },
    });
    servers = await Servers.start({
      port,
      env: {
        ARBOR_PUBLIC_URL: arborUrl,
        ARBOR_OIDC_ISSUER: issuer.url,
        ARBOR_OIDC_CLIENT_ID: issuer.clientId,
        ARBOR_OIDC_CLIENT_SECRET: issuer.clientSecret,
        ARBOR_OIDC_NAME: "Acme ID",
        ARBOR_OIDC_ROLES_CLAIM: ROLES_CLAIM,
        ARBOR_SIGNUP: "sso",
      },
    });
  });

  test.afterAll(async () => {
    await servers?.close();
    await issuer?.close();
  });

  test("the SSO button signs a new person in with the role of the roles claim", async ({
    page,
  }) => {
    await page.goto(`${arborUrl}/login?next=%2Fsettings%2Faccount`);
    await page.getByRole("button", { name: "Sign in with Acme ID" }).click();
    await expect(page).toHaveURL(new RegExp(`^${issuer.url}/`));
    await signInAtProvider(page, "ana", issuer.url);

    // back in Arbor where `next` said, signed in
    await expect(page).toHaveURL(`${arborUrl}/settings/account`);
    await expect(page.getByTestId("account-email")).toHaveText("ana@sso.example");
    await expect(page.getByTestId("account-role")).toHaveText("admin");
    // GET /api/me with the browser's cookie: the same person, the role from the claim
    const me = await page.request.get(`${arborUrl}/api/me`);
    expect(me.status()).toBe(200);
    const body = (await me.json()) as { email: string; role: string };
    expect(body.email).toBe("ana@sso.example");
    expect(body.role).toBe("admin");
  });

  test("the roles claim is applied again at every SSO sign-in", async ({ page }) => {
    await page.goto(`${arborUrl}/login`);
    await page.getByRole("button", { name: "Sign in with Acme ID" }).click();
    await signInAtProvider(page, "ben", issuer.url);
    await expect(page).toHaveURL(`${arborUrl}/`);
    await page.goto(`${arborUrl}/settings/account`);
    await expect(page.getByTestId("account-role")).toHaveText("viewer");

    // the provider now says member: the next sign-in changes the role
    issuer.accounts.set("ben", { email: "ben@sso.example", name: "Ben", roles: ["member"] });
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect(page).toHaveURL(`${arborUrl}/login`);
    await page.getByRole("button", { name: "Sign in with Acme ID" }).click();
    await signInAtProvider(page, "ben", issuer.url);
    await expect(page).toHaveURL(`${arborUrl}/`);
    await page.goto(`${arborUrl}/settings/account`);
    await expect(page.getByTestId("account-role")).toHaveText("member");
  });

  test("a roles claim of owner grants nothing more", async ({ page }) => {
    issuer.accounts.set("cai", { email: "cai@sso.example", name: "Cai", roles: "owner" });
    await page.goto(`${arborUrl}/login`);
    await page.getByRole("button", { name: "Sign in with Acme ID" }).click();
    await signInAtProvider(page, "cai", issuer.url);
    await expect(page).toHaveURL(`${arborUrl}/`);
    await page.goto(`${arborUrl}/settings/account`);
    await expect(page.getByTestId("account-role")).toHaveText("member");
  });
});

test.describe("SSO with ARBOR_SIGNUP=invite", () => {
  let servers: Servers;
  let issuer: Issuer;
  let arborUrl = "";

  test.beforeAll(async () => {
    const port = await freePort();
    arborUrl = `http://localhost:${port}`;
    issuer = await startIssuer({
      arborUrl,
      rolesClaim: ROLES_CLAIM,
      accounts: { dee: { email: "dee@sso.example", name: "Dee", roles: "admin" } },
    });
    servers = await Servers.start({
      port,
      env: {
        ARBOR_PUBLIC_URL: arborUrl,
        ARBOR_OIDC_ISSUER: issuer.url,
        ARBOR_OIDC_CLIENT_ID: issuer.clientId,
        ARBOR_OIDC_CLIENT_SECRET: issuer.clientSecret,
        ARBOR_OIDC_ROLES_CLAIM: ROLES_CLAIM,
        ARBOR_SIGNUP: "invite",
      },
    });
  });

  test.afterAll(async () => {
    await servers?.close();
    await issuer?.close();
  });

  test("an SSO person without an invitation is refused and not signed in", async ({ page }) => {
    await page.goto(`${arborUrl}/login`);
    // ARBOR_OIDC_NAME unset: the button says SSO
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await signInAtProvider(page, "dee", issuer.url);
    await expect(page).toHaveURL(/\/login\?error=/);
    await expect(page.locator("main").getByRole("alert")).toContainText(
      "ask an admin for an invitation",
    );
    // no session: a page sends the browser to sign in
    await page.goto(`${arborUrl}/settings/account`);
    await expect(page).toHaveURL(`${arborUrl}/login?next=%2Fsettings%2Faccount`);
    const cookies = await page.context().cookies(arborUrl);
    expect(cookies.map((c) => c.name)).not.toContain("arbor.session_token");
  });
});
