import type { ErrorEvent, SessionEvent } from "../../protocol/events.js";

// The concurrency pieces of the Session: an unbounded async channel (the live half of
// `events()`), an operation (its event channel and its typed result) and the per-session
// operation queue.

/**
 * A push-based AsyncIterable with one consumer. `push` never blocks (events are buffered until
 * read); `end` finishes the iteration after the buffered items. `return()` (a `break` in a
 * for-await) closes it at once, even while a `next()` is waiting, and calls `onClose`.
 */
export class Channel<T> implements AsyncIterableIterator<T> {
  readonly #buffer: T[] = [];
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #ended = false;
  readonly #onClose: (() => void) | undefined;

  constructor(onClose?: () => void) {
    this.#onClose = onClose;
  }

  get ended(): boolean {
    return this.#ended;
  }

  push(item: T): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting({ value: item, done: false });
    } else this.#buffer.push(item);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.#buffer.shift();
    if (item !== undefined || this.#buffer.length > 0) {
      return Promise.resolve({ value: item as T, done: false });
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /**
   * Up to `max` buffered items, oldest first, without waiting (possibly none): a consumer that
   * writes in batches (the web's SSE stream) takes what is ready in one go instead of paying a
   * promise per item. Same single consumer as `next()`.
   */
  takeBuffered(max = Number.POSITIVE_INFINITY): T[] {
    if (this.#buffer.length === 0) return [];
    return this.#buffer.splice(0, max);
  }

  return(): Promise<IteratorResult<T>> {
    this.#buffer.length = 0;
    const wasEnded = this.#ended;
    this.end();
    if (!wasEnded) this.#onClose?.();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

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

/** The channel of one operation's events, ended with the operation's result. */
export class OperationChannel<R> extends Channel<SessionEvent> implements Operation<R> {
  readonly result: Promise<OperationResult<R>>;
  #resolve: (result: OperationResult<R>) => void = () => {};

  constructor() {
    super();
    this.result = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Ends the events (after the buffered ones) and resolves the result. */
  finish(result: OperationResult<R>): void {
    this.#resolve(result);
    this.end();
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
