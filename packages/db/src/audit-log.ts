import { createHash } from "node:crypto";
import type { AuditAction, AuditEntry, AuditVerifyResponse } from "@arbor/core";
import type { Database, Tx } from "./database.js";
import { classifyFailure } from "./failures.js";
import type { DirectConnection } from "./sqlite-direct.js";

// The audit log (docs/audit.md): one append-only table, `audit_log`, whose rows form a hash
// chain. Row n's hash is sha256 over a canonical serialization of its own fields and row n-1's
// hash; sequences run 1, 2, 3, … with no gap. An edited row no longer matches its hash, a deleted
// row leaves a gap, a row inserted or renumbered breaks the link or the hash of the rows after it.
//
// Appends are serialized so the chain stays one line when several instances write at once: on
// PostgreSQL a transaction-scoped advisory lock taken before the last row is read; on SQLite the
// adapter's one connection and the database's writer lock (a racing process fails its commit or
// its primary key and retries). Nothing here ever updates or deletes a row.

/** prev_hash of the first row. */
export const GENESIS_HASH = "0".repeat(64);

/** The advisory lock every append takes (PostgreSQL): one key for the whole table. */
const APPEND_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('arbor.audit_log', 0))::text";

const LAST_ROW_SQL = "SELECT sequence, hash FROM audit_log ORDER BY sequence DESC LIMIT 1";
const INSERT_SQL =
  "INSERT INTO audit_log (sequence, time, actor_id, actor_name, action, target, address, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

const APPEND_ATTEMPTS = 10;
const VERIFY_PAGE = 1000;

/** What is appended: the row's sequence, time and hashes are the log's to give. */
export interface AuditAppend {
  /** who acted; null for the system or an anonymous caller */
  actor: { id: string; name: string } | null;
  action: AuditAction;
  target: string;
  /** the client's address; null (or absent) for the system */
  address?: string | null;
  detail?: Record<string, unknown>;
}

export interface AuditListQuery {
  /** a previous page's next_cursor: rows older than it */
  cursor?: string;
  limit: number;
  /** an actor id */
  actor?: string;
  action?: AuditAction;
  /** ISO time, inclusive */
  since?: string;
  /** ISO time, exclusive */
  until?: string;
}

export interface AuditPage {
  /** newest first */
  entries: AuditEntry[];
  next_cursor: string | null;
}

export interface AuditLogOptions {
  /** the clock (tests) */
  now?: () => Date;
}

interface Row {
  sequence: bigint;
  time: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  target: string;
  address: string | null;
  detail: string;
  prevHash: string;
  hash: string;
}

/** JSON with every object's keys sorted: one text for one value, whatever the insertion order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .filter((key) => record[key] !== undefined)
        .map((key) => [key, sorted(record[key])]),
    );
  }
  return value;
}

/**
 * A row's hash: sha256 hex over the JSON array of its fields in a fixed order, the detail as its
 * stored text, and the previous row's hash. Hashed as stored, so any change to a stored field
 * changes the hash.
 */
export function auditRowHash(row: Omit<Row, "hash">): string {
  const fields = [
    Number(row.sequence),
    row.time,
    row.actorId,
    row.actorName,
    row.action,
    row.target,
    row.address,
    row.detail,
    row.prevHash,
  ];
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex");
}

function entryOf(row: Row): AuditEntry {
  let detail: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.detail);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      detail = parsed as Record<string, unknown>;
    }
  } catch {
    // a row edited into bad JSON still lists (verify reports it): its detail reads as empty
  }
  return {
    sequence: Number(row.sequence),
    time: row.time,
    actor_id: row.actorId,
    actor_name: row.actorName,
    action: row.action as AuditAction,
    target: row.target,
    address: row.address,
    detail,
    prev_hash: row.prevHash,
    hash: row.hash,
  };
}

export class AuditLog {
  readonly #db: Database;
  readonly #now: () => Date;

  constructor(db: Database, options: AuditLogOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Appends one row at the end of the chain and returns it. Serialized against every other
   * append, in this process and in any other on the same database; retried on a lost race.
   * Throws when the database refuses (the caller decides what a lost audit row means).
   */
  async append(entry: AuditAppend): Promise<AuditEntry> {
    const direct = this.#db.direct;
    for (let attempt = 1; ; attempt++) {
      try {
        // SQLite: read the last row and insert in one synchronous BEGIN IMMEDIATE … COMMIT that
        // never yields, so no lock is held across an await (sqlite-direct.ts)
        if (direct !== undefined)
          return await direct.write((conn) => this.#appendDirect(conn, entry));
        return await this.#db.writeTransaction((tx) => this.#appendIn(tx, entry));
      } catch (error) {
        if (attempt >= APPEND_ATTEMPTS || classifyFailure(error) === "other") throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
      }
    }
  }

  async #appendIn(tx: Tx, entry: AuditAppend): Promise<AuditEntry> {
    if (this.#db.provider === "postgresql") await tx.$queryRawUnsafe(APPEND_LOCK);
    const last = await tx.auditLog.findFirst({
      orderBy: { sequence: "desc" },
      select: { sequence: true, hash: true },
    });
    const row = this.#next(last, entry);
    await tx.auditLog.create({ data: row });
    return entryOf(row);
  }

  #appendDirect(conn: DirectConnection, entry: AuditAppend): AuditEntry {
    const last = conn.statement(LAST_ROW_SQL).get() as
      | { sequence: number | bigint; hash: string }
      | undefined;
    const row = this.#next(
      last === undefined ? null : { sequence: BigInt(last.sequence), hash: last.hash },
      entry,
    );
    conn
      .statement(INSERT_SQL)
      .run(
        row.sequence,
        row.time,
        row.actorId,
        row.actorName,
        row.action,
        row.target,
        row.address,
        row.detail,
        row.prevHash,
        row.hash,
      );
    return entryOf(row);
  }

  /** The row after `last`, hashed. */
  #next(last: { sequence: bigint; hash: string } | null, entry: AuditAppend): Row {
    const unhashed = {
      sequence: (last?.sequence ?? 0n) + 1n,
      time: this.#now().toISOString(),
      actorId: entry.actor?.id ?? null,
      actorName: entry.actor?.name ?? null,
      action: entry.action,
      target: entry.target,
      address: entry.address ?? null,
      detail: canonicalJson(entry.detail ?? {}),
      prevHash: last?.hash ?? GENESIS_HASH,
    };
    return { ...unhashed, hash: auditRowHash(unhashed) };
  }

  /** Rows newest first, filtered; `next_cursor` reads the next (older) page. */
  async list(query: AuditListQuery): Promise<AuditPage> {
    const time = {
      ...(query.since !== undefined ? { gte: query.since } : {}),
      ...(query.until !== undefined ? { lt: query.until } : {}),
    };
    const rows = await this.#db.readTransaction((tx) =>
      tx.auditLog.findMany({
        where: {
          ...(query.cursor !== undefined ? { sequence: { lt: BigInt(query.cursor) } } : {}),
          ...(query.actor !== undefined ? { actorId: query.actor } : {}),
          ...(query.action !== undefined ? { action: query.action } : {}),
          ...(Object.keys(time).length > 0 ? { time } : {}),
        },
        orderBy: { sequence: "desc" },
        take: query.limit + 1,
      }),
    );
    const page = rows.slice(0, query.limit);
    const more = rows.length > query.limit;
    const last = page.at(-1);
    return {
      entries: page.map(entryOf),
      next_cursor: more && last !== undefined ? String(last.sequence) : null,
    };
  }

  /**
   * Reads the whole chain in order and checks every row: its sequence follows the last one
   * (`gap`), its prev_hash is the last row's hash (`broken_link`), its hash is its fields' hash
   * (`hash_mismatch`). Reports the first row that fails; `rows` counts every row read. Rows
   * deleted from the end leave no trace in the table itself: compare `head` with one kept
   * elsewhere (docs/audit.md).
   */
  async verify(): Promise<AuditVerifyResponse> {
    let rows = 0;
    let previous: { sequence: bigint; hash: string } | undefined;
    let firstBad: AuditVerifyResponse["first_bad"];
    for (;;) {
      const after = previous?.sequence ?? 0n;
      const page: Row[] = await this.#db.readTransaction((tx) =>
        tx.auditLog.findMany({
          where: { sequence: { gt: after } },
          orderBy: { sequence: "asc" },
          take: VERIFY_PAGE,
        }),
      );
      for (const row of page) {
        rows++;
        if (firstBad === undefined) {
          const reason =
            row.sequence !== (previous?.sequence ?? 0n) + 1n
              ? "gap"
              : row.prevHash !== (previous?.hash ?? GENESIS_HASH)
                ? "broken_link"
                : row.hash !== auditRowHash(row)
                  ? "hash_mismatch"
                  : undefined;
          if (reason !== undefined) firstBad = { sequence: Number(row.sequence), reason };
        }
        previous = { sequence: row.sequence, hash: row.hash };
      }
      if (page.length < VERIFY_PAGE) break;
    }
    const head =
      previous === undefined ? null : { sequence: Number(previous.sequence), hash: previous.hash };
    return firstBad === undefined
      ? { ok: true, rows, head }
      : { ok: false, rows, first_bad: firstBad, head };
  }
}
