import { randomUUID } from "node:crypto";
import type { Database } from "./database.js";

// People, their tokens and invitations, who may reach which session, read-only links and the
// failed sign-ins of the rate limit: the rows behind docs/accounts.md. better-auth reads and
// writes users, sessions, accounts and passkeys itself (through its Prisma adapter); this store
// adds Arbor's own tables and the few user queries Arbor needs. Times are ISO-8601 strings,
// except the better-auth models' DateTime columns.

export type PersonRole = "owner" | "admin" | "member" | "viewer";
export type SessionRelation = "owner" | "collaborator" | "viewer";

export interface Person {
  id: string;
  name: string;
  email: string;
  role: PersonRole;
  disabled: boolean;
  createdAt: string;
}

export interface ApiTokenRow {
  id: string;
  userId: string;
  name: string;
  scope: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface InvitationRow {
  id: string;
  email: string | null;
  role: PersonRole;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  usedBy: string | null;
  revokedAt: string | null;
}

export interface SessionAccessRow {
  sessionId: string;
  userId: string;
  relation: SessionRelation;
  grantedBy: string;
  grantedAt: string;
}

export interface LinkShareRow {
  id: string;
  sessionId: string;
  branchId: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function person(row: {
  id: string;
  name: string;
  email: string;
  role: string;
  disabled: boolean;
  createdAt: Date;
}): Person {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role as PersonRole,
    disabled: row.disabled,
    createdAt: row.createdAt.toISOString(),
  };
}

function token(row: ApiTokenRow & { hash?: string }): ApiTokenRow {
  const { hash: _hash, ...rest } = row;
  return rest;
}

function invitation(row: InvitationRow & { hash?: string }): InvitationRow {
  const { hash: _hash, ...rest } = row;
  return { ...rest, role: rest.role as PersonRole };
}

function link(row: LinkShareRow & { hash?: string }): LinkShareRow {
  const { hash: _hash, ...rest } = row;
  return rest;
}

export interface PeopleStoreOptions {
  now?: () => Date;
  /**
   * How long a read of who someone is (a person, a token, a relation to a session) may be
   * answered from memory, ms; default 0 (never). Any write through this store forgets them
   * at once; another instance's write is seen within this time (docs/accounts.md).
   */
  cacheMs?: number;
}

/** A person's relation to a session, on the direct SQLite path (see `relation`). */
const RELATION_OF =
  'SELECT "relation" FROM "session_access" WHERE "session_id" = ? AND "user_id" = ?';

/** The cache key of a person's relation to a session (read by `relation`, kept by `grant`). */
function relationKey(sessionId: string, userId: string): string {
  return `relation:${sessionId}:${userId}`;
}

export class PeopleStore {
  readonly #db: Database;
  readonly #now: () => Date;
  readonly #cacheMs: number;
  /** counts `forget()`s: a write remembers what it stored only if nothing was forgotten since */
  #generation = 0;
  readonly #cache = new Map<string, { value: unknown; until: number }>();
  /** tokens whose use was recorded lately, by id: the time (a write per request is waste) */
  readonly #touched = new Map<string, number>();

  constructor(db: Database, options: PeopleStoreOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? (() => new Date());
    this.#cacheMs = options.cacheMs ?? 0;
  }

  /** Forgets every cached read (a write here, or one through better-auth, calls it). */
  forget(): void {
    this.#cache.clear();
    this.#generation++;
  }

  /** A read of who someone is, answered from memory within `cacheMs` (forgotten at any write). */
  remember<T>(key: string, read: () => Promise<T>): Promise<T> {
    return this.#cached(`remembered:${key}`, read);
  }

  async #cached<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (this.#cacheMs <= 0) return read();
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit !== undefined && hit.until > now) return hit.value as T;
    const value = await read();
    this.#keep(key, value, now);
    return value;
  }

  /** Keeps `value` under `key` for `cacheMs` from `now` (the cache never grows past 10,000). */
  #keep(key: string, value: unknown, now: number): void {
    if (this.#cache.size > 10_000) this.#cache.clear();
    this.#cache.set(key, { value, until: now + this.#cacheMs });
  }

  get #client() {
    return this.#db.client;
  }

  // ---- people ----

  async owner(): Promise<Person | undefined> {
    const row = await this.#client.user.findFirst({
      where: { role: "owner" },
      orderBy: { createdAt: "asc" },
    });
    return row === null ? undefined : person(row);
  }

  async person(id: string): Promise<Person | undefined> {
    return this.#cached(`person:${id}`, async () => {
      const row = await this.#client.user.findUnique({ where: { id } });
      return row === null ? undefined : person(row);
    });
  }

  async personByEmail(email: string): Promise<Person | undefined> {
    const row = await this.#client.user.findUnique({ where: { email: email.toLowerCase() } });
    return row === null ? undefined : person(row);
  }

  async people(): Promise<Person[]> {
    const rows = await this.#client.user.findMany({ orderBy: { createdAt: "asc" } });
    return rows.map(person);
  }

  async peopleByIds(ids: readonly string[]): Promise<Map<string, Person>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#client.user.findMany({ where: { id: { in: [...new Set(ids)] } } });
    return new Map(rows.map((row) => [row.id, person(row)]));
  }

  /**
   * The owner, made when there is none (first start). Two instances starting at once agree:
   * the first insert wins, the second reads it.
   */
  async ensureOwner(defaults: { name: string; email: string }): Promise<Person> {
    this.forget();
    const existing = await this.owner();
    if (existing !== undefined) return existing;
    try {
      await this.#client.user.create({
        data: {
          id: "owner",
          name: defaults.name,
          email: defaults.email.toLowerCase(),
          role: "owner",
          emailVerified: false,
        },
      });
    } catch {
      // another instance made it (unique id): read theirs
    }
    const made = await this.owner();
    if (made === undefined) throw new Error("the owner could not be created");
    return made;
  }

  /** A person made directly (tests, and SSO/invitation paths go through better-auth instead). */
  async createPerson(input: {
    name: string;
    email: string;
    role: PersonRole;
    id?: string;
  }): Promise<Person> {
    this.forget();
    const row = await this.#client.user.create({
      data: {
        id: input.id ?? randomUUID(),
        name: input.name,
        email: input.email.toLowerCase(),
        role: input.role,
        emailVerified: false,
      },
    });
    return person(row);
  }

  async setRole(id: string, role: PersonRole): Promise<Person | undefined> {
    this.forget();
    const updated = await this.#client.user.updateMany({ where: { id }, data: { role } });
    return updated.count === 0 ? undefined : this.person(id);
  }

  async setDisabled(id: string, disabled: boolean): Promise<Person | undefined> {
    this.forget();
    const updated = await this.#client.user.updateMany({ where: { id }, data: { disabled } });
    if (updated.count === 0) return undefined;
    if (disabled) await this.endSessionsOf(id);
    return this.person(id);
  }

  /** Renames a person or changes their email address (lower-cased; unique). */
  async updatePerson(
    id: string,
    change: { name?: string; email?: string },
  ): Promise<Person | undefined> {
    this.forget();
    const data = {
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.email === undefined ? {} : { email: change.email.toLowerCase() }),
    };
    const updated = await this.#client.user.updateMany({ where: { id }, data });
    return updated.count === 0 ? undefined : this.person(id);
  }

  /** Sets a person's password hash (their `credential` account, made when missing). */
  async setPasswordHash(userId: string, hash: string): Promise<void> {
    this.forget();
    const now = this.#now();
    const updated = await this.#client.authAccount.updateMany({
      where: { userId, providerId: "credential" },
      data: { password: hash, updatedAt: now },
    });
    if (updated.count > 0) return;
    await this.#client.authAccount.create({
      data: {
        id: randomUUID(),
        accountId: userId,
        providerId: "credential",
        userId,
        password: hash,
        createdAt: now,
        updatedAt: now,
      },
    });
  }

  /** The person's password hash (their `credential` account's), undefined when they have none. */
  async passwordHash(userId: string): Promise<string | undefined> {
    const row = await this.#client.authAccount.findFirst({
      where: { userId, providerId: "credential" },
      select: { password: true },
    });
    return row?.password ?? undefined;
  }

  /** Whether the person has a password (a `credential` account) or a passkey. */
  async signInMethods(id: string): Promise<{ password: boolean; passkeys: number; sso: string[] }> {
    const [accounts, passkeys] = await Promise.all([
      this.#client.authAccount.findMany({
        where: { userId: id },
        select: { providerId: true, password: true },
      }),
      this.#client.passkey.count({ where: { userId: id } }),
    ]);
    return {
      password: accounts.some((a) => a.providerId === "credential" && a.password !== null),
      passkeys,
      sso: accounts.filter((a) => a.providerId !== "credential").map((a) => a.providerId),
    };
  }

  /** Ends one browser session (by its token). */
  async endSession(token: string): Promise<void> {
    this.forget();
    await this.#client.authSession.deleteMany({ where: { token } });
  }

  /** A person's browser sessions, newest first. */
  async sessionsOf(userId: string): Promise<
    Array<{
      id: string;
      createdAt: string;
      expiresAt: string;
      ipAddress: string | null;
      userAgent: string | null;
    }>
  > {
    const rows = await this.#client.authSession.findMany({
      where: { userId },
      orderBy: { createdAt: "desc" },
    });
    return rows.map((row) => ({
      id: row.id,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      ipAddress: row.ipAddress,
      userAgent: row.userAgent,
    }));
  }

  /**
   * Ends every browser session of a person (sign-out everywhere, disabling, role change), or
   * every one but `except` (a session's token: a password change keeps the one that made it).
   */
  async endSessionsOf(userId: string, except?: string): Promise<number> {
    this.forget();
    const deleted = await this.#client.authSession.deleteMany({
      where: except === undefined ? { userId } : { userId, token: { not: except } },
    });
    return deleted.count;
  }

  // ---- personal API tokens ----

  async createToken(input: {
    userId: string;
    name: string;
    scope: string;
    hash: string;
    prefix: string;
    expiresAt: string | null;
    id?: string;
  }): Promise<ApiTokenRow> {
    this.forget();
    const row = await this.#client.apiToken.create({
      data: {
        id: input.id ?? randomUUID(),
        userId: input.userId,
        name: input.name,
        scope: input.scope,
        hash: input.hash,
        prefix: input.prefix,
        createdAt: this.#now().toISOString(),
        expiresAt: input.expiresAt,
      },
    });
    return token(row);
  }

  /** Puts a token row under a fixed id, replacing what had it (the install token's row). */
  async replaceToken(
    id: string,
    input: Omit<Parameters<PeopleStore["createToken"]>[0], "id">,
  ): Promise<ApiTokenRow> {
    this.forget();
    await this.#client.apiToken.deleteMany({ where: { id } });
    try {
      return await this.createToken({ ...input, id });
    } catch (error) {
      // another instance starting at once put the same row
      const row = await this.tokenByHash(input.hash);
      if (row === undefined) throw error;
      return row;
    }
  }

  async tokenByHash(hash: string): Promise<ApiTokenRow | undefined> {
    return this.#cached(`token:${hash}`, async () => {
      const row = await this.#client.apiToken.findUnique({ where: { hash } });
      return row === null ? undefined : token(row);
    });
  }

  async tokens(userId: string): Promise<ApiTokenRow[]> {
    const rows = await this.#client.apiToken.findMany({
      where: { userId },
      orderBy: { createdAt: "desc" },
    });
    return rows.map(token);
  }

  /** Records a token's use; at most once a minute per token (a write per request is waste). */
  async touchToken(id: string, at: Date = this.#now()): Promise<void> {
    const last = this.#touched.get(id);
    if (last !== undefined && at.getTime() - last < 60_000) return;
    this.#touched.set(id, at.getTime());
    if (this.#touched.size > 10_000) this.#touched.clear();
    const before = new Date(at.getTime() - 60_000).toISOString();
    await this.#client.apiToken.updateMany({
      where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: before } }] },
      data: { lastUsedAt: at.toISOString() },
    });
  }

  /** Revokes one of a person's tokens; false when they have none by that id (or it was). */
  async revokeToken(userId: string, id: string): Promise<boolean> {
    this.forget();
    const updated = await this.#client.apiToken.updateMany({
      where: { id, userId, revokedAt: null },
      data: { revokedAt: this.#now().toISOString() },
    });
    return updated.count > 0;
  }

  // ---- invitations ----

  async createInvitation(input: {
    hash: string;
    email: string | null;
    role: PersonRole;
    createdBy: string;
    expiresAt: string;
  }): Promise<InvitationRow> {
    this.forget();
    const row = await this.#client.invitation.create({
      data: {
        id: randomUUID(),
        hash: input.hash,
        email: input.email?.toLowerCase() ?? null,
        role: input.role,
        createdBy: input.createdBy,
        createdAt: this.#now().toISOString(),
        expiresAt: input.expiresAt,
      },
    });
    return invitation(row as InvitationRow & { hash: string });
  }

  async invitations(): Promise<InvitationRow[]> {
    const rows = await this.#client.invitation.findMany({ orderBy: { createdAt: "desc" } });
    return rows.map((row) => invitation(row as InvitationRow & { hash: string }));
  }

  /** An invitation that can still be used (not used, revoked or expired). */
  async openInvitation(hash: string): Promise<InvitationRow | undefined> {
    const row = await this.#client.invitation.findUnique({ where: { hash } });
    if (row === null) return undefined;
    const found = invitation(row as InvitationRow & { hash: string });
    const open =
      found.usedAt === null &&
      found.revokedAt === null &&
      found.expiresAt > this.#now().toISOString();
    return open ? found : undefined;
  }

  /** An open invitation bound to this email address (SSO and password sign-up use it). */
  async pendingInvitationFor(email: string): Promise<InvitationRow | undefined> {
    const now = this.#now().toISOString();
    const row = await this.#client.invitation.findFirst({
      where: { email: email.toLowerCase(), usedAt: null, revokedAt: null, expiresAt: { gt: now } },
      orderBy: { createdAt: "desc" },
    });
    return row === null ? undefined : invitation(row as InvitationRow & { hash: string });
  }

  /** Gives an invitation back after the account it was used for could not be made. */
  async restoreInvitation(id: string): Promise<void> {
    this.forget();
    await this.#client.invitation.updateMany({
      where: { id },
      data: { usedAt: null, usedBy: null },
    });
  }

  /** Marks an invitation used by `userId`: false when it was used, revoked or expired meanwhile. */
  async consumeInvitation(id: string, userId: string): Promise<boolean> {
    this.forget();
    const now = this.#now().toISOString();
    const updated = await this.#client.invitation.updateMany({
      where: { id, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now, usedBy: userId },
    });
    return updated.count > 0;
  }

  async revokeInvitation(id: string): Promise<boolean> {
    this.forget();
    const updated = await this.#client.invitation.updateMany({
      where: { id, usedAt: null, revokedAt: null },
      data: { revokedAt: this.#now().toISOString() },
    });
    return updated.count > 0;
  }

  // ---- who may reach a session ----

  async grant(input: Omit<SessionAccessRow, "grantedAt">): Promise<SessionAccessRow> {
    this.forget();
    const generation = this.#generation;
    const grantedAt = this.#now().toISOString();
    const row = await this.#client.sessionAccess.upsert({
      where: { sessionId_userId: { sessionId: input.sessionId, userId: input.userId } },
      create: { ...input, grantedAt },
      update: { relation: input.relation, grantedBy: input.grantedBy, grantedAt },
    });
    const relation = row.relation as SessionRelation;
    // what was just stored is remembered (the first request of a new session asks for it at
    // once), unless anything was forgotten meanwhile (a revocation racing this grant)
    if (this.#cacheMs > 0 && generation === this.#generation) {
      this.#keep(relationKey(input.sessionId, input.userId), relation, Date.now());
    }
    return { ...row, relation };
  }

  async revokeAccess(sessionId: string, userId: string): Promise<boolean> {
    this.forget();
    const deleted = await this.#client.sessionAccess.deleteMany({
      where: { sessionId, userId, NOT: { relation: "owner" } },
    });
    return deleted.count > 0;
  }

  async relation(sessionId: string, userId: string): Promise<SessionRelation | undefined> {
    return this.#cached(relationKey(sessionId, userId), async () => {
      const direct = this.#db.direct;
      if (direct !== undefined) {
        // authorize() asks on every request to a session: on SQLite one prepared SELECT on the
        // store's connection answers it (it sees what is committed, as a Prisma read does)
        // instead of a Prisma query, the most costly step of a message's request (issue #30)
        return direct.read((conn) => {
          const row = conn.statement(RELATION_OF).raw(true).get(sessionId, userId) as
            | [string]
            | undefined;
          return row?.[0] as SessionRelation | undefined;
        });
      }
      const row = await this.#client.sessionAccess.findUnique({
        where: { sessionId_userId: { sessionId, userId } },
      });
      return (row?.relation as SessionRelation | undefined) ?? undefined;
    });
  }

  async sessionOwner(sessionId: string): Promise<string | undefined> {
    return this.#cached(`owner:${sessionId}`, async () => {
      const row = await this.#client.sessionAccess.findFirst({
        where: { sessionId, relation: "owner" },
      });
      return row?.userId;
    });
  }

  /** Every session a person owns or has been given, with the relation. */
  async reachable(userId: string): Promise<Map<string, SessionRelation>> {
    const rows = await this.#client.sessionAccess.findMany({ where: { userId } });
    return new Map(rows.map((row) => [row.sessionId, row.relation as SessionRelation]));
  }

  async access(sessionId: string): Promise<SessionAccessRow[]> {
    const rows = await this.#client.sessionAccess.findMany({
      where: { sessionId },
      orderBy: { grantedAt: "asc" },
    });
    return rows.map((row) => ({ ...row, relation: row.relation as SessionRelation }));
  }

  /** A deleted session's access rows and links. */
  async forgetSession(sessionId: string): Promise<void> {
    this.forget();
    await this.#db.writeTransaction(async (tx) => {
      await tx.sessionAccess.deleteMany({ where: { sessionId } });
      await tx.linkShare.deleteMany({ where: { sessionId } });
    });
  }

  // ---- read-only links ----

  async createLink(input: {
    sessionId: string;
    branchId: string;
    hash: string;
    createdBy: string;
    expiresAt: string | null;
  }): Promise<LinkShareRow> {
    this.forget();
    const row = await this.#client.linkShare.create({
      data: { id: randomUUID(), createdAt: this.#now().toISOString(), ...input },
    });
    return link(row);
  }

  async links(sessionId: string): Promise<LinkShareRow[]> {
    const rows = await this.#client.linkShare.findMany({
      where: { sessionId },
      orderBy: { createdAt: "asc" },
    });
    return rows.map(link);
  }

  /** A link that still opens (not revoked, not expired). */
  async openLink(hash: string): Promise<LinkShareRow | undefined> {
    const row = await this.#client.linkShare.findUnique({ where: { hash } });
    if (row === null || row.revokedAt !== null) return undefined;
    if (row.expiresAt !== null && row.expiresAt <= this.#now().toISOString()) return undefined;
    return link(row);
  }

  async revokeLink(sessionId: string, id: string): Promise<boolean> {
    this.forget();
    const updated = await this.#client.linkShare.updateMany({
      where: { id, sessionId, revokedAt: null },
      data: { revokedAt: this.#now().toISOString() },
    });
    return updated.count > 0;
  }

  // ---- failed sign-ins ----

  /** Failures counted for `key` in the window that is open at `now` (0 when none or passed). */
  async failures(
    key: string,
    windowMs: number,
    now = this.#now().getTime(),
  ): Promise<{
    count: number;
    retryAfterMs: number;
  }> {
    const row = await this.#client.authFailure.findUnique({ where: { key } });
    if (row === null) return { count: 0, retryAfterMs: 0 };
    const ends = Number(row.windowStart) + windowMs;
    return ends <= now
      ? { count: 0, retryAfterMs: 0 }
      : { count: row.count, retryAfterMs: ends - now };
  }

  /**
   * Counts one failure for each key (a window opens at the first failure after one closed).
   * Conditional updates, no read-then-write: instances failing at once each count.
   */
  async fail(
    keys: readonly string[],
    windowMs: number,
    now = this.#now().getTime(),
  ): Promise<void> {
    const open = BigInt(now - windowMs);
    for (const key of keys) {
      const counted = await this.#client.authFailure.updateMany({
        where: { key, windowStart: { gt: open } },
        data: { count: { increment: 1 } },
      });
      if (counted.count > 0) continue;
      const reopened = await this.#client.authFailure.updateMany({
        where: { key, windowStart: { lte: open } },
        data: { count: 1, windowStart: BigInt(now) },
      });
      if (reopened.count > 0) continue;
      try {
        await this.#client.authFailure.create({
          data: { key, count: 1, windowStart: BigInt(now) },
        });
      } catch {
        // another instance created it first: count on theirs
        await this.#client.authFailure.updateMany({
          where: { key },
          data: { count: { increment: 1 } },
        });
      }
    }
  }

  async clearFailures(key: string): Promise<void> {
    await this.#client.authFailure.deleteMany({ where: { key } });
  }
}
