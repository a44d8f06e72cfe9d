import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { Servers } from "./harness.js";

// Issue #26 findings 7 and 9, against the production build: an ask-N-ways judge after a restart
// keeps the earlier judge's loop record; the session list counts a user message whose
// client_metadata has a key named fold_id; a cancelled sub-agent's usage is in the session's; a
// sub-agent named like a built-in tool is listed as a problem, not dropped silently.

let servers: Servers;
let workspace: string;

test.beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "arbor-e2e-loops-"));
  mkdirSync(join(workspace, ".arbor", "agents"), { recursive: true });
  writeFileSync(
    join(workspace, ".arbor", "agents", "researcher.md"),
    "---\nname: researcher\ndescription: Finds facts\ntools: list_files, write_file\n---\nYou research.\n",
  );
  writeFileSync(
    join(workspace, ".arbor", "agents", "bash.md"),
    "---\nname: bash\ndescription: My shell helper\n---\nYou run things.\n",
  );
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-loops-data-"));
  servers = await Servers.start({ dirs: { workspace, dataDir } });
});
test.afterAll(async () => {
  await servers?.close();
});

const say = (text: string, usage?: { input: number; output: number }) => ({
  blocks: [{ type: "text" as const, text }],
  ...(usage !== undefined ? { usage } : {}),
});

/** The judge loops' ids and start times in the admin loop tree of `id`. */
async function judgeLoops(id: string): Promise<Array<[string, unknown]>> {
  const tree = await servers.api.get(`/api/admin/sessions/${id}/loops`);
  expect(tree.status).toBe(200);
  const found: Array<[string, unknown]> = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record.loop_id === "string" && record.loop_id.includes(".judge-")) {
        found.push([record.loop_id, record.started_at]);
      }
      Object.values(record).forEach(visit);
    }
  };
  visit(tree.json);
  return [...new Map(found).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

test("finding 7: a judge after a restart gets a loop id of its own; the earlier judge's record stays", async () => {
  const api = servers.api;
  const id = await api.createSession({}, "ask two ways");
  const ask = async () => {
    await servers.script([say("four"), say("4"), say("1. The clearest.")]);
    const events = await api.events(`/api/sessions/${id}/messages/parallel`, {
      session_id: id,
      payload: { type: "text", text: "What is 2+2?" },
      candidates: [{ label: "A" }, { label: "B" }],
      judge: { strategy: "llm_judge" },
    });
    expect(events.find((e) => e.event === "parallel_verdict")?.data).toMatchObject({
      strategy: "llm_judge",
    });
  };
  await ask();
  const before = await judgeLoops(id);
  expect(before).toHaveLength(1);

  await servers.app.kill();
  await servers.startApp();
  await ask();
  const after = await judgeLoops(id);
  expect(after).toHaveLength(2);
  expect(after[0]).toEqual(before[0]);
  expect(after[1]?.[0]).not.toBe(before[0]?.[0]);
});

test("finding 9: the session list counts a user message whose client_metadata has a key named fold_id", async () => {
  const api = servers.api;
  const id = await api.createSession({}, "tagged");
  await servers.script([say("hello")]);
  await api.send(id, { type: "text", text: "hi" }, { client_metadata: { fold_id: "folder-7" } });
  expect((await api.waitForState(id, (s) => s.type === "Idle")).type).toBe("Idle");
  const listed = (await api.get("/api/sessions")).json as Array<{
    id: string;
    message_count: number;
  }>;
  expect(listed.find((s) => s.id === id)?.message_count).toBe(2);
});

test("finding 9: a cancelled sub-agent's usage is added to the session's", async () => {
  const api = servers.api;
  const id = await api.createSession(
    { approval_policy: { type: "white_list", tools: ["researcher", "list_files"] } },
    "cancelled child",
  );
  await servers.resetFake();
  await servers.script([
    // the parent calls the sub-agent
    {
      blocks: [
        { type: "toolCall", id: "toolu_r", name: "researcher", arguments: { task: "look" } },
      ],
      usage: { input: 10, output: 1 },
    },
    // the child lists files, then streams a long answer the person interrupts
    {
      blocks: [{ type: "toolCall", id: "toolu_l", name: "list_files", arguments: {} }],
      usage: { input: 100, output: 10 },
    },
    { ...say("x".repeat(4000), { input: 200, output: 20 }), chunkSize: 1, chunkDelayMs: 10 },
  ]);
  const sent = api.send(id, { type: "text", text: "research" });
  await expect.poll(async () => (await servers.fakeRequests()).length, { timeout: 30_000 }).toBe(3);
  const interrupted = await api.post(`/api/sessions/${id}/interrupt`, {});
  expect(interrupted.status).toBeLessThan(300);
  await sent;
  await api.waitForState(id, (s) => s.type === "Paused" || s.type === "Idle");
  const messages = await api.messages(id);
  const result = messages.find(
    (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
  );
  expect(result?.body).toMatchObject({ status: "cancelled" });
  const listed = (await api.get("/api/sessions")).json as Array<{
    id: string;
    usage: { input: number; output: number };
  }>;
  // the parent's 10 + the child's finished response's 100 (the cut one may add its own)
  const usage = listed.find((s) => s.id === id)?.usage;
  expect(usage?.input).toBeGreaterThanOrEqual(110);
  expect(usage?.output).toBeGreaterThanOrEqual(11);
});

test("finding 9: a sub-agent named like a built-in tool is listed as a problem naming the tool", async () => {
  const listed = (await servers.api.get("/api/agents")).json as {
    agents: Array<{ name: string }>;
    problems: Array<{ path: string; reason: string }>;
  };
  expect(listed.agents.map((a) => a.name)).toEqual(["researcher"]);
  expect(listed.problems).toEqual([
    {
      path: join(workspace, ".arbor", "agents", "bash.md"),
      source: "arbor",
      reason: expect.stringContaining('the name "bash" is taken by the built-in tool bash'),
    },
  ]);
});
