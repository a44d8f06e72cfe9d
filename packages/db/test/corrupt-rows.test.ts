import { everyMessageType, sampleSession } from "@arbor/core/store-contract-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { type CreatedStore, createStore } from "../src/create-store.js";
import { pgAvailable, testDatabases } from "./stores.js";

// Bad data: a row whose payload does not parse for its type is reported with its session and row
// id (and the field), is left out, and everything else in the session still loads. Storage is
// never rewritten by a load.

async function seeded(created: CreatedStore) {
  const { session, branch } = sampleSession("s1");
  await created.store.createSession(session, branch);
  const messages = everyMessageType("s1");
  await created.store.write("s1", {
    messages,
    branch_appends: [{ branch_id: branch.id, message_ids: messages.map((m) => m.id) }],
  });
  return { branch, messages };
}

function sql(created: CreatedStore, text: string): Promise<number> {
  return created.db.client.$executeRawUnsafe(text);
}

for (const provider of ["sqlite", "postgresql"] as const) {
  describe.skipIf(provider === "postgresql" && !pgAvailable())(`corrupt rows (${provider})`, () => {
    const databases = testDatabases(provider);
    afterAll(() => databases.dispose());

    it("a message whose payload is not JSON is reported; the rest loads; storage keeps it", async () => {
      const created = await databases.store();
      const { branch, messages } = await seeded(created);
      await sql(created, "UPDATE messages SET payload = '{not json' WHERE id = 'm-file'");
      const loaded = await created.store.loadSession("s1");
      expect(loaded!.corrupt).toEqual([
        {
          session_id: "s1",
          table: "message",
          row_id: "m-file",
          error: expect.stringContaining("payload is not JSON"),
        },
      ]);
      const expected = messages.filter((m) => m.id !== "m-file");
      expect(loaded!.messages).toEqual(expected);
      expect(loaded!.branches[0]!.message_ids).toEqual(expected.map((m) => m.id));
      const stored = await created.db.client.branchMessage.count({
        where: { sessionId: "s1", branchId: branch.id },
      });
      expect(stored).toBe(messages.length);
    });

    it("a payload that does not parse for its type names the field; a type mismatch is corrupt", async () => {
      const created = await databases.store();
      await seeded(created);
      // a tool_result without its tool_call_id
      await sql(
        created,
        `UPDATE messages SET payload = '{"message_type":"tool_result","request_id":"m-request","tool_name":"read_file","content":[],"status":"success"}' WHERE id = 'm-result'`,
      );
      // the row says plan, the payload says text
      await sql(created, `UPDATE messages SET type = 'plan' WHERE id = 'm-text'`);
      const loaded = await created.store.loadSession("s1");
      const byId = new Map(loaded!.corrupt.map((row) => [row.row_id, row]));
      expect(byId.get("m-result")).toMatchObject({ session_id: "s1", table: "message" });
      expect(byId.get("m-result")!.error).toContain("tool_call_id");
      expect(byId.get("m-text")!.error).toContain("message_type");
      expect(loaded!.messages.map((m) => m.id)).toEqual([
        "m-file",
        "m-request",
        "m-mcp",
        "m-attachment",
        "m-system",
        "m-plan",
        "m-question",
      ]);
    });

    it("corrupt branch and view rows are reported and left out; a corrupt session row is invalid", async () => {
      const created = await databases.store();
      const { branch } = await seeded(created);
      await created.store.write("s1", {
        branches: [{ ...branch, id: "fork", name: "fork", message_ids: ["m-text"] }],
        optimization_views: [
          {
            id: "v1",
            session_id: "s1",
            branch_id: branch.id,
            created_at: "2025-01-01T00:00:00.000Z",
            strategy: "recent_n",
            tokens_before: 10,
            tokens_after: 5,
            messages_before: 8,
            messages_after: 4,
            summaries: [],
            dropped: ["m-text"],
          },
        ],
      });
      await sql(created, `UPDATE branches SET merged_from = '[{"branch_id":1}]' WHERE id = 'fork'`);
      await sql(created, `UPDATE optimization_views SET dropped = 'nope' WHERE id = 'v1'`);
      const loaded = await created.store.loadSession("s1");
      expect(loaded!.branches.map((b) => b.id)).toEqual([branch.id]);
      expect(loaded!.optimization_views).toEqual([]);
      expect(loaded!.corrupt.map((row) => [row.table, row.row_id])).toEqual([
        ["branch", "fork"],
        ["optimization_view", "v1"],
      ]);
      expect(loaded!.corrupt[0]!.error).toContain("merged_from");
      expect(loaded!.messages).toHaveLength(everyMessageType("s1").length);

      await sql(created, `UPDATE sessions SET state = '{"type":"NoSuchState"}' WHERE id = 's1'`);
      await expect(created.store.loadSession("s1")).rejects.toMatchObject({
        name: "StoreError",
        code: "invalid",
      });
      // still listed, as failed, so it can be seen and deleted
      const [listed] = await created.store.listSessions();
      expect(listed).toMatchObject({ id: "s1", state: { type: "Failed", recoverable: false } });
      await created.store.deleteSession("s1");
      expect(await created.store.listSessions()).toEqual([]);
    });

    it("an old-format row loads through the legacy conversion and is not corrupt", async () => {
      const created = await databases.store();
      const { session, branch } = sampleSession("old");
      await created.store.createSession(session, branch);
      const rows = [
        { id: "u1", role: "user", content: "read a.ts", timestamp: 1_700_000_000_000 },
        {
          id: "a1",
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }],
        },
        { id: "t1", role: "tool", tool_call_id: "c1", content: "body" },
      ];
      for (const [i, row] of rows.entries()) {
        await created.db.client.message.create({
          data: {
            sessionId: "old",
            id: row.id,
            position: i + 1,
            role: row.role,
            type: "legacy",
            payload: JSON.stringify(row),
            status: "complete",
            createdAt: "2024-01-01T00:00:00.000Z",
          },
        });
      }
      const loaded = await created.store.loadSession("old");
      expect(loaded!.corrupt).toEqual([]);
      expect(loaded!.messages.map((m) => m.body.message_type)).toEqual([
        "text",
        "tool_request",
        "tool_result",
      ]);
    });

    it("a corrupt loop record is left out of listLoops and logged", async () => {
      const warnings: Array<Record<string, unknown> | undefined> = [];
      const logged = await createStore({
        databaseUrl: await databases.fresh(),
        skipMigrations: true,
        logger: { warn: (_message, details) => warnings.push(details) },
      });
      try {
        const base = {
          sessionId: "s",
          agentId: "a",
          status: "running" as const,
          startedAt: 1,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
          turns: 0,
          messages: [],
          childLoopIds: [],
          childLoopRefs: [],
        };
        await logged.store.upsertLoop({ ...base, loopId: "l1" });
        await logged.store.upsertLoop({ ...base, loopId: "l2" });
        await sql(
          logged,
          `UPDATE loop_records SET record = '{"loopId":"l2"}' WHERE loop_id = 'l2'`,
        );
        expect((await logged.store.listLoops("s")).map((l) => l.loopId)).toEqual(["l1"]);
        expect(warnings).toEqual([
          expect.objectContaining({ session_id: "s", table: "loop", row_id: "l2" }),
        ]);
      } finally {
        await logged.close();
      }
    });
  });
}
