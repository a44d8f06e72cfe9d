// Where the MCP sessions of Arbor's MCP server (/api/mcp, mcp-http.ts) are kept between
// requests: who opened each one and its folds. @arbor/db keeps them in the database, so every
// instance behind a load balancer serves every request of every session (issue #26); the
// in-memory store here serves one process (tests, a library user without a database).
//
// A session is found by its key: the SHA-256 of the `Mcp-Session-Id` the client holds, so the
// ids themselves are never stored. `state` is a FoldSession snapshot as JSON text, parsed by the
// core (unknown until zod parses it). Times are milliseconds since the epoch.

export interface McpSessionRow {
  /** the person who opened it (users.id): only they may use it */
  personId: string;
  /** the FoldSession snapshot, JSON */
  state: string;
  /** bumped by every `save`: a save that read an older version is refused */
  version: number;
  createdAt: number;
  lastUsedAt: number;
}

export interface McpSessionStore {
  create(key: string, row: { personId: string; state: string; now: number }): Promise<void>;
  get(key: string): Promise<McpSessionRow | undefined>;
  /**
   * Writes `state` if the row is still at `version` (bumping it and `lastUsedAt`): false when
   * another request changed it since it was read, or it is gone.
   */
  save(key: string, state: string, version: number, now: number): Promise<boolean>;
  /** Marks the session used at `now`. */
  touch(key: string, now: number): Promise<void>;
  /** true when there was one */
  delete(key: string): Promise<boolean>;
  /** Deletes the sessions last used before `before`; how many. */
  prune(before: number): Promise<number>;
  /** Deletes a person's least recently used sessions beyond `keep`; how many. */
  trim(personId: string, keep: number): Promise<number>;
}

/** The sessions in this process's memory. */
export class InMemoryMcpSessionStore implements McpSessionStore {
  readonly #rows = new Map<string, McpSessionRow>();

  get size(): number {
    return this.#rows.size;
  }

  async create(key: string, row: { personId: string; state: string; now: number }) {
    if (this.#rows.has(key)) throw new Error("an MCP session with this key exists");
    this.#rows.set(key, {
      personId: row.personId,
      state: row.state,
      version: 0,
      createdAt: row.now,
      lastUsedAt: row.now,
    });
  }

  async get(key: string) {
    const row = this.#rows.get(key);
    return row && { ...row };
  }

  async save(key: string, state: string, version: number, now: number) {
    const row = this.#rows.get(key);
    if (row === undefined || row.version !== version) return false;
    this.#rows.set(key, { ...row, state, version: version + 1, lastUsedAt: now });
    return true;
  }

  async touch(key: string, now: number) {
    const row = this.#rows.get(key);
    if (row !== undefined) row.lastUsedAt = Math.max(row.lastUsedAt, now);
  }

  async delete(key: string) {
    return this.#rows.delete(key);
  }

  async prune(before: number) {
    let n = 0;
    for (const [key, row] of this.#rows)
      if (row.lastUsedAt < before && this.#rows.delete(key)) n += 1;
    return n;
  }

  async trim(personId: string, keep: number) {
    const theirs = [...this.#rows]
      .filter(([, row]) => row.personId === personId)
      .sort((a, b) => b[1].lastUsedAt - a[1].lastUsedAt);
    for (const [key] of theirs.slice(keep)) this.#rows.delete(key);
    return Math.max(0, theirs.length - keep);
  }
}
