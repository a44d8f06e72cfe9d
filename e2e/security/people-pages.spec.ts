import { type BrowserContext, expect, test } from "@playwright/test";
import { nonce, ownerContext, Servers } from "./harness.js";

// Issue #25 in the browser: Settings › Tokens (a token made, shown once, used as Bearer, revoked
// and refused at once) and Admin › People (an invitation link made and taken, the person's role
// changed, a monthly token budget set, the person disabled and refused).

let servers: Servers;
let owner: BrowserContext;

test.beforeAll(async ({ browser }) => {
  servers = await Servers.start();
  owner = await ownerContext(browser, servers);
});

test.afterAll(async () => {
  await owner?.close();
  await servers?.close();
});

test("Settings › Tokens: a token is shown once, works as Bearer, and stops when revoked", async () => {
  const page = await owner.newPage();
  await page.goto("/settings/account");
  await page.getByRole("link", { name: "Personal API tokens" }).click();
  await expect(page).toHaveURL(`${servers.url}/settings/tokens`);
  await page.getByLabel("Name").fill("ci reader");
  await page.getByLabel("Scope").selectOption("read");
  await page.getByRole("button", { name: "Create token" }).click();
  const secret = (await page.getByTestId("new-token").textContent()) ?? "";
  expect(secret).toMatch(/^arbor_/);
  const bearer = servers.raw.with({ authorization: `Bearer ${secret}` });
  const me = await bearer.get("/api/me");
  expect(me.status, me.text).toBe(200);
  expect(me.json).toMatchObject({ via: "token", scope: "read", role: "owner" });
  // read scope: no session made with it
  expect((await bearer.post("/api/sessions", { title: "x" })).status).toBe(403);
  // the list shows it without its secret
  await expect(page.getByRole("cell", { name: "ci reader", exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByText(secret)).toHaveCount(0);
  await page.getByRole("button", { name: "Revoke ci reader" }).click();
  await expect(page.getByRole("cell", { name: "revoked" })).toBeVisible();
  expect((await bearer.get("/api/me")).status).toBe(401);
  await page.close();
});

test("Admin › People: invite, change the role, set a budget, disable", async () => {
  const page = await owner.newPage();
  await page.goto("/admin");
  await page.getByRole("link", { name: "People" }).click();
  await expect(page).toHaveURL(`${servers.url}/admin/people`);
  const email = `vera-${nonce()}@people.test`;
  await page.getByLabel("Email (optional: only this address can use the link)").fill(email);
  await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Make invitation link" }).click();
  const url = (await page.getByTestId("invitation-url").textContent()) ?? "";
  const token = url.split("/invite/")[1] ?? "";
  expect(token).not.toBe("");
  const joined = await servers.raw
    .with({ origin: servers.url })
    .post("/api/auth/sign-up/invitation", {
      token,
      name: "Vera",
      email,
      password: "e2e password 0123",
    });
  expect(joined.status, joined.text).toBe(200);
  const cookie = joined.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith("arbor.session_token="));
  const vera = servers.raw.with({ cookie: cookie ?? "" });
  expect((await vera.get("/api/me")).json).toMatchObject({ name: "Vera", role: "viewer" });

  await page.reload();
  await expect(page.getByText(`${email} as viewer`)).toBeVisible();
  await page.getByLabel("Role of Vera").selectOption("member");
  await expect
    .poll(async () => {
      const people = (await servers.api.get("/api/people")).json as {
        people: Array<{ name: string; role: string }>;
      };
      return people.people.find((p) => p.name === "Vera")?.role;
    })
    .toBe("member");

  await page.getByLabel("Monthly tokens of Vera").fill("1000");
  await page
    .getByRole("form", { name: "Budget of Vera" })
    .getByRole("button", { name: "Set" })
    .click();
  const people = (await servers.api.get("/api/people")).json as {
    people: Array<{ id: string; name: string }>;
  };
  const veraId = people.people.find((p) => p.name === "Vera")?.id ?? "";
  await expect
    .poll(
      async () =>
        (
          (await servers.api.get(`/api/people/${veraId}/budget`)).json as {
            monthly_tokens: number | null;
          }
        ).monthly_tokens,
    )
    .toBe(1000);

  await page.getByRole("button", { name: "Disable Vera" }).click();
  await expect(page.getByRole("button", { name: "Enable Vera" })).toBeVisible();
  // a role change ended Vera's sessions; signing in again is refused now she is disabled
  expect((await vera.get("/api/me")).status).toBe(401);
  const again = await servers.raw
    .with({ origin: servers.url })
    .post("/api/auth/sign-in/email", { email, password: "e2e password 0123" });
  expect(again.status).not.toBe(200);
  await page.close();
});
