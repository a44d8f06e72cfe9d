import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { Servers } from "./harness.js";

// Issue #27 case 7, who may change the install's MCP servers (authorize(): install.configure,
// docs/accounts.md): in Session settings a member sees the servers listed (an admin added one),
// with who added it, but no "Add an MCP server" form, no Enabled switch, no Remove and no
// Reconnect; the owner, as a control, sees all four. Over the API a member's add, switch, removal
// and reconnect are refused 403 and change nothing; the listing names who added the server.

let servers: Servers;
let owner: BrowserContext;
let member: Awaited<ReturnType<Servers["invite"]>>;
let admin: Awaited<ReturnType<Servers["invite"]>>;
let memberBrowser: BrowserContext;
const NAME = "team-docs";

async function signedIn(browser: Browser, cookie: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: servers.url });
  const [name, ...value] = cookie.split("=");
  await context.addCookies([{ name: name ?? "", value: value.join("="), url: servers.url }]);
  return context;
}

test.beforeAll(async ({ browser }) => {
  servers = await Servers.start();
  // an admin's server: a remote one that is not there (it fails to connect, and is still listed)
  admin = await servers.invite("admin", "Ada Admin");
  const added = await admin.client.post("/api/mcp/servers", {
    name: NAME,
    url: "http://127.0.0.1:9/mcp",
  });
  expect(added.status, added.text).toBe(201);
  owner = await signedIn(browser, await servers.ownerCookie());
  member = await servers.invite("member", "Mia Member");
  memberBrowser = await signedIn(browser, member.cookie);
});

test.afterAll(async () => {
  await owner?.close();
  await memberBrowser?.close();
  await servers?.close();
});

/** Opens a new session of the context's person and its Session settings' MCP section. */
async function mcpSection(context: BrowserContext, client: Servers["api"]) {
  const id = await client.createSession({}, "mcp roles");
  const page: Page = await context.newPage();
  await page.goto(`/sessions/${id}`);
  await page.getByRole("button", { name: "Session settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Session settings" });
  const section = dialog.getByRole("region", { name: "MCP servers" });
  const item = section.getByTestId("mcp-server").filter({ hasText: NAME });
  await expect(item).toBeVisible();
  return { page, section, item };
}

test("a member sees the MCP servers but no add form, no switch and no Remove; the owner sees them", async () => {
  const asOwner = await mcpSection(owner, servers.api);
  await expect(asOwner.section.getByRole("group", { name: "Add an MCP server" })).toBeVisible();
  await expect(asOwner.item.getByRole("checkbox", { name: `Enabled ${NAME}` })).toBeVisible();
  await expect(asOwner.item.getByRole("button", { name: `Remove ${NAME}` })).toBeVisible();
  await expect(asOwner.item.getByRole("button", { name: `Reconnect ${NAME}` })).toBeVisible();
  await expect(asOwner.item.getByTestId("mcp-added")).toHaveText("added by Ada Admin");
  await asOwner.page.close();

  const asMember = await mcpSection(memberBrowser, member.client);
  await expect(asMember.item).toContainText(NAME);
  await expect(asMember.section.getByRole("group", { name: "Add an MCP server" })).toHaveCount(0);
  await expect(asMember.section.getByRole("textbox", { name: "Server name" })).toHaveCount(0);
  await expect(asMember.section.getByRole("checkbox")).toHaveCount(0);
  await expect(asMember.section.getByRole("button", { name: `Remove ${NAME}` })).toHaveCount(0);
  // the route would answer 403: no button to press
  await expect(asMember.section.getByRole("button", { name: `Reconnect ${NAME}` })).toHaveCount(0);
  await expect(asMember.section.getByRole("button")).toHaveCount(0);
  await expect(asMember.item.getByTestId("mcp-added")).toHaveText("added by Ada Admin");
  await asMember.page.close();
});

test("a member's add, switch, removal and reconnect are refused 403 and change nothing", async () => {
  const listed = await member.client.get("/api/mcp/servers");
  expect(listed.status).toBe(200);
  const add = await member.client.post("/api/mcp/servers", {
    name: "mine",
    command: "node",
    args: ["-e", "0"],
  });
  expect(add.status, add.text).toBe(403);
  const off = await member.client.patch(`/api/mcp/servers/${NAME}`, { enabled: false });
  expect(off.status, off.text).toBe(403);
  const remove = await member.client.delete(`/api/mcp/servers/${NAME}`);
  expect(remove.status, remove.text).toBe(403);
  const reconnect = await member.client.post(`/api/mcp/servers/${NAME}/reconnect`);
  expect(reconnect.status, reconnect.text).toBe(403);

  const after = (await servers.api.get("/api/mcp/servers")).json as {
    servers: Array<{ name: string; status: string; managed?: boolean }>;
  };
  expect(after.servers.map((s) => s.name)).toEqual([NAME]);
  expect(after.servers[0]).toMatchObject({
    managed: true,
    added_by: { id: admin.id, name: "Ada Admin" },
  });
  expect(after.servers[0]?.status).not.toBe("disabled");
  const audit = (await servers.api.get("/api/audit")).json as {
    entries: Array<{ action: string; actor_id: string | null }>;
  };
  const changes = audit.entries.filter((e) => e.action.startsWith("mcp_server_"));
  expect(changes.map((e) => e.action)).toEqual(["mcp_server_added"]);
  expect(changes.some((e) => e.actor_id === member.id)).toBe(false);
});
