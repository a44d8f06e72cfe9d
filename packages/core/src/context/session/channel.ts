import { EventStream } from "../../agent/event-stream.js";
import type { ErrorEvent, SessionEvent } from "../../protocol/events.js";

// The concurrency pieces of the Session: an operation (its events, an EventStream, and its typed
// result) and the per-session operation queue. The live half of `events()` is an EventStream too
// (agent/event-stream.ts, the one async-stream primitive of core).

/** The refusal or failure an operation reported as its one `error` event. */
export type OperationError = Omit<ErrorEvent, "context_id">;

/** What an operation ended with: its typed value, or the error it reported. */
export type OperationResult<R> = { ok: true; value: R } | { ok: false; error: OperationError };

/**
 * A session operation: its events as they happen (iterate it; each has its store sequence) and
 * its typed result, which callers read by field instead of digging through the events.
 */
export interface Operation<R> extends AsyncIterable<SessionEvent> {
  /** Resolves once the operation has ended, whether or not its events are read. Never rejects. */
  readonly result: Promise<OperationResult<R>>;
}

/**
 * The channel of one operation's events, ended with the operation's result: an EventStream of its
 * events (push, iterate) beside the result's promise.
 */
export class OperationChannel<R> implements Operation<R> {
  readonly result: Promise<OperationResult<R>>;
  readonly #events = new EventStream<SessionEvent>();
  #resolve: (result: OperationResult<R>) => void = () => {};

  constructor() {
    this.result = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Adds an event (never blocks; dropped once the operation finished or its reader stopped). */
  push(event: SessionEvent): void {
    this.#events.push(event);
  }

  /** Ends the events (after the buffered ones) and resolves the result. */
  finish(result: OperationResult<R>): void {
    this.#resolve(result);
    this.#events.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    return this.#events;
  }
}

/**
 * Runs operations one after another, never interleaved: an operation starts when the previous one
 * has finished (whatever its outcome). A failing operation does not block the queue.
 */
export class OperationQueue {
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;

  /** operations queued or running */
  get size(): number {
    return this.#pending;
  }

  enqueue(operation: () => Promise<void>): Promise<void> {
    this.#pending++;
    const run = this.#tail.then(operation).finally(() => {
      this.#pending--;
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** resolves when everything queued so far has finished */
  idle(): Promise<void> {
    return this.#tail;
  }
}
