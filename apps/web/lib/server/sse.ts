import type { SessionEvent } from "@arbor/core";
import { DRAIN_RETRY_MS, drainSignal } from "./shutdown";

// Session events as Server-Sent Events. Each event is written as
//   id: <sequence>          (left out for unsequenced events, sequence 0: refusals, storage errors)
//   event: <name>
//   data: <JSON payload>
// The stream pulls the next events only when the client has taken the previous ones
// (backpressure: a slow client leaves events buffered in the session's channel, not in the
// socket). One pull takes every event that is ready at once (one store write emits several) into
// one chunk, so a burst costs one socket write instead of one per event. It ends when the events
// end, when `signal` aborts (the client went away), or when the server shuts down (with a
// `retry:` hint: the client reconnects, elsewhere behind a load balancer, and replays from its
// Last-Event-ID); in every case the iterator is returned so the session stops feeding it.

const encoder = new TextEncoder();

/** A chunk stops taking ready events at this size; the rest go in the next one. */
const CHUNK_CHARS = 64 * 1024;
const NOT_READY = Symbol("not ready");

export const HEARTBEAT_MS = 15_000;

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform keeps compression middleware (next start's gzip) from buffering the stream
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  // nginx and similar proxies buffer responses unless told not to
  "x-accel-buffering": "no",
};

export function formatSseEvent(event: SessionEvent): string {
  const id = event.sequence > 0 ? `id: ${event.sequence}\n` : "";
  return `${id}event: ${event.name}\ndata: ${JSON.stringify(event.payload)}\n\n`;
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
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let onAbort: (() => void) | undefined;
  let onDrain: (() => void) | undefined;
  const drain = drainSignal();
  /** a next() that was not ready when the previous chunk was cut: the next pull awaits it */
  let waiting: Promise<IteratorResult<SessionEvent>> | undefined;

  const finish = (controller?: ReadableStreamDefaultController<Uint8Array>): void => {
    if (closed) return;
    closed = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    if (onDrain) drain.removeEventListener("abort", onDrain);
    // stop the session feeding an iterator nobody reads; a pending next() resolves done
    void iterator.return?.()?.catch(() => undefined);
    if (controller) {
      try {
        controller.close();
      } catch {
        // already closed or errored by the runtime when the client went away
      }
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // a first comment sends the headers at once, so clients see the stream open
        controller.enqueue(encoder.encode(": stream open\n\n"));
        if (heartbeatMs > 0) {
          heartbeat = setInterval(() => {
            if (!closed) controller.enqueue(encoder.encode(": heartbeat\n\n"));
          }, heartbeatMs);
          // a heartbeat alone must not keep the process alive
          heartbeat.unref?.();
        }
        onAbort = () => finish(controller);
        if (options.signal?.aborted) finish(controller);
        else options.signal?.addEventListener("abort", onAbort, { once: true });
        onDrain = () => {
          if (closed) return;
          controller.enqueue(encoder.encode(`retry: ${DRAIN_RETRY_MS}\n\n`));
          finish(controller);
        };
        if (drain.aborted) onDrain();
        else drain.addEventListener("abort", onDrain, { once: true });
      },
      async pull(controller) {
        let text = "";
        let done = false;
        try {
          const first = await (waiting ?? iterator.next());
          waiting = undefined;
          if (first.done) done = true;
          else text = formatSseEvent(first.value);
          // then whatever is ready now, without waiting
          while (!done && text.length < CHUNK_CHARS) {
            const next = iterator.next();
            const ready = await Promise.race([next, Promise.resolve(NOT_READY)]);
            if (ready === NOT_READY) {
              waiting = next;
              break;
            }
            if (ready.done) done = true;
            else text += formatSseEvent(ready.value);
          }
        } catch {
          // the session's channels never throw; should another source, end the stream cleanly
          done = true;
        }
        if (closed) return;
        if (text !== "") controller.enqueue(encoder.encode(text));
        if (done) finish(controller);
      },
      cancel() {
        finish();
      },
    },
    // one event at a time: pull runs again only once the consumer has read what is queued
    { highWaterMark: 1 },
  );
}

export function sseResponse(events: AsyncIterable<SessionEvent>, options: SseOptions = {}) {
  return new Response(sseStream(events, options), { status: 200, headers: SSE_HEADERS });
}
