// One push-based async stream serves provider streams, agent streams and a session's event
// streams (its live `events()`, each operation's events) alike: the only one in core.
//
// Contract:
// - `push` never blocks and never throws; events are buffered without bound and delivered in order.
// - `end(result)` closes the stream; pushes after it are dropped and ending twice is a no-op.
// - `result()` resolves with the value given to `end` (whether or not anyone iterates).
// - Single consumer: either `for await` (or `next()`), or the batch API `takeBuffered()` +
//   `waitForEvents()`, which lets a hot consumer (the agent loop reading a provider) handle every
//   buffered event synchronously instead of paying one promise and one microtask per event.
// - A consumer that stops early (`break` out of `for await` → `return()`) detaches, at once even
//   while a `next()` is waiting: later events are dropped rather than buffered for nobody, `ended`
//   turns true (so a producer can stop), the constructor's `onDetach` is called once (when the
//   stream had not ended), and `result()` still resolves when the producer ends.

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

export class EventStream<T, R = void> implements AsyncIterableIterator<T> {
  private buffer: T[] = [];
  /** index of the next undelivered event in `buffer` */
  private head = 0;
  /** a `next()` caller waiting for an event (only while the buffer is empty) */
  private waiter: ((result: IteratorResult<T, undefined>) => void) | undefined;
  /** a batch consumer waiting in `waitForEvents()` */
  private batchWaiter: (() => void) | undefined;
  private finished = false;
  private detached = false;
  private readonly resultPromise: Promise<R>;
  private resolveResult!: (value: R) => void;
  private readonly onDetach: (() => void) | undefined;

  /** `onDetach`: called when the consumer stops before the stream ended (an unsubscribe). */
  constructor(onDetach?: () => void) {
    this.onDetach = onDetach;
    this.resultPromise = new Promise<R>((resolve) => {
      this.resolveResult = resolve;
    });
  }

  push(event: T): void {
    if (this.finished || this.detached) return;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter({ value: event, done: false });
      return;
    }
    this.buffer.push(event);
    const batchWaiter = this.batchWaiter;
    if (batchWaiter !== undefined) {
      this.batchWaiter = undefined;
      batchWaiter();
    }
  }

  end(result: R): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveResult(result);
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(DONE);
    }
    const batchWaiter = this.batchWaiter;
    if (batchWaiter !== undefined) {
      this.batchWaiter = undefined;
      batchWaiter();
    }
  }

  /** The value given to `end`. */
  result(): Promise<R> {
    return this.resultPromise;
  }

  /**
   * true once `end` was called or the consumer stopped: pushes are dropped from now on (buffered
   * events may still be waiting to be read).
   */
  get ended(): boolean {
    return this.finished || this.detached;
  }

  /** true once ended and every buffered event was read. */
  get isDone(): boolean {
    return this.finished && this.head >= this.buffer.length;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    const buffer = this.buffer;
    if (this.head < buffer.length) {
      const value = buffer[this.head++] as T;
      if (this.head === buffer.length) {
        buffer.length = 0;
        this.head = 0;
      } else if (this.head >= 4096) {
        // a consumer that stays behind would otherwise keep every delivered event alive
        buffer.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.finished || this.detached) return Promise.resolve(DONE);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Consumer stopped early: drop what is buffered and whatever comes later. */
  return(): Promise<IteratorResult<T, undefined>> {
    const first = !this.detached && !this.finished;
    this.detached = true;
    this.buffer = [];
    this.head = 0;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(DONE);
    }
    if (first) this.onDetach?.();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Batch API: the buffered events (at most `max`), oldest first (possibly none). Never blocks.
   * A consumer that writes in batches (the web's SSE stream) takes what is ready in one go.
   */
  takeBuffered(max = Number.POSITIVE_INFINITY): T[] {
    if (this.head >= this.buffer.length) return [];
    if (this.buffer.length - this.head > max) {
      const some = this.buffer.slice(this.head, this.head + max);
      this.head += some.length;
      return some;
    }
    const out = this.head === 0 ? this.buffer : this.buffer.slice(this.head);
    this.buffer = [];
    this.head = 0;
    return out;
  }

  /** Batch API: resolves once an event is buffered or the stream has ended. */
  waitForEvents(): Promise<void> {
    if (this.head < this.buffer.length || this.finished) return Promise.resolve();
    return new Promise((resolve) => {
      this.batchWaiter = resolve;
    });
  }
}
