import type { ContextMessage } from "@arbor/core";
import { sampleSession, textMessage } from "@arbor/core/store-contract-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../src/create-store.js";
import { testDatabases } from "./stores.js";

// The SQLite direct write path (src/sqlite-direct.ts, docs/decisions/0020). The store contract
// (contract.test.ts) runs through it for every write shape it takes; these tests pin what the
// contract cannot see: that it is in use, that it never writes inside an open Prisma transaction,
// and that writes queued behind one share a commit while each fails alone.

const databases = testDatabases("sqlite");
afterAll(() => databases.dispose());

const quiet = { warn: () => {} };

async function openStore(
  options: { direct?: boolean; groupCommit?: boolean; now?: () => Date } = {},
) {
  const created = await createStore({
    databaseUrl: await databases.fresh(),
    skipMigrations: true,
    logger: quiet,
    ...options,
  });
  for (const id of ["a", "b", "c"]) {
    const { session, branch } = sampleSession(id);
    await created.store.createSession(session, branch);
  }
  return created;
}

const delta = (k: number) => ({ name: "content_delta", payload: { k, sequence: 0 } });

describe("SQLite direct writes", () => {
  it("stores the streaming writes directly, on the adapter's connection", async () => {
    const { store, db, close } = await openStore();
    try {
      const direct = db.direct;
      expect(direct).toBeDefined();
      const before = direct?.stats.writes ?? 0;
      const message = textMessage("a", "m1");
      await store.write("a", {
        session: { state: { type: "StreamingLLMResponse", chunks: 1, chars: 3 } },
        messages: [message],
        branch_appends: [{ branch_id: "a-main", message_ids: [message.id] }],
        events: [delta(1), delta(2)],
      });
      expect(direct?.stats.writes).toBe(before + 1);
      // Prisma reads what the direct path wrote
      const loaded = await store.loadSession("a");
      expect(loaded?.session.state).toEqual({ type: "StreamingLLMResponse", chunks: 1, chars: 3 });
      expect(loaded?.branches[0]?.message_ids).toEqual(["m1"]);
      const events = await store.readEvents("a", 0);
      expect(events.map((e) => [e.sequence, e.payload])).toEqual([
        [1, { k: 1, sequence: 1 }],
        [2, { k: 2, sequence: 2 }],
      ]);
      // a lifecycle update is not a direct write: Prisma stores it
      await store.write("a", { message_updates: [{ id: "m1", status: "complete" }] });
      expect(direct?.stats.writes).toBe(before + 1);
    } finally {
      await close();
    }
  });

  it("creates and rewrites branches directly, as Prisma stores them (decision 0084)", async () => {
    const at = "2025-01-02T00:00:00.000Z";
    const branch = (id: string, ids: string[], extra: object = {}) => ({
      id,
      session_id: "a",
      name: id,
      parent_branch_id: "a-main",
      fork_message_id: "m1",
      message_ids: ids,
      merged_from: [],
      created_at: at,
      updated_at: at,
      ...extra,
    });
    const loaded: unknown[] = [];
    for (const direct of [true, false]) {
      const { store, db, close } = await openStore({ direct, now: () => new Date(at) });
      try {
        const before = db.direct?.stats.writes ?? 0;
        const [m1, m2, m3, m4] = ["m1", "m2", "m3", "m4"].map((id) => textMessage("a", id));
        await store.write("a", {
          messages: [m1 as ContextMessage],
          branch_appends: [{ branch_id: "a-main", message_ids: ["m1"] }],
        });
        // ask N ways' verdict: answers on the active branch and on new branches forked after m1,
        // one of which gets an append in the same write
        await store.write("a", {
          session: { state: { type: "Idle" } },
          messages: [m2, m3, m4] as ContextMessage[],
          branches: [
            branch("b1", ["m1", "m3"]),
            branch("b2", ["m1", "m4"], { system_prompt: "x" }),
          ],
          branch_appends: [
            { branch_id: "a-main", message_ids: ["m2"] },
            { branch_id: "b2", message_ids: ["m3"] },
          ],
          events: [delta(1), delta(2)],
        });
        // an existing branch written again: its fields and entries replaced, its order kept
        await store.write("a", {
          branches: [branch("b1", ["m1", "m2", "m4"], { name: "renamed", system_prompt: "y" })],
        });
        if (direct) expect(db.direct?.stats.writes).toBe(before + 3);
        // a branch naming a message not in the pool: refused whole, nothing of it stored
        await expect(
          store.write("a", { branches: [branch("b3", ["m1", "nope"])], events: [delta(3)] }),
        ).rejects.toMatchObject({ code: "not_found" });
        const session = await store.loadSession("a");
        loaded.push({
          branches: session?.branches,
          events: (await store.readEvents("a", 0)).map((e) => [e.sequence, e.name]),
        });
        // an append after the rewrite continues its positions
        await store.write("a", { branch_appends: [{ branch_id: "b1", message_ids: ["m3"] }] });
        const again = await store.loadSession("a");
        expect(again?.branches.find((b) => b.id === "b1")?.message_ids).toEqual([
          "m1",
          "m2",
          "m4",
          "m3",
        ]);
      } finally {
        await close();
      }
    }
    expect(loaded[0]).toEqual(loaded[1]);
    const [first] = loaded as Array<{ branches: Array<{ id: string; message_ids: string[] }> }>;
    expect(first?.branches.map((b) => [b.id, b.message_ids])).toEqual([
      ["a-main", ["m1", "m2"]],
      ["b1", ["m1", "m2", "m4"]],
      ["b2", ["m1", "m4", "m3"]],
    ]);
  });

  it("waits for an open Prisma transaction, then stores the queued writes in one commit", async () => {
    const { store, db, close } = await openStore();
    try {
      const direct = db.direct;
      if (direct === undefined) throw new Error("no direct path");
      let inside: () => void = () => {};
      const entered = new Promise<void>((resolve) => {
        inside = resolve;
      });
      let finish: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        finish = resolve;
      });
      // a Prisma transaction that writes, stays open across awaits, then rolls back
      const prismaTx = db
        .writeTransaction(async (tx) => {
          await tx.session.update({ where: { id: "c" }, data: { title: "rolled back" } });
          inside();
          await held;
          throw new Error("roll back");
        })
        .catch((error: Error) => error.message);
      await entered;
      const transactions = direct.stats.transactions;
      const writes = [
        store.write("a", { events: [delta(1)] }),
        store.write("b", { events: [delta(1), delta(2)] }),
        // fails alone: its savepoint is rolled back, the others commit
        store.write("missing", { events: [delta(1)] }).catch((error: Error) => error.message),
      ];
      // nothing direct ran inside the open transaction
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(direct.stats.transactions).toBe(transactions);
      finish();
      expect(await prismaTx).toBe("roll back");
      const [a, b, missing] = await Promise.all(writes);
      expect(missing).toMatch(/session missing not found/);
      expect(direct.stats.transactions).toBe(transactions + 1);
      expect((a as { events: unknown[] }).events).toHaveLength(1);
      expect((b as { events: unknown[] }).events).toHaveLength(2);
      // the queued writes survived the Prisma transaction's rollback, and it kept nothing
      expect((await store.readEvents("a", 0)).map((e) => e.sequence)).toEqual([1]);
      expect((await store.readEvents("b", 0)).map((e) => e.sequence)).toEqual([1, 2]);
      expect((await store.loadSession("c"))?.session.title).toBe("Session c");
    } finally {
      await close();
    }
  });

  it("writes asked for in one turn of the event loop share one commit", async () => {
    const { store, db, close } = await openStore();
    try {
      const direct = db.direct;
      if (direct === undefined) throw new Error("no direct path");
      const transactions = direct.stats.transactions;
      const [a, b, c] = await Promise.all([
        store.write("a", { events: [delta(1)] }),
        store.write("b", { events: [delta(1)] }),
        store.write("c", { events: [delta(1), delta(2)] }),
      ]);
      expect(direct.stats.transactions).toBe(transactions + 1);
      expect([a, b, c].map((w) => w.events.map((e) => e.sequence))).toEqual([[1], [1], [1, 2]]);
      // off: a transaction per write
      const single = await openStore({ groupCommit: false });
      try {
        const alone = single.db.direct;
        const before = alone?.stats.transactions ?? 0;
        await Promise.all([
          single.store.write("a", { events: [delta(1)] }),
          single.store.write("b", { events: [delta(1)] }),
        ]);
        expect(alone?.stats.transactions).toBe(before + 2);
      } finally {
        await single.close();
      }
    } finally {
      await close();
    }
  });

  it("a group is stored without savepoints; when one write fails, it alone is undone", async () => {
    const { store, db, close } = await openStore();
    try {
      const direct = db.direct;
      if (direct === undefined) throw new Error("no direct path");
      // a group that goes through: one commit, every write once
      let transactions = direct.stats.transactions;
      await Promise.all([
        store.write("a", { events: [delta(1)] }),
        store.write("b", { events: [delta(1), delta(2)] }),
      ]);
      expect(direct.stats.transactions).toBe(transactions + 1);
      // a failing write in the middle of a group: its statements before the failure are undone,
      // the writes before and after it are stored once each, still in one commit
      transactions = direct.stats.transactions;
      const results = await Promise.allSettled([
        store.write("a", { events: [delta(2)] }),
        store.write("b", {
          messages: [textMessage("b", "m1")],
          branch_appends: [{ branch_id: "b-main", message_ids: ["m1", "nope"] }],
          events: [delta(3)],
        }),
        store.write("c", { events: [delta(1)] }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(direct.stats.transactions).toBe(transactions + 1);
      expect((await store.readEvents("a", 0)).map((e) => e.sequence)).toEqual([1, 2]);
      expect((await store.readEvents("b", 0)).map((e) => e.sequence)).toEqual([1, 2]);
      expect((await store.readEvents("c", 0)).map((e) => e.sequence)).toEqual([1]);
      expect((await store.loadSession("b"))?.messages).toEqual([]);
      // the failed write took no sequence: the next one of b follows on
      const next = await store.write("b", { events: [delta(3)] });
      expect(next.events.map((e) => e.sequence)).toEqual([3]);
    } finally {
      await close();
    }
  });

  it("when a write ends the whole transaction, the others of its group are stored again", async () => {
    const { store, db, close } = await openStore();
    try {
      const direct = db.direct;
      if (direct === undefined) throw new Error("no direct path");
      const results = await Promise.allSettled([
        store.write("a", { events: [delta(1)] }),
        // as SQLite does on some errors: the transaction is rolled back under the group
        direct.write((conn) => {
          conn.statement("ROLLBACK").run();
          throw new Error("transaction lost");
        }),
        store.write("b", { events: [delta(1), delta(2)] }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((await store.readEvents("a", 0)).map((e) => e.sequence)).toEqual([1]);
      expect((await store.readEvents("b", 0)).map((e) => e.sequence)).toEqual([1, 2]);
    } finally {
      await close();
    }
  });

  it("a failing write leaves nothing behind and the next write goes on", async () => {
    const { store, close } = await openStore();
    try {
      await store.write("a", {
        messages: [textMessage("a", "m1")],
        branch_appends: [{ branch_id: "a-main", message_ids: ["m1"] }],
      });
      // a branch that names an unknown message: the message inserted before the check is undone
      await expect(
        store.write("a", {
          messages: [textMessage("a", "m2")],
          branch_appends: [{ branch_id: "a-main", message_ids: ["m2", "nope"] }],
          events: [delta(1)],
        }),
      ).rejects.toMatchObject({ code: "not_found" });
      await store.write("a", { events: [delta(2)] });
      const loaded = await store.loadSession("a");
      expect(loaded?.messages.map((m) => m.id)).toEqual(["m1"]);
      expect((await store.readEvents("a", 0)).map((e) => e.sequence)).toEqual([1]);
    } finally {
      await close();
    }
  });

  it("can be turned off: every write goes through Prisma", async () => {
    const { store, db, close } = await openStore({ direct: false });
    try {
      expect(db.direct).toBeUndefined();
      await store.write("a", { events: [delta(1)] });
      expect((await store.readEvents("a", 0)).map((e) => e.sequence)).toEqual([1]);
    } finally {
      await close();
    }
  });

  it("numbers the next loop by a direct read, as Prisma would, while a write is queued", async () => {
    const base = {
      agentId: "arbor",
      status: "running" as const,
      startedAt: 1,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      turns: 0,
      messages: [],
      childLoopIds: [],
      childLoopRefs: [],
    };
    // other configs, other sessions, and ids LIKE's wildcards would match, beside the real ones
    const ids = ["a.c.2", "a.c.10", "a.cx.40", "a.c_.50", "b.c.99", "a.c.9"];
    const answers: number[][] = [];
    for (const direct of [true, false]) {
      const { store, db, close } = await openStore({ direct });
      try {
        expect(db.direct !== undefined).toBe(direct);
        for (const loopId of ids) {
          await store.upsertLoop({ ...base, sessionId: loopId.split(".")[0] as string, loopId });
        }
        // a write waiting for the turn's commit does not hold the read back
        const queued = store.write("a", { events: [delta(1)] });
        answers.push([
          await store.nextLoopNumber("a", "c"),
          await store.nextLoopNumber("a", "c_"),
          await store.nextLoopNumber("a", "d"),
          await store.nextLoopNumber("b", "c"),
        ]);
        await queued;
      } finally {
        await close();
      }
    }
    expect(answers[0]).toEqual([11, 51, 1, 100]);
    expect(answers[1]).toEqual(answers[0]);
  });
});
