import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { estimateInputTokens } from "@arbor/core/testing";
import { expect, test } from "@playwright/test";
import { type FakeRequest, type FakeTurn, Servers, summary } from "./harness.js";

// Issue #26 finding 4 over HTTP against the production build: a sub-agent whose own conversation
// outgrows the model's context window recovers as the session's run does, instead of failing.
// The fake LLM server (its own process) refuses a request larger than its window with Anthropic's
// own "prompt is too long: N tokens > M maximum" (POST /__fake/context-window); the sub-agent,
// defined by an agent file in the workspace, reads six pages of a log through read_file, which
// together are half again the window. On main the child got the 400 and answered
// "(sub-agent failed: prompt is too long …)".

let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
  mkdirSync(join(servers.workspace, ".arbor", "agents"), { recursive: true });
  writeFileSync(
    join(servers.workspace, ".arbor", "agents", "researcher.md"),
    "---\nname: researcher\ndescription: Reads logs\ntools: Read\n---\nYou research logs.\n",
  );
});

test.afterAll(async () => {
  await servers?.close();
});

const READS = 6;

async function setContextWindow(tokens: number | null): Promise<void> {
  const response = await fetch(`${servers.fake.url}/__fake/context-window`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tokens }),
  });
  expect(response.status).toBe(200);
}

function systemText(request: FakeRequest): string {
  const system = (request.body as { system?: unknown }).system;
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return "";
  return system.map((b) => (b as { text?: string }).text ?? "").join("\n");
}

const isChild = (r: FakeRequest) => systemText(r).startsWith("You research logs.");

/** A page of the log of about `tokens` tokens, as lines. */
function logPage(part: number, tokens: number): string {
  const line = (i: number) =>
    `${part}.${i} the service logged a routine heartbeat, nothing to report`;
  return Array.from({ length: Math.ceil((tokens * 4) / line(0).length) }, (_, i) => line(i)).join(
    "\n",
  );
}

test("a sub-agent that reads past the model's window is optimized and answers", async () => {
  const api = servers.api;
  await servers.resetFake();
  const id = await api.createSession({ approval_policy: { type: "auto_approve_all" } });

  // the parent's own request (the app's system prompt and every tool) must fit the window: it
  // is measured first, and the window set above it
  await servers.script([{ blocks: [{ type: "text", text: "Hello." }] }]);
  await api.send(id, { type: "text", text: "hello" });
  const parent = await servers.fakeRequests();
  const window = estimateInputTokens(parent.at(-1)?.body) + 2_000;
  const pageTokens = Math.ceil(window / 4);
  for (let part = 0; part < READS; part++) {
    writeFileSync(join(servers.workspace, `log-${part}.txt`), logPage(part, pageTokens));
  }
  await servers.resetFake();
  await setContextWindow(window);

  // requests arrive as: parent, child × (READS + 1), parent; a refused one takes no turn
  const turns: FakeTurn[] = [
    { blocks: [{ type: "toolCall", name: "researcher", arguments: { task: "Read the log." } }] },
    ...Array.from(
      { length: READS },
      (_, part): FakeTurn => ({
        blocks: [{ type: "toolCall", name: "read_file", arguments: { path: `log-${part}.txt` } }],
      }),
    ),
    { blocks: [{ type: "text", text: "The log holds only heartbeats." }] },
    { blocks: [{ type: "text", text: "Only heartbeats, says the researcher." }] },
  ];
  await servers.script(turns);
  const events = await api.send(id, { type: "text", text: "What is in the log?" });

  const updates = events
    .filter((e) => e.event === "subagent_update")
    .map((e) => e.data as { kind: string; status?: string });
  expect(
    updates.filter((u) => u.kind === "ended"),
    summary(events),
  ).toMatchObject([{ status: "completed" }]);
  const result = (await api.messages(id)).find(
    (m) => m.body.message_type === "tool_result" && m.body.tool_name === "researcher",
  );
  expect(result?.body).toMatchObject({
    status: "success",
    content: [{ type: "text", text: "The log holds only heartbeats." }],
  });
  expect((await api.state(id)).type).toBe("Idle");

  // the provider refused the child at least once; each refusal was followed by a request that fit
  const child = (await servers.fakeRequests()).filter(isChild);
  const tokens = child.map((r) => estimateInputTokens(r.body));
  const refused = tokens.flatMap((t, i) => (t > window ? [i] : []));
  expect(
    refused.length,
    `child request sizes ${tokens.join(", ")}; window ${window}`,
  ).toBeGreaterThan(0);
  for (const i of refused) expect(tokens[i + 1]).toBeLessThanOrEqual(window);
  // every page was read: the child's requests carried all six
  expect(child.filter((r) => tokens[child.indexOf(r)]! <= window)).toHaveLength(READS + 1);
});
