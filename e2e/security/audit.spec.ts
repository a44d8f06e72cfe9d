import { join } from "node:path";
import { openDatabase, parseDatabaseUrl } from "@arbor/db";
import { expect, test } from "@playwright/test";
import { Servers, statesOf, summary, toolCalls } from "./harness.js";

// Issue #25, the audit log over HTTP against the production build: a tool call approved through
// POST /api/sessions/{id}/approvals is a tool_approved row of GET /api/audit; the chain verifies;
// a row edited directly in the app's SQLite file (as someone with the file would) makes
// GET /api/audit/verify answer ok: false at that row.

let servers: Servers;

test.beforeAll(async () => {
  servers = await Servers.start();
});

test.afterAll(async () => {
  await servers?.close();
});

interface Entry {
  sequence: number;
  action: string;
  target: string;
  actor_id: string | null;
  detail: Record<string, unknown>;
}

test("an approval is audited; a row edited in the database breaks the chain at that row", async () => {
  const api = servers.api;
  await servers.resetFake();
  await servers.script([
    { blocks: [{ type: "toolCall", name: "list_files", arguments: {} }] },
    { blocks: [{ type: "text", text: "Listed." }] },
  ]);
  const id = await api.createSession({
    approval_policy: { type: "manual" },
    approve_read_only: false,
  });
  const asked = await api.send(id, { type: "text", text: "what is here?" });
  expect(statesOf(asked).at(-1), summary(asked)).toBe("AwaitingToolApproval");
  const [call] = toolCalls(await api.messages(id));
  expect(call?.name).toBe("list_files");

  const decided = await api.events(`/api/sessions/${id}/approvals`, {
    decisions: [{ tool_call_id: call?.id ?? "", decision: "approve" }],
  });
  expect(statesOf(decided).at(-1), summary(decided)).toBe("Idle");

  const listed = await api.get("/api/audit?action=tool_approved");
  expect(listed.status, listed.text).toBe(200);
  const { entries, next_cursor } = listed.json as { entries: Entry[]; next_cursor: null };
  expect(next_cursor).toBeNull();
  expect(entries).toEqual([
    expect.objectContaining({
      action: "tool_approved",
      target: `session:${id}`,
      actor_id: "owner",
      detail: { tool_call_id: call?.id, tool: "list_files" },
    }),
  ]);
  const row = entries[0]!;
  const intact = await api.get("/api/audit/verify");
  expect(intact.json).toMatchObject({ ok: true });

  // the app's own SQLite file, written as anyone holding it could (the app keeps running)
  const db = await openDatabase(parseDatabaseUrl(`file:${join(servers.dataDir, "arbor.db")}`));
  try {
    const changed = await db.client.$executeRawUnsafe(
      `UPDATE audit_log SET detail = '{"tool":"list_files","tool_call_id":"forged"}' WHERE sequence = ${row.sequence}`,
    );
    expect(changed).toBe(1);
  } finally {
    await db.close();
  }

  const broken = await api.get("/api/audit/verify");
  expect(broken.status).toBe(200);
  expect(broken.json).toMatchObject({
    ok: false,
    first_bad: { sequence: row.sequence, reason: "hash_mismatch" },
  });
});

test("the audit routes need the credential, and a bad query answers 400 naming the parameter", async () => {
  for (const path of ["/api/audit", "/api/audit/verify"]) {
    const anonymous = await servers.raw.get(path);
    expect(anonymous.status, path).toBe(401);
  }
  const bad = await servers.api.get("/api/audit?limit=100000");
  expect(bad.status).toBe(400);
  expect(bad.json).toMatchObject({ error: "invalid_request", fields: [{ field: "limit" }] });
});
