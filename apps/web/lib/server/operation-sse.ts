import { isBusyElsewhere, type Operation, type SessionEvent } from "@arbor/core";
import { conflict } from "./http";
import type { Runtime } from "./runtime";
import { type SseOptions, sseResponse } from "./sse";

// An operation's events as SSE. With several instances (a coordinator, PostgreSQL) an operation
// on a session another instance runs is refused before anything happens: that refusal is its first
// event, and it is answered 409 instead of a stream (issue #17). Without a coordinator the stream
// starts at once, as before.

export async function operationResponse(
  runtime: Runtime,
  operation: Operation<unknown>,
  options: SseOptions = {},
): Promise<Response> {
  if (runtime.coordinator === undefined) return sseResponse(operation, options);
  const iterator = operation[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (
    !first.done &&
    first.value.name === "error" &&
    first.value.sequence === 0 &&
    isBusyElsewhere(first.value.payload.message)
  ) {
    await iterator.return?.();
    return conflict(first.value.payload.message);
  }
  const rest: AsyncIterable<SessionEvent> = {
    [Symbol.asyncIterator]: () => {
      let pending: IteratorResult<SessionEvent> | undefined = first;
      return {
        next: () => {
          if (pending !== undefined) {
            const value = pending;
            pending = undefined;
            return Promise.resolve(value);
          }
          return iterator.next();
        },
        return: async () => {
          pending = undefined;
          await iterator.return?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
  return sseResponse(rest, options);
}
