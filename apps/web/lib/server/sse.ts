import type { SessionEvent } from "@arbor/core";
import { DRAIN_RETRY_MS, drainSignal } from "./shutdown";

// Session events as Server-Sent Events. Each event is written as
//   id: <sequence>          (left out for unsequenced events, sequence 0: refusals, storage errors)
//   event: <name>
//   data: <JSON payload>
// Writes, one event-loop turn at a time (docs/decisions/0076): the first write of a turn goes out
// at once, with whatever its source already holds (one store write emits several events), so the
// first delta never waits; events that come later in the same turn are appended to one pending
// text and written as ONE chunk when the turn ends (setImmediate, which runs after the turn's I/O
// callbacks and all their microtasks). Each event is serialized once however many clients stream
// it: the session hands every subscriber the same event object, never changed after it is made,
// and its text is kept beside it (a WeakMap).
// Backpressure: a chunk is enqueued only while the client has room (one queued chunk); at most
// CHUNK_CHARS of read events wait here for a slow client, the rest stays in the session's channel,
// not in the socket. The stream ends when the events end, when `signal` aborts (the client went
// away), or when the server shuts down (with a `retry:` hint after what was read: the client
// reconnects, elsewhere behind a load balancer, and replays from its Last-Event-ID); in every case
// the iterator is returned so the session stops feeding it.

const encoder = new TextEncoder();

/** Read events wait for a slow client up to this size; the pump reads on once it is written. */
const CHUNK_CHARS = 64 * 1024;

export const HEARTBEAT_MS = 15_000;

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform keeps compression middleware (next start's gzip) from buffering the stream
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  // nginx and similar proxies buffer responses unless told not to
  "x-accel-buffering": "no",
};

/** Each event's text, computed once for every client that streams it (events are immutable). */
const formatted = new WeakMap<SessionEvent, string>();

export function formatSseEvent(event: SessionEvent): string {
  const cached = formatted.get(event);
  if (cached !== undefined) return cached;
  const id = event.sequence > 0 ? `id: ${event.sequence}\n` : "";
  const text = `${id}event: ${event.name}\ndata: ${JSON.stringify(event.payload)}\n\n`;
  formatted.set(event, text);
  return text;
}

/** A source that can also hand over what it holds without waiting (core's EventStream). */
interface BufferedSource {
  takeBuffered(max: number): SessionEvent[];
}

function isBuffered(iterator: object): iterator is BufferedSource {
  return typeof (iterator as Partial<BufferedSource>).takeBuffered === "function";
}

export interface SseOptions {
  /** the request's signal: aborts when the client disconnects */
  signal?: AbortSignal;
  /** a comment line this often keeps proxies from closing an idle stream; 0 = none */
  heartbeatMs?: number;
}

export function sseStream(
  events: AsyncIterable<SessionEvent>,
  options: SseOptions = {},
): ReadableStream<Uint8Array> {
  const iterator = events[Symbol.asyncIterator]();
  const buffered = isBuffered(iterator) ? iterator : undefined;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let onAbort: (() => void) | undefined;
  let onDrain: (() => void) | undefined;
  const drain = drainSignal();
  /** the text of events read but not yet written, in order */
  let pending = "";
  /** a chunk went out in this event-loop turn: later events wait for the turn's end */
  let wroteThisTurn = false;
  /** the pump waits here for the client to take what is queued (a full pending text) */
  let demand: (() => void) | undefined;

  const wake = (): void => {
    const waiting = demand;
    demand = undefined;
    waiting?.();
  };

  const finish = (controller?: ReadableStreamDefaultController<Uint8Array>): void => {
    if (closed) return;
    closed = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    if (onDrain) drain.removeEventListener("abort", onDrain);
    // stop the session feeding an iterator nobody reads; a pending next() resolves done
    void iterator.return?.()?.catch(() => undefined);
    wake();
    if (controller) {
      try {
        controller.close();
      } catch {
        // already closed or errored by the runtime when the client went away
      }
    }
  };

  /** Enqueues `text`; a stream the runtime already closed (the client left) ends this one. */
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, text: string): void => {
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish(controller);
    }
  };

  /** Writes what is pending when the client has room; returns whether nothing is left. */
  const write = (controller: ReadableStreamDefaultController<Uint8Array>): boolean => {
    if (pending === "" || closed) return true;
    if ((controller.desiredSize ?? 0) <= 0) return false;
    // cleared first: enqueue may call pull() at once
    const text = pending;
    pending = "";
    send(controller, text);
    return true;
  };

  /** The turn's first write goes now; the rest of the turn's events, when it ends. */
  const writeInTurn = (controller: ReadableStreamDefaultController<Uint8Array>): void => {
    if (wroteThisTurn || pending === "" || !write(controller)) return;
    wroteThisTurn = true;
    setImmediate(() => {
      wroteThisTurn = false;
      // no room now: pull() writes it once the client has taken what is queued
      writeInTurn(controller);
    });
  };

  /** Reads the events and writes them a turn at a time (see the top of this file). */
  const pump = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    try {
      for (;;) {
        // a full pending text waits for the client before anything more is read
        while (pending.length >= CHUNK_CHARS && !closed && !write(controller)) {
          await new Promise<void>((resolve) => {
            demand = resolve;
          });
        }
        if (closed) return;
        const next = await iterator.next();
        if (closed) return;
        if (next.done) break;
        pending += formatSseEvent(next.value);
        // what the source already holds goes with it, up to a chunk's size
        while (buffered !== undefined && pending.length < CHUNK_CHARS) {
          const [ready] = buffered.takeBuffered(1);
          if (ready === undefined) break;
          pending += formatSseEvent(ready);
        }
        writeInTurn(controller);
      }
    } catch {
      // the session's channels never throw; should another source, end the stream cleanly
    }
    if (closed) return;
    // the end: what is pending is written even when the client is behind (it is bounded)
    const rest = pending;
    pending = "";
    if (rest !== "") send(controller, rest);
    finish(controller);
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // a first comment sends the headers at once, so clients see the stream open
        controller.enqueue(encoder.encode(": stream open\n\n"));
        if (heartbeatMs > 0) {
          heartbeat = setInterval(() => {
            if (!closed) send(controller, ": heartbeat\n\n");
          }, heartbeatMs);
          // a heartbeat alone must not keep the process alive
          heartbeat.unref?.();
        }
        onAbort = () => finish(controller);
        if (options.signal?.aborted) finish(controller);
        else options.signal?.addEventListener("abort", onAbort, { once: true });
        onDrain = () => {
          if (closed) return;
          // what was read goes first: the client's Last-Event-ID then names the last of it
          const rest = pending;
          pending = "";
          send(controller, `${rest}retry: ${DRAIN_RETRY_MS}\n\n`);
          finish(controller);
        };
        if (drain.aborted) onDrain();
        else drain.addEventListener("abort", onDrain, { once: true });
        if (!closed) void pump(controller);
      },
      pull(controller) {
        // the client took what was queued: what waited for room goes now
        writeInTurn(controller);
        wake();
      },
      cancel() {
        finish();
      },
    },
    // one chunk queued at a time: the pump reads on only once the client has taken it
    { highWaterMark: 1 },
  );
}

export function sseResponse(events: AsyncIterable<SessionEvent>, options: SseOptions = {}) {
  return new Response(sseStream(events, options), { status: 200, headers: SSE_HEADERS });
}
