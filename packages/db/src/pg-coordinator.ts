import type { SessionControl, SessionCoordinator, StoredEvent } from "@arbor/core";
import { decodeSessionControl, encodeSessionControl } from "@arbor/core/storage";
import pg from "pg";

// Several app instances on one PostgreSQL (issue #17, docs/decisions/0030). Two dedicated
// connections per instance, beside Prisma's pool:
// - the lease connection holds one session-level advisory lock per session this instance runs an
//   operation in. PostgreSQL frees a connection's advisory locks when it ends, so the lease of an
//   instance killed with -9 frees itself as soon as the server sees the connection drop, and the
//   next request on any instance recovers the session (Session.#lease).
// - the listen connection LISTENs on `arbor_events` (payload "<session id> <sequence>", sent after
//   each event write) and `arbor_control` ("<session id> <control as JSON>": an interrupt, decisions
//   on calls waiting inside a running operation, and the answer to those), and sends both. NOTIFYs of
//   one event-loop turn go out in one statement; a session's watchers on this instance are also
//   told at once, without the round trip.
// A lost notification (the listen connection dropped and came back) is covered by the watchers'
// polling (`pollIntervalMs`, stored-events.ts followEvents).

const EVENTS_CHANNEL = "arbor_events";
const CONTROL_CHANNEL = "arbor_control";

export interface PgCoordinatorOptions {
  url: string;
  /** default 1000 ms */
  pollIntervalMs?: number;
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

type Listener = (sequence: number, events?: readonly StoredEvent[]) => void;

/** NOTIFY payloads must stay under 8000 bytes: larger batches go as the sequence alone. */
const MAX_PAYLOAD_CHARS = 7000;

export class PgCoordinator implements SessionCoordinator {
  readonly pollIntervalMs: number;
  readonly #url: string;
  readonly #logger: PgCoordinatorOptions["logger"];
  #lease: pg.Client;
  #listen: pg.Client;
  readonly #held = new Set<string>();
  /** leases being taken: a second tryLease of the same session meanwhile is refused */
  readonly #taking = new Set<string>();
  readonly #watchers = new Map<string, Set<Listener>>();
  readonly #controls = new Set<(sessionId: string, control: SessionControl) => void>();
  /** per session: the newest sequence and the events since the last flush (undefined: too many) */
  readonly #pending = new Map<string, { sequence: number; events: StoredEvent[] | undefined }>();
  /** a flush is scheduled or its NOTIFY statement is running */
  #flushing = false;
  /** the running NOTIFY statement, if any */
  #sending: Promise<void> | undefined;
  #closed = false;

  private constructor(options: PgCoordinatorOptions, lease: pg.Client, listen: pg.Client) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#url = options.url;
    this.#logger = options.logger;
    this.#lease = lease;
    this.#listen = listen;
  }

  static async open(options: PgCoordinatorOptions): Promise<PgCoordinator> {
    const lease = new pg.Client({ connectionString: options.url });
    const listen = new pg.Client({ connectionString: options.url });
    await Promise.all([lease.connect(), listen.connect()]);
    const coordinator = new PgCoordinator(options, lease, listen);
    coordinator.#watchLease(lease);
    await coordinator.#startListening(listen);
    return coordinator;
  }

  holds(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  async tryLease(sessionId: string): Promise<boolean> {
    if (this.#closed || this.#held.has(sessionId) || this.#taking.has(sessionId)) return false;
    this.#taking.add(sessionId);
    try {
      const result = await this.#lease.query<{ taken: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken",
        [sessionId],
      );
      const taken = result.rows[0]?.taken === true;
      if (taken) this.#held.add(sessionId);
      return taken;
    } finally {
      this.#taking.delete(sessionId);
    }
  }

  async release(sessionId: string): Promise<void> {
    if (!this.#held.delete(sessionId)) return;
    await this.#lease.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [sessionId]);
  }

  /** the sessions whose leases this instance holds */
  get leases(): string[] {
    return [...this.#held];
  }

  notifyEvents(sessionId: string, sequence: number, events?: readonly StoredEvent[]): void {
    for (const listener of this.#watchers.get(sessionId) ?? []) listener(sequence, events);
    const entry = this.#pending.get(sessionId);
    if (entry === undefined) {
      this.#pending.set(sessionId, { sequence, events: events ? [...events] : undefined });
    } else {
      entry.sequence = Math.max(entry.sequence, sequence);
      if (entry.events !== undefined && events !== undefined) entry.events.push(...events);
      else entry.events = undefined;
    }
    if (!this.#flushing) {
      this.#flushing = true;
      setImmediate(() => void this.#flush());
    }
  }

  watchEvents(sessionId: string, listener: Listener): () => void {
    let set = this.#watchers.get(sessionId);
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(sessionId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(sessionId) === set) this.#watchers.delete(sessionId);
    };
  }

  sendControl(sessionId: string, control: SessionControl): void {
    this.#listen
      .query("SELECT pg_notify($1, $2)", [
        CONTROL_CHANNEL,
        `${sessionId} ${encodeSessionControl(control)}`,
      ])
      .catch((error: unknown) => this.#warn("could not send a control message", error));
  }

  onControl(listener: (sessionId: string, control: SessionControl) => void): () => void {
    this.#controls.add(listener);
    return () => {
      this.#controls.delete(listener);
    };
  }

  /** Releases every lease and closes both connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#flush();
    this.#held.clear();
    await Promise.allSettled([this.#lease.end(), this.#listen.end()]);
  }

  /**
   * Sends the pending notifications in one statement. One statement runs at a time: what is
   * notified meanwhile waits and goes in the next one, so under load the batches grow instead of
   * the connection's queue.
   */
  async #flush(): Promise<void> {
    while (this.#sending !== undefined) await this.#sending;
    this.#flushing = false;
    if (this.#pending.size === 0) return;
    const payloads = [...this.#pending].map(([id, { sequence, events }]) => {
      const head = `${id} ${sequence}`;
      if (events === undefined || events.length === 0) return head;
      const body = JSON.stringify(events.map((e) => [e.sequence, e.name, e.payload, e.created_at]));
      return head.length + body.length < MAX_PAYLOAD_CHARS ? `${head} ${body}` : head;
    });
    this.#pending.clear();
    this.#sending = this.#listen
      .query(`SELECT pg_notify('${EVENTS_CHANNEL}', p) FROM unnest($1::text[]) p`, [payloads])
      .then(
        () => undefined,
        // the watchers' polling picks the events up
        (error: unknown) => this.#warn("could not notify events", error),
      )
      .finally(() => {
        this.#sending = undefined;
      });
    await this.#sending;
  }

  #onNotification(message: pg.Notification): void {
    const text = message.payload ?? "";
    const first = text.indexOf(" ");
    if (first <= 0) return;
    const id = text.slice(0, first);
    if (message.channel === CONTROL_CHANNEL) {
      const control = decodeSessionControl(text.slice(first + 1));
      if (control === undefined) return;
      for (const listener of this.#controls) listener(id, control);
    } else if (message.channel === EVENTS_CHANNEL) {
      const listeners = this.#watchers.get(id);
      if (listeners === undefined) return;
      const second = text.indexOf(" ", first + 1);
      const sequence = Number(text.slice(first + 1, second < 0 ? undefined : second));
      if (!Number.isSafeInteger(sequence)) return;
      const events = second < 0 ? undefined : parseEvents(id, text.slice(second + 1));
      for (const listener of listeners) listener(sequence, events);
    }
  }

  async #startListening(client: pg.Client): Promise<void> {
    client.on("notification", (message) => this.#onNotification(message));
    client.on("error", (error) => this.#warn("the listen connection failed", error));
    client.on("end", () => {
      if (!this.#closed) void this.#reconnectListen();
    });
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    await client.query(`LISTEN ${CONTROL_CHANNEL}`);
  }

  async #reconnectListen(): Promise<void> {
    while (!this.#closed) {
      const client = new pg.Client({ connectionString: this.#url });
      try {
        await client.connect();
        this.#listen = client;
        await this.#startListening(client);
        return;
      } catch (error) {
        this.#warn("could not reconnect the listen connection", error);
        await client.end().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, this.pollIntervalMs));
      }
    }
  }

  #watchLease(client: pg.Client): void {
    client.on("error", (error) => this.#warn("the lease connection failed", error));
    client.on("end", () => {
      if (this.#closed) return;
      // every advisory lock went with the connection: this instance holds no lease any more
      this.#held.clear();
      const next = new pg.Client({ connectionString: this.#url });
      this.#lease = next;
      this.#watchLease(next);
      next.connect().catch((error: unknown) => this.#warn("could not reconnect leases", error));
    });
  }

  #warn(message: string, error: unknown): void {
    this.#logger?.warn(message, { error: error instanceof Error ? error.message : String(error) });
  }
}

/** The events a notification carried, or undefined when they do not parse (watchers then read). */
function parseEvents(sessionId: string, text: string): StoredEvent[] | undefined {
  try {
    const rows = JSON.parse(text) as unknown;
    if (!Array.isArray(rows)) return undefined;
    const events: StoredEvent[] = [];
    for (const row of rows) {
      if (!Array.isArray(row) || typeof row[0] !== "number" || typeof row[1] !== "string") {
        return undefined;
      }
      events.push({
        session_id: sessionId,
        sequence: row[0],
        name: row[1],
        payload: row[2],
        created_at: String(row[3]),
      });
    }
    return events;
  } catch {
    return undefined;
  }
}
