import { afterAll, describe, expect, it } from "vitest";
import { AuditLog, auditRowHash, GENESIS_HASH } from "../src/audit-log.js";
import { type Database, openDatabase } from "../src/database.js";
import { parseDatabaseUrl } from "../src/database-url.js";
import type { Provider } from "../src/prisma-schema.js";
import { pgAvailable, testDatabases } from "./stores.js";

// The audit log's chain on both databases: appends link, list pages and filters, verify finds an
// edited, deleted or relinked row, and two connections appending at once keep one unbroken chain.

const ana = { id: "u-ana", name: "Ana" };
const ben = { id: "u-ben", name: "Ben" };

function clock(start = Date.parse("2026-11-27T10:00:00.000Z")) {
  let t = start;
  return () => {
    t += 1000;
    return new Date(t);
  };
}

function describeAuditLog(provider: Provider) {
  const databases = testDatabases(provider);
  const opened: Database[] = [];
  afterAll(async () => {
    for (const db of opened.splice(0)) await db.close();
    await databases.dispose();
  });

  async function fresh(): Promise<{ url: string; db: Database }> {
    const url = await databases.fresh();
    const db = await openDatabase(parseDatabaseUrl(url));
    opened.push(db);
    return { url, db };
  }

  async function seeded(n: number) {
    const { url, db } = await fresh();
    const log = new AuditLog(db, { now: clock() });
    for (let i = 0; i < n; i++) {
      await log.append({
        actor: i % 2 === 0 ? ana : ben,
        action: i % 3 === 0 ? "tool_approved" : "session_config_changed",
        target: `session:s${i}`,
        address: "127.0.0.1",
        detail: { i, tool: "bash" },
      });
    }
    return { url, db, log };
  }

  it("appends a linked chain: sequence 1, 2, …, each prev_hash the last hash", async () => {
    const { log } = await seeded(3);
    const { entries } = await log.list({ limit: 10 });
    expect(entries.map((e) => e.sequence)).toEqual([3, 2, 1]);
    const [third, second, first] = entries;
    expect(first?.prev_hash).toBe(GENESIS_HASH);
    expect(second?.prev_hash).toBe(first?.hash);
    expect(third?.prev_hash).toBe(second?.hash);
    expect(first).toMatchObject({
      actor_id: "u-ana",
      actor_name: "Ana",
      action: "tool_approved",
      target: "session:s0",
      address: "127.0.0.1",
      detail: { i: 0, tool: "bash" },
      time: "2026-11-27T10:00:01.000Z",
    });
    expect(await log.verify()).toEqual({
      ok: true,
      rows: 3,
      head: { sequence: 3, hash: third?.hash },
    });
  });

  it("records the system and anonymous callers with a null actor", async () => {
    const { db } = await fresh();
    const log = new AuditLog(db);
    const row = await log.append({
      actor: null,
      action: "mcp_config_loaded",
      target: "mcp_server:x",
    });
    expect(row).toMatchObject({ actor_id: null, actor_name: null, address: null, detail: {} });
    expect((await log.verify()).ok).toBe(true);
  });

  it("pages newest first by cursor and filters by actor, action and time", async () => {
    const { log } = await seeded(7);
    const first = await log.list({ limit: 3 });
    expect(first.entries.map((e) => e.sequence)).toEqual([7, 6, 5]);
    expect(first.next_cursor).toBe("5");
    const second = await log.list({ limit: 3, cursor: first.next_cursor ?? "" });
    expect(second.entries.map((e) => e.sequence)).toEqual([4, 3, 2]);
    const last = await log.list({ limit: 3, cursor: second.next_cursor ?? "" });
    expect(last).toMatchObject({ next_cursor: null });
    expect(last.entries.map((e) => e.sequence)).toEqual([1]);

    const bens = await log.list({ limit: 10, actor: "u-ben" });
    expect(bens.entries.map((e) => e.sequence)).toEqual([6, 4, 2]);
    const approvals = await log.list({ limit: 10, action: "tool_approved" });
    expect(approvals.entries.map((e) => e.sequence)).toEqual([7, 4, 1]);
    // rows are a second apart from 10:00:01: [10:00:03, 10:00:05) holds rows 3 and 4
    const window = await log.list({
      limit: 10,
      since: "2026-11-27T10:00:03.000Z",
      until: "2026-11-27T10:00:05.000Z",
    });
    expect(window.entries.map((e) => e.sequence)).toEqual([4, 3]);
  });

  it("reports a row whose detail was edited in the database as hash_mismatch", async () => {
    const { db, log } = await seeded(5);
    await db.client.$executeRawUnsafe(
      `UPDATE audit_log SET detail = '{"i":2,"tool":"ls"}' WHERE sequence = 3`,
    );
    expect(await log.verify()).toMatchObject({
      ok: false,
      rows: 5,
      first_bad: { sequence: 3, reason: "hash_mismatch" },
    });
  });

  it("reports a deleted row as a gap, and a deleted first row too", async () => {
    const { db, log } = await seeded(5);
    await db.client.$executeRawUnsafe("DELETE FROM audit_log WHERE sequence = 2");
    expect(await log.verify()).toMatchObject({
      ok: false,
      rows: 4,
      first_bad: { sequence: 3, reason: "gap" },
    });
    const other = await seeded(3);
    await other.db.client.$executeRawUnsafe("DELETE FROM audit_log WHERE sequence = 1");
    expect(await other.log.verify()).toMatchObject({ first_bad: { sequence: 2, reason: "gap" } });
  });

  it("reports a row rehashed after an edit as a broken link at the row after it", async () => {
    const { db, log } = await seeded(4);
    // an editor who also recomputes the edited row's own hash: the next row's link breaks
    const rows = await db.client.auditLog.findMany({ orderBy: { sequence: "asc" } });
    const edited = { ...rows[1]!, detail: '{"i":1,"tool":"ls"}' };
    const { hash: _old, ...unhashed } = edited;
    await db.client.$executeRawUnsafe(
      `UPDATE audit_log SET detail = '${edited.detail}', hash = '${auditRowHash(unhashed)}' WHERE sequence = 2`,
    );
    expect(await log.verify()).toMatchObject({
      ok: false,
      first_bad: { sequence: 3, reason: "broken_link" },
    });
  });

  it("an empty log verifies", async () => {
    const { db } = await fresh();
    expect(await new AuditLog(db).verify()).toEqual({ ok: true, rows: 0, head: null });
  });

  it("two connections appending at once keep one unbroken chain", async () => {
    const { url, db } = await fresh();
    const other = await openDatabase(parseDatabaseUrl(url));
    opened.push(other);
    const a = new AuditLog(db);
    const b = new AuditLog(other);
    const each = 40;
    const appendMany = (log: AuditLog, actor: { id: string; name: string }) =>
      Promise.all(
        Array.from({ length: each }, (_, i) =>
          log.append({ actor, action: "tool_denied", target: `session:${actor.id}-${i}` }),
        ),
      );
    const [fromA, fromB] = await Promise.all([appendMany(a, ana), appendMany(b, ben)]);
    const sequences = [...fromA, ...fromB].map((e) => e.sequence).sort((x, y) => x - y);
    expect(sequences).toEqual(Array.from({ length: 2 * each }, (_, i) => i + 1));
    // both connections' rows are in the chain, interleaved, and it holds
    const verdict = await b.verify();
    expect(verdict).toMatchObject({ ok: true, rows: 2 * each });
    const actors = (await a.list({ limit: 2 * each })).entries.map((e) => e.actor_id);
    expect(new Set(actors)).toEqual(new Set(["u-ana", "u-ben"]));
  });
}

describe("audit log on SQLite", () => describeAuditLog("sqlite"));
describe.skipIf(!pgAvailable())("audit log on PostgreSQL", () => describeAuditLog("postgresql"));
