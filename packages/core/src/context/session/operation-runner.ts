import { type PersonRef, personRef } from "../../model/person.js";
import type { ContextState } from "../../model/states.js";
import { BranchOpError } from "../branches/errors.js";
import {
  type Operation,
  OperationChannel,
  type OperationError,
  OperationQueue,
  type OperationResult,
} from "./channel.js";
import {
  OperationRejected,
  RESTING_STATES,
  StorageFailure,
  type StoredSession,
} from "./stored-session.js";

// The operation runner (docs/decisions/0067): a session's operations one after another, never
// interleaved. Each runs with the session's events piped into its stream, an abort signal (the
// caller's and `interrupt`'s), the person it acts for as the session's operator, and one `error`
// event (the session moved to a resting state) when it fails. Refuses every operation once a
// delete or a drain has begun. With several instances it runs each operation under the session's
// lease (`lease`, given by instance-forwarding.ts); with one instance there is no lease at all.

/**
 * The session as last read. Shared by the session's parts: the forwarding part replaces `core`
 * when another instance has changed the session since it was read.
 */
export interface CoreRef {
  core: StoredSession;
}

/**
 * Whom an operation acts for: the person who sends, decides, resumes … (the web app's actor).
 * Recorded as the `decided_by` of the calls it decides and the `startedBy` of the runs it starts;
 * their token budget (SessionDeps.tokenBudget) bounds its model requests. Absent: nobody.
 */
export interface ActsFor {
  by?: PersonRef | null | undefined;
}

export function byOf(options: ActsFor): PersonRef | null {
  return options.by ? personRef(options.by) : null;
}

export interface RunnerHooks {
  /**
   * Several instances only: takes the session's lease before the operation runs (refusing it
   * when another instance holds it) and returns its release; absent with one instance.
   */
  lease?: () => Promise<() => Promise<void>>;
  /** the chores after an operation (after-operation.ts), once its stream has ended */
  after: () => void;
}

export class OperationRunner {
  readonly #ref: CoreRef;
  readonly #hooks: RunnerHooks;
  readonly #queue = new OperationQueue();
  #operationAbort: AbortController | undefined;
  /** operations started and not finished (queued or running) */
  #active = 0;
  /** the last sequence before the running operation's first event; undefined when none runs */
  #operationFrom: number | undefined;
  /** set by SessionManager.delete before it waits: no operation is accepted any more */
  deleting = false;

  constructor(ref: CoreRef, hooks: RunnerHooks) {
    this.#ref = ref;
    this.#hooks = hooks;
  }

  /** operations started and not finished (queued or running) */
  get active(): number {
    return this.#active;
  }
  /** operations queued or running in the queue */
  get queued(): number {
    return this.#queue.size;
  }
  /** the last sequence before the running operation's first event; undefined when none runs */
  get operationFrom(): number | undefined {
    return this.#operationFrom;
  }
  /**
   * The server is shutting down (SessionManager.drain sets it for every session of the manager at
   * once): operations started from now on are refused like during a delete, but the running one
   * goes on and nothing is aborted.
   */
  get refusing(): boolean {
    return this.deleting || this.#ref.core.deps.lifecycle.draining;
  }
  /** resolves when everything queued so far has finished */
  idle(): Promise<void> {
    return this.#queue.idle();
  }
  /** aborts the running operation's signal (interrupt) */
  abortRunning(): void {
    this.#operationAbort?.abort();
  }

  /** Queues `run` as an operation of the session (see the header). */
  operation<R>(
    run: (signal: AbortSignal) => Promise<R>,
    options: { signal?: AbortSignal | undefined } & ActsFor = {},
  ): Operation<R> {
    const callerSignal = options.signal;
    const by = byOf(options);
    const channel = new OperationChannel<R>();
    // checked when the operation is started, not when it runs: nothing is queued behind a delete
    if (this.refusing) return this.refused(channel);
    this.#active++;
    void this.#queue.enqueue(async () => {
      let release: (() => Promise<void>) | undefined;
      let refused: unknown;
      if (this.#hooks.lease) {
        try {
          release = await this.#hooks.lease();
        } catch (error) {
          refused = error;
        }
      }
      const core = this.#ref.core;
      const unsubscribe = core.subscribe((event) => channel.push(event));
      const abort = new AbortController();
      this.#operationAbort = abort;
      this.#operationFrom = core.lastSequence;
      const onCallerAbort = (): void => abort.abort();
      callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
      if (callerSignal?.aborted) abort.abort();
      let result: OperationResult<R>;
      core.operator = by;
      try {
        if (refused !== undefined) throw refused;
        result = { ok: true, value: await run(abort.signal) };
      } catch (error) {
        result = { ok: false, error: await this.#onOperationError(error) };
      } finally {
        core.operator = null;
        this.#operationAbort = undefined;
        this.#operationFrom = undefined;
        callerSignal?.removeEventListener("abort", onCallerAbort);
        unsubscribe();
        // counted down before the stream ends: a client that sends right after the stream
        // ended finds the session not working
        this.#active--;
      }
      await release?.();
      channel.finish(result);
      this.#hooks.after();
    });
    return channel;
  }

  /** Ends `channel` at once with the refusal of a session being deleted or drained. */
  refused<R>(channel: OperationChannel<R>): OperationChannel<R> {
    const core = this.#ref.core;
    const error: OperationError = {
      code: "invalid_transition",
      message: this.deleting
        ? `session ${core.id} is being deleted`
        : "this instance is shutting down; retry (another instance answers)",
      recoverable: !this.deleting,
    };
    channel.push({ name: "error", sequence: 0, payload: { context_id: core.id, ...error } });
    channel.finish({ ok: false, error });
    return channel;
  }

  /** Reports `error` as the operation's one `error` event and rests the session; returns it. */
  async #onOperationError(error: unknown): Promise<OperationError> {
    const core = this.#ref.core;
    const reported = this.reportedError(error);
    core.emitUnsequenced(core.errorEvent(reported.code, reported.message, reported.recoverable));
    // another instance runs it: its state is that instance's to change
    if (error instanceof BusyElsewhere) return reported;
    if (RESTING_STATES.has(core.state.type)) return reported;
    // an operation that stopped half-way: move to a resting state if the store lets us
    const failed: ContextState = {
      type: "Failed",
      error: error instanceof Error ? error.message : String(error),
      recoverable: true,
    };
    try {
      await core.commit({ reset: failed, events: [core.contextUpdateEvent(failed, core.state)] });
    } catch (restError) {
      core.deps.logger.error("could not store the Failed state after an error", {
        session: core.id,
        error: String(restError),
      });
    }
    return reported;
  }

  /** The error an operation reports for `error` (logged when it is the server's fault). */
  reportedError(error: unknown): OperationError {
    const core = this.#ref.core;
    if (error instanceof OperationRejected) {
      return { code: error.code, message: error.message, recoverable: true };
    }
    if (error instanceof BranchOpError) {
      return { code: "invalid_request", message: error.message, recoverable: true };
    }
    if (error instanceof StorageFailure) {
      core.deps.logger.error("session storage failure", { session: core.id, error: error.message });
      return { code: "storage", message: error.message, recoverable: true };
    }
    const message = error instanceof Error ? error.message : String(error);
    core.deps.logger.error("session operation failed", { session: core.id, error: message });
    return { code: "internal", message, recoverable: false };
  }
}

/** Another instance holds the session's lease: refused (409) without touching the session. */
export class BusyElsewhere extends OperationRejected {
  constructor(message: string) {
    super("invalid_transition", message);
    this.name = "BusyElsewhere";
  }
}
