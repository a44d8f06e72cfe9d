import type { Branch } from "../../model/branch.js";
import type { ContextMessage } from "../../model/message-types.js";
import { type SessionConfigInput, sessionConfig } from "../../model/session-config.js";
import { LoopRecorder } from "../../recording/recorder.js";
import { type SessionSummary, StoreError } from "../../store/types.js";
import { TELEMETRY_NAMES } from "../../telemetry/names.js";
import { inSpan } from "../../telemetry/spans.js";
import { withTraceparent } from "../../telemetry/trace-context.js";
import { importedMessages } from "../session-import.js";
import { type MessageMatch, searchWords } from "./message-search.js";
import { recoverSession } from "./recovery.js";
import { DEFAULT_SESSION_TITLE } from "./send-message.js";
import { Session } from "./session.js";
import { type ResolvedDeps, resolveDeps, type SessionDeps } from "./session-deps.js";
import { findLastSequence } from "./stored-events.js";
import { StoredSession } from "./stored-session.js";

// Creates, loads and caches sessions over a store. One Session per id per manager, so all
// callers of a session share its operation queue. `get` loads a stored session once and runs
// crash recovery on it before handing it out. Corrupt rows reported by the store are logged; the
// rest of the session loads. A cached session nobody has asked for in `idleSessionMs` and that is
// at rest (Session.atRest: nothing runs, waits or listens in it) leaves the cache, so a server's
// memory follows the sessions in use, not every session it has ever served; its next use reads it
// from the store again.

/**
 * The loop records share the store with the session's own writes; a run's first record waits this
 * long, so it does not delay the first model request (the operation's end flushes it anyway).
 */
export const LOOP_RECORD_WRITE_DELAY_MS = 100;

/** One message found by SessionManager.search, with the session it belongs to. */
export interface SessionSearchHit extends MessageMatch {
  session_id: string;
  session_title: string;
}

/** A session brought from a file (POST /api/sessions/import): see session-import.ts. */
export interface SessionImport {
  title?: string;
  config?: SessionConfigInput;
  /** the exported branch's messages, oldest first */
  messages: readonly ContextMessage[];
}

export class SessionManager {
  readonly #deps: ResolvedDeps;
  readonly #sessions = new Map<string, Promise<Session | undefined>>();
  /** when each cached session was last handed out (deps.now(), ms) */
  readonly #lastUsed = new Map<string, number>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(deps: SessionDeps) {
    const resolved = resolveDeps(deps);
    resolved.recorder ??= new LoopRecorder({
      sink: deps.store,
      logger: resolved.logger,
      writeDelayMs: LOOP_RECORD_WRITE_DELAY_MS,
    });
    this.#deps = resolved;
    // several instances: an interrupt, or an operation forwarded to the run (Session.#forward),
    // sent through another instance reaches the run here; a forwarded operation is answered
    const coordinator = resolved.coordinator;
    coordinator?.onControl((id, control) => {
      if (control.type === "answer") return;
      void this.#sessions.get(id)?.then(async (session) => {
        if (session === undefined || session.operationsHere === 0) return;
        if (control.type === "interrupt") {
          for await (const _event of session.interrupt()) {
            // drained: the events reach the watchers through the store
          }
          return;
        }
        // in the asker's trace (telemetry/): a span of its own, the operation's work inside it
        const answer = await withTraceparent(control.traceparent, () =>
          inSpan(
            TELEMETRY_NAMES.spans.forwardedOperation,
            {
              [TELEMETRY_NAMES.attributes.conversationId]: id,
              [TELEMETRY_NAMES.attributes.forwardedKind]: control.operation.kind,
            },
            () => session.runForwarded(control.operation),
          ),
        );
        coordinator.sendControl(id, { type: "answer", request_id: control.request_id, ...answer });
      });
    });
  }

  async create(input: { title?: string; config?: SessionConfigInput } = {}): Promise<Session> {
    const { record, branch } = this.#newRecord(input);
    await this.#deps.store.createSession(record, branch);
    const session = new Session(
      new StoredSession(
        { session: record, branches: [branch], messages: [], optimization_views: [], corrupt: [] },
        this.#deps,
      ),
      () => this.#loadCore(record.id),
    );
    this.#sessions.set(record.id, Promise.resolve(session));
    this.#used(record.id);
    return session;
  }

  /**
   * A new session holding an exported session's messages on its main branch, at rest. The
   * messages are stored in one write after the session row; when that write fails the session is
   * deleted again, so an import lands whole or not at all.
   */
  async import(input: SessionImport): Promise<Session> {
    const { record, branch } = this.#newRecord(input);
    const messages = importedMessages(input.messages, {
      sessionId: record.id,
      newId: this.#deps.newId,
      now: record.created_at,
    });
    await this.#deps.store.createSession(record, branch);
    try {
      if (messages.length > 0) {
        await this.#deps.store.write(record.id, {
          messages,
          branch_appends: [{ branch_id: branch.id, message_ids: messages.map((m) => m.id) }],
        });
      }
    } catch (error) {
      await this.#deps.store.deleteSession(record.id).catch(() => {});
      throw error;
    }
    const session = await this.get(record.id);
    if (!session) throw new Error(`the imported session ${record.id} did not load`);
    return session;
  }

  #newRecord(input: { title?: string; config?: SessionConfigInput }) {
    const deps = this.#deps;
    const now = deps.now().toISOString();
    const id = deps.newId();
    const branch: Branch = {
      id: deps.newId(),
      session_id: id,
      name: "main",
      parent_branch_id: null,
      fork_message_id: null,
      message_ids: [],
      merged_from: [],
      created_at: now,
      updated_at: now,
    };
    const record = {
      id,
      title: input.title ?? DEFAULT_SESSION_TITLE,
      config: sessionConfig(input.config),
      state: { type: "Idle" as const },
      active_branch_id: branch.id,
      created_at: now,
      updated_at: now,
    };
    return { record, branch };
  }

  /** The session, loaded (and recovered) on first use; undefined when it does not exist. */
  get(id: string): Promise<Session | undefined> {
    this.#used(id);
    let entry = this.#sessions.get(id);
    if (entry && this.#deps.coordinator) entry = this.#currentEntry(id, entry);
    if (!entry) {
      entry = this.#load(id);
      this.#sessions.set(id, entry);
      entry.then(
        (session) => {
          if (!session) this.#sessions.delete(id);
        },
        () => this.#sessions.delete(id),
      );
    }
    return entry;
  }

  /** Marks a session as just handed out, and keeps the idle sweep going while any is cached. */
  #used(id: string): void {
    const idleMs = this.#deps.idleSessionMs;
    if (idleMs <= 0) return;
    this.#lastUsed.set(id, this.#deps.now().getTime());
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => this.#sweep(), Math.max(1_000, Math.min(30_000, idleMs / 2)));
    // the sweep alone must not keep a process alive
    this.#sweeper.unref?.();
  }

  /** Drops the cached sessions at rest that nobody has asked for in `idleSessionMs`. */
  #sweep(): void {
    const idleMs = this.#deps.idleSessionMs;
    const idle = (id: string) =>
      this.#deps.now().getTime() - (this.#lastUsed.get(id) ?? 0) >= idleMs;
    for (const [id, entry] of this.#sessions) {
      if (!idle(id)) continue;
      entry.then(
        (session) => {
          // handed out again, replaced or deleted meanwhile, or not at rest: it stays
          if (this.#sessions.get(id) !== entry || !idle(id)) return;
          if (session !== undefined && !session.atRest) return;
          this.#sessions.delete(id);
          this.#lastUsed.delete(id);
        },
        () => undefined,
      );
    }
    for (const id of this.#lastUsed.keys()) if (!this.#sessions.has(id)) this.#lastUsed.delete(id);
    // the loop trees of the sessions no longer cached (dropped by an earlier sweep) leave the
    // recorder's memory too: they are in the store
    this.#deps.recorder?.releaseSettled((id) => this.#sessions.has(id));
    if (this.#sessions.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  /** How many sessions are cached (loaded or loading): for tests and benches. */
  get cachedSessions(): number {
    return this.#sessions.size;
  }

  /**
   * Several instances: a cached session is handed out only while an operation of this instance
   * runs in it (its queue must be shared); at rest it is read again, since another instance may
   * have changed it (issue #17: no long-lived caches of sessions owned elsewhere).
   */
  #currentEntry(
    id: string,
    entry: Promise<Session | undefined>,
  ): Promise<Session | undefined> | undefined {
    const fresh = entry.then(async (session) => {
      if (session === undefined || session.operationsHere > 0 || session.deleting) return session;
      if (this.#sessions.get(id) !== fresh) return session;
      return (await this.#load(id)) ?? undefined;
    });
    this.#sessions.set(id, fresh);
    fresh.then(
      (session) => {
        if (!session && this.#sessions.get(id) === fresh) this.#sessions.delete(id);
      },
      () => {
        if (this.#sessions.get(id) === fresh) this.#sessions.delete(id);
      },
    );
    return fresh;
  }

  /** The stored session as it is now, not recovered (see Session.#lease). */
  async #loadCore(id: string): Promise<StoredSession | undefined> {
    // several instances: the last sequence first: a write landing between the two reads makes it
    // older than the loaded rows, never newer, so Session.#lease sees events after it and reads
    // again (one process: nobody else writes, the order is as it always was)
    let lastSequence: number | undefined;
    if (this.#deps.coordinator !== undefined) {
      try {
        lastSequence = await findLastSequence(this.#deps.store, id);
      } catch (error) {
        if (error instanceof StoreError && error.code === "not_found") return undefined;
        throw error;
      }
    }
    const loaded = await this.#deps.store.loadSession(id);
    if (!loaded) return undefined;
    for (const row of loaded.corrupt) {
      this.#deps.logger.warn("skipping a corrupt stored row", { ...row });
    }
    // a config stored before a field existed gets its default (e.g. agent_mode → act)
    loaded.session.config = sessionConfig(loaded.session.config);
    const core = new StoredSession(loaded, this.#deps);
    core.lastSequence = lastSequence ?? (await findLastSequence(this.#deps.store, id));
    return core;
  }

  async #load(id: string): Promise<Session | undefined> {
    const coordinator = this.#deps.coordinator;
    let core: StoredSession | undefined;
    if (coordinator === undefined) {
      core = await this.#loadCore(id);
      if (core) await recoverSession(core);
    } else if (await coordinator.tryLease(id)) {
      // several instances: a session left mid-operation is recovered only under its lease (an
      // instance that holds it is running the operation, not crashed), and read under it, so
      // what is recovered is not a view from before another instance's operation ended
      try {
        core = await this.#loadCore(id);
        if (core) await recoverSession(core);
      } finally {
        await coordinator.release(id);
      }
    } else core = await this.#loadCore(id);
    if (!core) return undefined;
    return new Session(core, () => this.#loadCore(id));
  }

  /**
   * Shutdown (several instances: the next request goes to another instance): refuses every new
   * operation, waits up to `graceMs` for the running ones to end, then interrupts what still runs
   * (the partial answer is kept, the session rests Paused) and waits for that. Resolves once no
   * operation of this manager runs; its leases are then released.
   */
  async drain(graceMs: number): Promise<void> {
    // every session of this manager refuses new operations from now on, also one loaded later
    this.#deps.lifecycle.draining = true;
    const sessions = (
      await Promise.all([...this.#sessions.values()].map((entry) => entry.catch(() => undefined)))
    ).filter((session): session is Session => session !== undefined);
    const running = sessions.filter((session) => session.operationsHere > 0);
    const allIdle = Promise.all(running.map((session) => session.idle()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      allIdle.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!late) return;
    // An operation waiting on a call held for a person inside a child loop (a fold, a sub-agent, a
    // candidate) is not interrupted: that would deny the call. It is left as a crash leaves it,
    // and the next load (here or on another instance) recovers it with the call still waiting
    // (held-child-calls.ts, decision 0044).
    const interrupted = running.filter((s) => s.operationsHere > 0 && s.heldNestedCalls === 0);
    const left = running.filter((s) => s.operationsHere > 0 && s.heldNestedCalls > 0);
    this.#deps.logger.warn("interrupting the operations still running", {
      sessions: interrupted.map((s) => s.id),
      ...(left.length > 0 ? { left_waiting_for_a_person: left.map((s) => s.id) } : {}),
    });
    for (const session of interrupted) {
      for await (const _event of session.interrupt()) {
        // drained: the interrupt's events are stored
      }
    }
    await Promise.all(interrupted.map((session) => session.idle()));
  }

  list(): Promise<SessionSummary[]> {
    return this.#deps.store.listSessions();
  }

  /**
   * Full-text search over the messages of every session (every branch): the messages holding
   * every word of the query, newest first, at most `limit`. Loads each session once; only the
   * sessions `include` takes (the ones the person asking may see) when it is given.
   */
  async search(
    query: string,
    limit: number,
    include?: (sessionId: string) => boolean,
  ): Promise<SessionSearchHit[]> {
    const words = searchWords(query);
    if (words.length === 0) return [];
    const hits: SessionSearchHit[] = [];
    for (const summary of await this.list()) {
      if (include !== undefined && !include(summary.id)) continue;
      const session = await this.get(summary.id);
      if (!session) continue;
      for (const match of session.search(words)) {
        hits.push({ session_id: session.id, session_title: session.title, ...match });
      }
    }
    hits.sort((a, b) => b.message.created_at.localeCompare(a.message.created_at));
    return hits.slice(0, limit);
  }

  /**
   * Deletes a session and everything it holds. The session is marked first, so an operation
   * started while the delete waits for the running one is refused (Session.deleting);
   * operations accepted before it finish, then go with the session. A failed delete unmarks it.
   */
  async delete(id: string): Promise<void> {
    const session = await this.#sessions.get(id);
    session?.setDeleting(true);
    try {
      await session?.idle();
      await this.#deps.store.deleteSession(id);
    } catch (error) {
      session?.setDeleting(false);
      throw error;
    }
    this.#sessions.delete(id);
    this.#lastUsed.delete(id);
  }
}
