import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { nonce, ownerContext, Servers } from "./harness.js";

// Issue #25, "Sharing", as two people in two browser contexts (docs/sharing.md): the owner (A,
// signed in by the install token's link) and Ben (B, a member who signed up through an invitation).
// A's session is invisible to B until A shares it; a viewer sees no composer and no approve
// buttons and the API answers 403; a read-only link shows one branch, forks into B's own
// sessions, and stops working when A revokes it.

let servers: Servers;
let browserA: BrowserContext;
let browserB: BrowserContext;
const benEmail = `ben-${nonce()}@people.test`;

// where the set-up is: a set-up that does not finish says where it stopped, with the app's log
let setUp = "starting the servers";

test.beforeAll(async ({ browser }) => {
  servers = await Servers.start();
  setUp = "signing the owner in";
  browserA = await signInOwner(browser);
  setUp = "signing Ben up";
  browserB = await signUpInvited(browser, "Ben", benEmail);
  setUp = "done";
});

test.afterAll(async () => {
  if (setUp !== "done") {
    process.stderr.write(
      `sharing: the set-up stopped at ${setUp}; the app's log:\n${servers?.appLog()}\n`,
    );
  }
  await browserA?.close();
  await browserB?.close();
  await servers?.close();
});

/** The owner's browser: the printed URL's `?token=` trades the install token for a session. */
function signInOwner(browser: Browser): Promise<BrowserContext> {
  return ownerContext(browser, servers);
}

/** A second person: the owner invites, the person's browser signs up with the invitation. */
async function signUpInvited(
  browser: Browser,
  name: string,
  email: string,
): Promise<BrowserContext> {
  const invited = await servers.api.post("/api/invitations", { role: "member" });
  expect(invited.status, invited.text).toBe(201);
  const { token } = invited.json as { token: string };
  const context = await browser.newContext({ baseURL: servers.url });
  const signedUp = await context.request.post("/api/auth/sign-up/invitation", {
    data: { token, name, email, password: `pw-${nonce()}-${nonce()}` },
    headers: { origin: servers.url },
  });
  expect(signedUp.status(), await signedUp.text()).toBe(200);
  const me = await context.request.get("/api/me");
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({ name, role: "member" });
  return context;
}

/** B's own API calls, with B's browser cookie (and the Origin a browser sends). */
function asB(method: "GET" | "POST", path: string, data?: unknown) {
  return browserB.request.fetch(path, {
    method,
    headers: { origin: servers.url },
    ...(data !== undefined ? { data } : {}),
  });
}

async function sessionWithAnswer(title: string, answer: string): Promise<string> {
  await servers.script([{ blocks: [{ type: "text", text: answer }] }]);
  const id = await servers.api.createSession({}, title);
  await servers.api.send(id, { type: "text", text: "tell me" });
  return id;
}

async function openShareDialog(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Session actions" }).click();
  await page.getByRole("menuitem", { name: "Share…" }).click();
  await expect(page.getByRole("dialog", { name: "Share session" })).toBeVisible();
}

test("A's session is invisible to B until A shares it; then B reads it without a composer", async () => {
  const title = `Ana's plans ${nonce()}`;
  const id = await sessionWithAnswer(title, "The plan is to plant oaks.");

  // B's list is loaded when B's own session is in it; A's is not
  const own = await asB("POST", "/api/sessions", { title: `Ben's own ${nonce()}` });
  expect(own.status()).toBe(201);
  const pageB = await browserB.newPage();
  await pageB.goto("/");
  await expect(pageB.getByText(/^Ben's own/).first()).toBeVisible();
  await expect(pageB.getByText(title)).toHaveCount(0);
  expect((await asB("GET", `/api/sessions/${id}`)).status()).toBe(404);
  const listed = (await (await asB("GET", "/api/sessions")).json()) as Array<{ id: string }>;
  expect(listed.map((s) => s.id)).not.toContain(id);
  await pageB.goto(`/sessions/${id}`);
  await expect(pageB.getByText("Session not found")).toBeVisible();

  // A shares it with B as a viewer, through the session menu's Share… dialog
  const pageA = await browserA.newPage();
  await pageA.goto(`/sessions/${id}`);
  await expect(pageA.getByText("The plan is to plant oaks.")).toBeVisible();
  await openShareDialog(pageA);
  const dialog = pageA.getByRole("dialog", { name: "Share session" });
  await dialog.getByLabel("Email").fill(benEmail);
  await dialog.getByLabel("Role").selectOption("viewer");
  await dialog.getByRole("button", { name: "Share", exact: true }).click();
  await expect(dialog.getByText("Ben", { exact: true })).toBeVisible();
  await expect(dialog.getByText(/viewer · shared by/)).toBeVisible();

  await pageB.goto("/");
  await expect(pageB.getByText(title).first()).toBeVisible();
  await pageB.goto(`/sessions/${id}`);
  await expect(pageB.getByText("The plan is to plant oaks.")).toBeVisible();
  await expect(pageB.getByTestId("read-only-note")).toBeVisible();
  await expect(pageB.getByRole("form", { name: "Message composer" })).toHaveCount(0);
  // and the API refuses what the page does not offer
  const sent = await asB("POST", `/api/sessions/${id}/messages`, {
    session_id: id,
    payload: { type: "text", text: "let me in" },
  });
  expect(sent.status()).toBe(403);
  await pageA.close();
  await pageB.close();
});

test("a viewer sees no approve buttons and is refused 403; a collaborator gets them", async () => {
  await servers.script([
    { blocks: [{ type: "toolCall", id: "call_notes", name: "list_files", arguments: {} }] },
  ]);
  const id = await servers.api.createSession(
    { approval_policy: { type: "manual" }, approve_read_only: false },
    "approve me",
  );
  await servers.api.send(id, { type: "text", text: "list the files" });
  expect((await servers.api.state(id)).type).toBe("AwaitingToolApproval");
  const shared = await servers.api.post(`/api/sessions/${id}/shares`, {
    email: benEmail,
    role: "viewer",
  });
  expect(shared.status, shared.text).toBe(201);

  const pageB = await browserB.newPage();
  await pageB.goto(`/sessions/${id}`);
  await expect(pageB.getByRole("listitem", { name: "Tool call list_files" })).toBeVisible();
  await expect(pageB.getByTestId("read-only-note")).toBeVisible();
  await expect(pageB.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await expect(pageB.getByRole("button", { name: "Deny", exact: true })).toHaveCount(0);
  // switching, merging and editing branches are the owner's and collaborators': no Branches button
  await expect(pageB.getByRole("button", { name: /^Branches/ })).toHaveCount(0);
  const refused = await asB("POST", `/api/sessions/${id}/approvals`, {
    decisions: [{ tool_call_id: "call_notes", decision: "approve" }],
  });
  expect(refused.status()).toBe(403);
  expect((await servers.api.state(id)).type).toBe("AwaitingToolApproval");

  // as a collaborator B may decide: the buttons are there
  const again = await servers.api.post(`/api/sessions/${id}/shares`, {
    email: benEmail,
    role: "collaborator",
  });
  expect(again.status, again.text).toBe(201);
  await pageB.reload();
  await expect(pageB.getByRole("button", { name: "Approve", exact: true }).first()).toBeVisible();
  await expect(pageB.getByRole("form", { name: "Message composer" })).toBeVisible();
  await expect(pageB.getByRole("button", { name: /^Branches/ })).toBeVisible();
  await pageB.close();
});

test("a link shows one branch read-only, forks into B's sessions, and stops when revoked", async () => {
  const title = `Linked ${nonce()}`;
  const id = await sessionWithAnswer(title, "Birches grow fast.");

  // A makes a link to the current branch in the Share… dialog: shown once, with Copy
  const pageA = await browserA.newPage();
  await pageA.goto(`/sessions/${id}`);
  await expect(pageA.getByText("Birches grow fast.")).toBeVisible();
  await openShareDialog(pageA);
  const dialog = pageA.getByRole("dialog", { name: "Share session" });
  await dialog.getByRole("button", { name: /Create link to/ }).click();
  const shown = dialog.getByLabel("New link");
  await expect(shown).toHaveValue(/\/share\/arbor_link_/);
  await expect(dialog.getByRole("button", { name: "Copy link" })).toBeVisible();
  const url = new URL(await shown.inputValue());
  const token = url.pathname.split("/").at(-1) ?? "";
  await expect(dialog.getByText(/made by/)).toBeVisible();

  // B opens it: the branch, read-only, and B still cannot open the session itself
  const pageB = await browserB.newPage();
  await pageB.goto(url.pathname);
  await expect(pageB.getByRole("heading", { name: title })).toBeVisible();
  await expect(pageB.getByText("Birches grow fast.")).toBeVisible();
  await expect(pageB.getByRole("form", { name: "Message composer" })).toHaveCount(0);
  expect((await asB("GET", `/api/sessions/${id}`)).status()).toBe(404);

  // Fork into my sessions: a session of B's own with the branch's messages and a composer
  await pageB.getByRole("button", { name: "Fork into my sessions" }).click();
  await expect(pageB).toHaveURL(/\/sessions\/[^/]+$/);
  const forkId = pageB.url().split("/").at(-1) ?? "";
  expect(forkId).not.toBe(id);
  await expect(pageB.getByText("Birches grow fast.")).toBeVisible();
  await expect(pageB.getByRole("form", { name: "Message composer" })).toBeVisible();
  const access = await asB("GET", `/api/sessions/${forkId}/access`);
  expect(await access.json()).toMatchObject({ relation: "owner", can_send: true });
  // the fork is B's alone: A (the install's owner, who reads every session) may not act in it
  const accessA = await servers.api.get(`/api/sessions/${forkId}/access`);
  expect(accessA.json).toMatchObject({ relation: "none", can_send: false });

  // A revokes it in the dialog: the page and the API answer "not found" from now on
  await dialog.getByRole("button", { name: /Revoke the link/ }).click();
  await expect(dialog.getByText("No open links.")).toBeVisible();
  expect((await asB("GET", `/api/links/${token}`)).status()).toBe(404);
  expect((await asB("POST", `/api/links/${token}/fork`)).status()).toBe(404);
  await pageB.goto(url.pathname);
  await expect(pageB.getByText("Link not found")).toBeVisible();
  await expect(pageB.getByText("Birches grow fast.")).toHaveCount(0);
  await pageA.close();
  await pageB.close();
});

test("a signed-out browser is sent to sign in before a link opens", async ({ browser }) => {
  await servers.script([{ blocks: [{ type: "text", text: "Only for the signed-in." }] }]);
  const id = await servers.api.createSession({}, "for the anonymous");
  await servers.api.send(id, { type: "text", text: "hello" });
  const detail = await servers.api.get(`/api/sessions/${id}`);
  const branchId = (detail.json as { active_branch_id: string }).active_branch_id;
  const made = await servers.api.post(`/api/sessions/${id}/links`, { branch_id: branchId });
  expect(made.status, made.text).toBe(201);
  const { token } = made.json as { token: string };
  const context = await browser.newContext({ baseURL: servers.url });
  const page = await context.newPage();
  await page.goto(`/share/${token}`);
  // the gate sends a page request without a person to sign in, and back here after
  await expect(page).toHaveURL(
    `${servers.url}/login?next=${encodeURIComponent(`/share/${token}`)}`,
  );
  await expect(page.getByRole("button", { name: "Fork into my sessions" })).toHaveCount(0);
  await expect(page.getByText("Only for the signed-in.")).toHaveCount(0);
  const anonymous = await servers.raw.get(`/api/links/${token}`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.text).not.toContain("Only for the signed-in.");
  await context.close();
});
