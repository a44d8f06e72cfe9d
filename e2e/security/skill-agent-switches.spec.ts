import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { errorEvents, type FakeRequest, Servers, summary } from "./harness.js";

// Issue #27 case 7 in Chromium (decision 0057): an admin switches a skill and a sub-agent off in
// Session settings; the next model request (the scripted fake LLM) lists neither: the skill is
// not in the system prompt's <available_skills> and there is no `skill` tool, the sub-agent is
// not a tool. The switch is kept in the database and audited. A member sees the state, no switch.

let servers: Servers;
let admin: BrowserContext;
let member: BrowserContext;
let memberClient: Awaited<ReturnType<Servers["invite"]>>["client"];

const SKILL_MARK = "DEPLOY-SKILL-e2e";

async function browserAs(browser: Browser, cookie: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: servers.url });
  const [name, ...value] = cookie.split("=");
  await context.addCookies([{ name: name ?? "", value: value.join("="), url: servers.url }]);
  return context;
}

test.beforeAll(async ({ browser }) => {
  servers = await Servers.start();
  const write = (path: string, text: string) => {
    const full = join(servers.workspace, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, text);
  };
  write(
    ".arbor/skills/deploy/SKILL.md",
    `---\nname: deploy\ndescription: How to deploy ${SKILL_MARK}\n---\nRun make deploy.\n`,
  );
  write(
    ".arbor/agents/researcher.md",
    "---\nname: researcher\ndescription: Finds facts RESEARCHER-e2e\n---\nYou research.\n",
  );
  const ada = await servers.invite("admin", "Ada Admin");
  admin = await browserAs(browser, ada.cookie);
  const mo = await servers.invite("member", "Mo Member");
  member = await browserAs(browser, mo.cookie);
  memberClient = mo.client;
});

test.afterAll(async () => {
  await admin?.close();
  await member?.close();
  await servers?.close();
});

/** The last request to the model, as the fake LLM recorded it. */
async function lastModelRequest(): Promise<{ system: string; tools: string[] }> {
  const requests: FakeRequest[] = await servers.fakeRequests();
  const last = requests.filter((r) => r.protocol === "anthropic-messages").at(-1);
  const body = last?.body as { system?: unknown; tools?: Array<{ name: string }> } | undefined;
  return {
    system: JSON.stringify(body?.system ?? ""),
    tools: (body?.tools ?? []).map((t) => t.name),
  };
}

async function askOnce(text: string): Promise<void> {
  await servers.script([{ blocks: [{ type: "text", text: "ok" }] }]);
  const id = await servers.api.createSession({});
  const events = await servers.api.send(id, { type: "text", text });
  expect(errorEvents(events), summary(events)).toEqual([]);
}

async function openSettings(page: Page, sessionId: string) {
  await page.goto(`/sessions/${sessionId}`);
  await page.getByRole("button", { name: "Session settings" }).click();
  return page.getByRole("dialog", { name: "Session settings" });
}

test("an admin switches a skill and a sub-agent off in Settings: the next model request lists neither", async () => {
  // on at first: both reach the model
  await askOnce("before");
  const before = await lastModelRequest();
  expect(before.system).toContain(SKILL_MARK);
  expect(before.tools).toEqual(expect.arrayContaining(["skill", "researcher"]));

  const page = await admin.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const id = await servers.api.createSession({}, "switches");
  const dialog = await openSettings(page, id);
  const skillSwitch = dialog.getByRole("switch", { name: "Use skill deploy" });
  const agentSwitch = dialog.getByRole("switch", { name: "Use sub-agent researcher" });
  await expect(skillSwitch).toBeChecked();
  await expect(agentSwitch).toBeChecked();
  await skillSwitch.click();
  await expect(skillSwitch).not.toBeChecked();
  await expect(dialog.getByTestId("skill")).toContainText("Switched off by Ada Admin");
  await agentSwitch.click();
  await expect(agentSwitch).not.toBeChecked();
  await expect(dialog.getByTestId("agent-off")).toHaveText("Off");
  // kept by the server, not the page: a reload shows them off
  await page.reload();
  await page.getByRole("button", { name: "Session settings" }).click();
  await expect(
    page
      .getByRole("dialog", { name: "Session settings" })
      .getByRole("switch", { name: "Use skill deploy" }),
  ).not.toBeChecked();

  await askOnce("after");
  const after = await lastModelRequest();
  expect(after.system).not.toContain(SKILL_MARK);
  expect(after.system).not.toContain("<available_skills>");
  expect(after.tools).not.toContain("researcher");
  expect(after.tools).not.toContain("skill");

  const audit = await servers.api.get("/api/audit");
  expect(audit.text).toContain("skill_disabled");
  expect(audit.text).toContain("skill:deploy");
  expect(audit.text).toContain("agent_disabled");
  expect(audit.text).toContain("agent:researcher");
  await page.close();
});

test("a member sees which are off, with no switch, and the route refuses them", async () => {
  const created = await memberClient.post("/api/sessions", {});
  expect(created.status, created.text).toBe(201);
  const { session_id: id } = created.json as { session_id: string };
  const page = await member.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const dialog = await openSettings(page, id);
  await expect(dialog.getByTestId("skill")).toContainText("deploy");
  await expect(dialog.getByTestId("skill-off")).toHaveText("Off");
  await expect(dialog.getByTestId("agent")).toContainText("researcher");
  await expect(dialog.getByRole("switch")).toHaveCount(0);
  const refused = await memberClient.patch("/api/skills/deploy", { enabled: true });
  expect(refused.status).toBe(403);
  await page.close();
});
