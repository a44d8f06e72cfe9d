import { copyData } from "../model/copy-data.js";
import { applyLifecycleUpdate, describeLifecycleUpdateError } from "../model/message-lifecycle.js";
import type { BodyOf, ContextMessage, MessageType } from "../model/message-types.js";
import type { MessageLifecycleUpdate } from "../store/types.js";

// The session's immutable message pool (context-manager "Branch Management": branches share one
// pool and are only ordered lists of ids). Contracts:
// - A message's content never changes once added. Every pooled message is deep-frozen, so an
//   accidental `message.body.text = …` throws in strict mode instead of silently rewriting history.
// - Only lifecycle fields move on, through `updateLifecycle`, which swaps in a new frozen object.
// - Reading never copies: `get`, `resolve` and `ofType` hand out the pooled objects themselves and
//   walk the caller's id list lazily, so retrieval by type over a 1,000-message branch allocates
//   nothing per message it skips.

/** A pooled message whose body is known to be of type T. */
export type MessageOf<T extends MessageType> = ContextMessage & { body: BodyOf<T> };

export type MessagePoolErrorCode = "duplicate_id" | "not_found" | "invalid_update";

export class MessagePoolError extends Error {
  readonly code: MessagePoolErrorCode;
  constructor(code: MessagePoolErrorCode, message: string) {
    super(message);
    this.name = "MessagePoolError";
    this.code = code;
  }
}

/** Freezes objects and arrays all the way down. Already-frozen subtrees are skipped (shared bodies). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) {
    deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function isOfType<T extends MessageType>(
  message: ContextMessage,
  type: T,
): message is MessageOf<T> {
  return message.body.message_type === type;
}

export class MessagePool {
  /** insertion order is the pool's order (Map iteration order) */
  readonly #messages = new Map<string, ContextMessage>();

  /** A pool holding `messages` (e.g. a loaded session), in the given order. */
  static from(messages: Iterable<ContextMessage>): MessagePool {
    const pool = new MessagePool();
    for (const message of messages) pool.add(message);
    return pool;
  }

  get size(): number {
    return this.#messages.size;
  }

  /**
   * Adds a copy of `message` (the caller keeps its own object) and returns the frozen pooled one.
   * A duplicate id is an error: content is immutable, so there is nothing to "replace".
   */
  add(message: ContextMessage): ContextMessage {
    if (this.#messages.has(message.id)) {
      throw new MessagePoolError("duplicate_id", `message ${message.id} is already in the pool`);
    }
    const pooled = deepFreeze(copyData(message));
    this.#messages.set(pooled.id, pooled);
    return pooled;
  }

  has(id: string): boolean {
    return this.#messages.has(id);
  }

  get(id: string): ContextMessage | undefined {
    return this.#messages.get(id);
  }

  /** Like `get`, but a missing id is an error (a branch naming a message the pool lacks). */
  require(id: string): ContextMessage {
    const message = this.#messages.get(id);
    if (message === undefined) {
      throw new MessagePoolError("not_found", `message ${id} is not in the pool`);
    }
    return message;
  }

  /**
   * Applies a lifecycle update (status, approvals, completed_at, meta) and returns the new frozen
   * message, which replaces the old one in the pool at the same position. Content is untouched:
   * the body is reused as is unless approvals change, and then only the calls' approval fields
   * differ. Throws "not_found" for an unknown id and "invalid_update" for approvals on a message
   * that is not a tool request or for an unknown tool call id; nothing changes then.
   */
  updateLifecycle(update: MessageLifecycleUpdate): ContextMessage {
    const current = this.require(update.id);
    const result = applyLifecycleUpdate(current, update);
    if (!result.ok) {
      throw new MessagePoolError("invalid_update", describeLifecycleUpdateError(result.error));
    }
    const next = deepFreeze(result.message);
    // Map.set on an existing key keeps its insertion position.
    this.#messages.set(next.id, next);
    return next;
  }

  /** Every pooled message in insertion order. */
  values(): IterableIterator<ContextMessage> {
    return this.#messages.values();
  }

  [Symbol.iterator](): IterableIterator<ContextMessage> {
    return this.#messages.values();
  }

  /**
   * The messages named by `ids` (a branch's list), in that order, read lazily from the caller's
   * array. Throws "not_found" when an id is not pooled.
   */
  *resolve(ids: readonly string[]): Generator<ContextMessage, void, undefined> {
    for (let i = 0; i < ids.length; i++) {
      yield this.require(ids[i]!);
    }
  }

  /**
   * The messages of one type among `ids`, in the order of `ids`, as the pooled objects themselves.
   * Lazy: stopping early reads no further ids. Throws "not_found" when an id is not pooled.
   */
  *ofType<T extends MessageType>(
    type: T,
    ids: readonly string[],
  ): Generator<MessageOf<T>, void, undefined> {
    for (let i = 0; i < ids.length; i++) {
      const message = this.require(ids[i]!);
      if (isOfType(message, type)) yield message;
    }
  }
}
