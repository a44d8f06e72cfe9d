import { expect, test } from "@playwright/test";
import { freePort } from "../crash/app-server.js";
import { Servers } from "./harness.js";

// Issue #25, "Tests": passkeys in Chromium with its virtual authenticator (CDP WebAuthn domain).
// The owner, signed in with the install token's URL, adds a passkey in Settings › Account, signs
// out, and signs in again with the passkey alone. Passkeys are bound to a domain: the app's
// public URL is http://localhost:PORT (127.0.0.1 is not a valid WebAuthn RP ID).

let servers: Servers;
let arborUrl = "";

test.beforeAll(async () => {
  const port = await freePort();
  arborUrl = `http://localhost:${port}`;
  servers = await Servers.start({ port, env: { ARBOR_PUBLIC_URL: arborUrl } });
});

test.afterAll(async () => {
  await servers?.close();
});

test("add a passkey in Settings › Account, sign out, sign in with the passkey", async ({
  page,
}) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });

  // the owner's browser, signed in by the printed URL
  await page.goto(`${arborUrl}/settings/account?token=${encodeURIComponent(servers.token)}`);
  await expect(page).toHaveURL(`${arborUrl}/settings/account`);
  await expect(page.getByTestId("account-role")).toHaveText("owner");
  await expect(page.getByText("No passkeys yet.")).toBeVisible();

  await page.getByLabel("Passkey name").fill("Virtual key");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByText("Passkey added.")).toBeVisible();
  await expect(page.getByRole("list", { name: "Your passkeys" })).toContainText("Virtual key");
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential).toBe(true);

  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(`${arborUrl}/login`);
  // signed out: the page sends the browser to sign in
  await page.goto(`${arborUrl}/settings/account`);
  await expect(page).toHaveURL(`${arborUrl}/login?next=%2Fsettings%2Faccount`);

  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page).toHaveURL(`${arborUrl}/settings/account`);
  await expect(page.getByTestId("account-role")).toHaveText("owner");
  const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(after.credentials[0]?.signCount).toBeGreaterThan(credentials[0]?.signCount ?? 0);

  // removed, it signs nobody in
  await page.getByRole("button", { name: "Remove passkey Virtual key" }).click();
  await expect(page.getByText("No passkeys yet.")).toBeVisible();
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(`${arborUrl}/login`);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("No passkey signed you in");
  await expect(page).toHaveURL(`${arborUrl}/login`);
});
