// Graceful shutdown (issue #17): on SIGTERM the server stops taking requests (503 with
// Retry-After, so a load balancer or client goes to another instance), ends every open event
// stream with a `retry:` hint (an EventSource reconnects, through the proxy, to an instance that is
// up, and replays from Last-Event-ID), lets running operations reach their end within
// ARBOR_SHUTDOWN_GRACE_MS (default 10 s; after that they are interrupted: the partial answer is
// kept, the session rests Paused), releases the sessions' leases and closes the store. Next's own
// SIGTERM handler then finds no open stream holding the server and exits; a hard timer makes the
// whole within grace + 5 s whatever happens.

/** the reconnect delay an ended stream tells its client, ms */
export const SHUTDOWN_RETRY_MS = 1000;

type StreamCloser = (retryMs: number) => void;

const KEY = Symbol.for("arbor.web.shutdown");
interface ShutdownState {
  draining: boolean;
  streams: Set<StreamCloser>;
}
const holder = globalThis as { [KEY]?: ShutdownState };
function state(): ShutdownState {
  holder[KEY] ??= { draining: false, streams: new Set() };
  return holder[KEY];
}

/** True once a shutdown has begun: no request is taken any more. */
export function draining(): boolean {
  return state().draining;
}

/** An open event stream: `close` ends it with a `retry:` hint. Returns the unregister function. */
export function trackStream(close: StreamCloser): () => void {
  const streams = state().streams;
  streams.add(close);
  return () => {
    streams.delete(close);
  };
}

/** How many event streams are open (tests). */
export function openStreams(): number {
  return state().streams.size;
}

/** Refuses new requests and ends every open event stream. Returns how many streams it ended. */
export function beginDrain(): number {
  const current = state();
  current.draining = true;
  const streams = [...current.streams];
  current.streams.clear();
  for (const close of streams) close(SHUTDOWN_RETRY_MS);
  return streams.length;
}

/** Forgets a drain (tests). */
export function resetDrain(): void {
  const current = state();
  current.draining = false;
  current.streams.clear();
}

export function shutdownGraceMs(env: Record<string, string | undefined>): number {
  const raw = env.ARBOR_SHUTDOWN_GRACE_MS?.trim();
  const value = raw ? Number(raw) : 10_000;
  return Number.isFinite(value) && value >= 0 ? value : 10_000;
}
