import type { AgentEvent } from "./types.js";

/**
 * Where a loop writes its events. An EventStream is one; so is any caller-owned object with a
 * `push`, which lets one sink collect the events of many runs (REQ-144).
 *
 * Backpressure (pi-mono's `await emit(event)`): when `push` returns a promise, the loop waits for
 * it before its next step, so a sink that persists each event sees them in order, each one after
 * the previous one's write, with no ordering of its own. Streamed deltas that a provider hands
 * over together (one read, many events) are mapped in one go and the loop waits once for the
 * batch: `pushAfter` still gives the sink each event only after the previous one's promise has
 * settled, and the loop reads nothing more from the provider until the last one has. A sink that
 * returns nothing costs the loop nothing (no await on the streaming hot path). Two kinds of event are pushed from outside
 * the loop's own sequence and are not waited for one by one: a running tool's updates and
 * progress (the tool does not wait for them; the loop waits for them all before that call's
 * toolExecutionEnd), and the events of tool calls run in parallel (they interleave).
 *
 * `push` must not throw and its promise must not reject: a sink that fails is a bug the loop can
 * only log (it then ends the run).
 */
export interface AgentEventSink {
  push(event: AgentEvent): void | PromiseLike<void>;
}

/** The waiting a push asks for: undefined when the sink returned nothing (the fast path). */
export type SinkWait = PromiseLike<void> | undefined;

/**
 * Pushes `event` after `waiting` (a push still in flight), for code that cannot await between two
 * pushes (a synchronous event mapper): returns what the caller must await before its next step.
 */
export function pushAfter(sink: AgentEventSink, waiting: SinkWait, event: AgentEvent): SinkWait {
  if (waiting === undefined) return push(sink, event);
  return waiting.then(() => sink.push(event));
}

/** `sink.push(event)`, typed as what to await: a `void` return is undefined at run time. */
export function push(sink: AgentEventSink, event: AgentEvent): SinkWait {
  return sink.push(event) as SinkWait;
}
