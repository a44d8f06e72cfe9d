import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentsResponseSchema,
  AuditListResponseSchema,
  ExtensionSwitches,
  SkillsResponseSchema,
} from "@arbor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as agentRoute from "@/app/api/agents/[name]/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as auditRoute from "@/app/api/audit/route";
import * as skillRoute from "@/app/api/skills/[name]/route";
import * as skillsRoute from "@/app/api/skills/route";
import { POLL_MS } from "@/lib/server/provider-keys";
import {
  createSessionId,
  jsonRequest,
  params,
  personWithToken,
  sendText,
  startTestServer,
  type TestServer,
} from "./support";

// Issue #27 case 7: skills and sub-agents switched off and on in the settings by an admin
// (decision 0057). The switch lives in the database: the next model request of a session leaves
// a switched-off skill out of its system prompt and a switched-off sub-agent out of its tools, on
// this instance and (after its poll) on another one on the same database.

let server: TestServer;
const home = mkdtempSync(join(tmpdir(), "arbor-home-"));

beforeAll(async () => {
  server = await startTestServer({ HOME: home });
  const write = (path: string, text: string) => {
    const full = join(server.workspace, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, text);
  };
  write(
    ".arbor/skills/deploy/SKILL.md",
    "---\nname: deploy\ndescription: How to deploy DEPLOY-SKILL\n---\nRun make deploy.\n",
  );
  write(
    ".arbor/agents/researcher.md",
    "---\nname: researcher\ndescription: Finds facts\n---\nYou research.\n",
  );
}, 60_000);
afterAll(() => server.close());

const patchSkill = (name: string, body: unknown, authorization?: string) => {
  const request = jsonRequest("PATCH", `/api/skills/${name}`, body);
  if (authorization) request.headers.set("authorization", authorization);
  return skillRoute.PATCH(request, params({ name }));
};
const patchAgent = (name: string, body: unknown, authorization?: string) => {
  const request = jsonRequest("PATCH", `/api/agents/${name}`, body);
  if (authorization) request.headers.set("authorization", authorization);
  return agentRoute.PATCH(request, params({ name }));
};
async function skills() {
  const response = await skillsRoute.GET(jsonRequest("GET", "/api/skills"), params({}));
  return SkillsResponseSchema.parse(await response.json()).skills;
}
async function agents() {
  const response = await agentsRoute.GET(jsonRequest("GET", "/api/agents"), params({}));
  return AgentsResponseSchema.parse(await response.json()).agents;
}
async function auditActions(): Promise<string[]> {
  const response = await auditRoute.GET(jsonRequest("GET", "/api/audit"), params({}));
  return AuditListResponseSchema.parse(await response.json()).entries.map(
    (e) => `${e.action} ${e.target}`,
  );
}

type Request = { system?: unknown; tools?: Array<{ name: string }> };
const lastRequest = () => server.llm.requests.at(-1)?.body as Request;

describe("skills and sub-agents switched in the settings", () => {
  it("are on until switched off: listed enabled, in the prompt and the tools", async () => {
    expect(await skills()).toEqual([
      expect.objectContaining({ name: "deploy", enabled: true, disabled_by: null }),
    ]);
    expect(await agents()).toEqual([
      expect.objectContaining({ name: "researcher", enabled: true, disabled_at: null }),
    ]);
    server.llm.setScript(() => ({ blocks: [{ type: "text", text: "ok" }] }));
    const id = await createSessionId();
    await sendText(id, "hello");
    expect(JSON.stringify(lastRequest().system)).toContain("DEPLOY-SKILL");
    expect(lastRequest().tools?.map((t) => t.name)).toEqual(
      expect.arrayContaining(["skill", "researcher"]),
    );
  });

  it("a member may not switch them (403); nothing changes", async () => {
    const member = await personWithToken(server.runtime, "member");
    expect((await patchSkill("deploy", { enabled: false }, member.authorization)).status).toBe(403);
    expect((await patchAgent("researcher", { enabled: false }, member.authorization)).status).toBe(
      403,
    );
    expect((await skills())[0]?.enabled).toBe(true);
  });

  it("a bad body is a 400 naming `enabled`; an unknown name a 404", async () => {
    const bad = await patchSkill("deploy", { enabled: "no" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("enabled");
    expect((await patchAgent("researcher", { enabled: false, extra: 1 })).status).toBe(400);
    expect((await patchSkill("nope", { enabled: false })).status).toBe(404);
    expect((await patchAgent("nope", { enabled: false })).status).toBe(404);
  });

  it("an admin switches them off: audited, listed off, gone from the next request", async () => {
    const admin = await personWithToken(server.runtime, "admin", { name: "Ada Admin" });
    const off = await patchSkill("deploy", { enabled: false }, admin.authorization);
    expect(off.status).toBe(200);
    expect(SkillsResponseSchema.parse(await off.json()).skills[0]).toMatchObject({
      name: "deploy",
      enabled: false,
      disabled_by: { id: admin.id, name: "Ada Admin" },
    });
    expect((await patchAgent("researcher", { enabled: false }, admin.authorization)).status).toBe(
      200,
    );
    expect((await agents())[0]).toMatchObject({ name: "researcher", enabled: false });
    const actions = await auditActions();
    expect(actions).toContain("skill_disabled skill:deploy");
    expect(actions).toContain("agent_disabled agent:researcher");

    const id = await createSessionId();
    await sendText(id, "hello again");
    const request = lastRequest();
    expect(JSON.stringify(request.system)).not.toContain("DEPLOY-SKILL");
    expect(request.tools?.map((t) => t.name)).not.toContain("researcher");
    expect(request.tools?.map((t) => t.name)).not.toContain("skill");
  });

  it("another instance on the same database follows at its next poll", async () => {
    // a second instance's switches: its own reader of the same database, polling as the runtime's
    const { ExtensionSwitchTable } = await import("@arbor/db");
    const other = new ExtensionSwitches({
      records: new ExtensionSwitchTable(server.runtime.database),
    });
    await other.refresh();
    const stop = other.poll(POLL_MS, () => {});
    try {
      expect(other.isEnabled("skill", "deploy")).toBe(false);
      expect((await patchSkill("deploy", { enabled: true })).status).toBe(200);
      expect((await patchAgent("researcher", { enabled: true })).status).toBe(200);
      const switched = Date.now();
      while (!other.isEnabled("skill", "deploy") || !other.isEnabled("agent", "researcher")) {
        expect(Date.now() - switched).toBeLessThan(POLL_MS + 1_000);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await auditActions()).toContain("skill_enabled skill:deploy");
      // and this instance's sessions offer them again
      const id = await createSessionId();
      await sendText(id, "third");
      expect(JSON.stringify(lastRequest().system)).toContain("DEPLOY-SKILL");
      expect(lastRequest().tools?.map((t) => t.name)).toContain("researcher");
    } finally {
      stop();
    }
  });
});
