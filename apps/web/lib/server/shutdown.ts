import type { Runtime } from "./runtime";
import { shutdownTelemetry } from "./telemetry/telemetry";

// Graceful shutdown (issue #17, item 6). On SIGTERM or SIGINT the server:
// 1. stops taking operations: every request but a plain read (GET/HEAD, not an event stream) is
//    answered 503 `shutting_down` with `Retry-After` (http.ts and the proxy's gate ask
//    `isDraining()`), so a client tries again, through a load balancer on another instance;
// 2. ends every open event stream with a `retry:` hint (sse.ts listens to `drainSignal()`), so the
//    clients reconnect at once and replay from Last-Event-ID instead of watching a dead stream;
// 3. lets the running operations finish for up to ARBOR_SHUTDOWN_GRACE_MS (default 5 s), then
//    interrupts the rest: a partial answer is kept, marked incomplete, and /resume continues it;
// 4. closes the runtime (store, MCP servers, tool processes), then flushes the OpenTelemetry
//    export (the last runs' spans and a final metric export; telemetry/telemetry.ts), then exits
//    (143 for SIGTERM, 130 for SIGINT): within the grace plus 3 × CLOSE_MS whatever happens.
// Next's own handler would close the HTTP server and wait for every open request, which an idle
// event stream never ends; so ours takes its place (installed from instrumentation.ts) and calls
// it at the end, when nothing is open any more.

/** the `retry:` an ended stream carries: reconnect after this long */
export const DRAIN_RETRY_MS = 1_000;
const DEFAULT_GRACE_MS = 5_000;
/** what interrupting and closing may take after the grace, before the process exits anyway */
const CLOSE_MS = 5_000;

interface DrainState {
  draining: boolean;
  readonly streams: AbortController;
}

// on globalThis: proxy.ts and the route handlers are separate bundles of one process
const KEY = Symbol.for("arbor.web.drain");
type Holder = { [KEY]?: DrainState };

function drainState(): DrainState {
  const holder = globalThis as Holder;
  holder[KEY] ??= { draining: false, streams: new AbortController() };
  return holder[KEY];
}

/** True once a shutdown has begun: operations and new event streams are refused. */
export function isDraining(): boolean {
  return drainState().draining;
}

/** Aborts when a shutdown begins: every open event stream ends then. */
export function drainSignal(): AbortSignal {
  return drainState().streams.signal;
}

/** Whether a request may still be served while draining: a plain read, not an event stream. */
export function servedWhileDraining(method: string, pathname: string): boolean {
  const read = method === "GET" || method === "HEAD";
  return read && !pathname.endsWith("/events");
}

export function graceMs(env: Record<string, string | undefined>): number {
  const value = Number(env.ARBOR_SHUTDOWN_GRACE_MS);
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_GRACE_MS;
}

/**
 * Drains the server: refuses operations, ends the event streams, waits up to `grace` ms for the
 * running operations, interrupts the rest and closes the runtime. Resolves when all is done.
 */
export async function drain(runtime: Runtime | undefined, grace: number): Promise<void> {
  const state = drainState();
  if (state.draining) return;
  state.draining = true;
  state.streams.abort();
  if (runtime === undefined) {
    await within(CLOSE_MS, shutdownTelemetry());
    return;
  }
  runtime.logger.info("shutting down", { grace_ms: grace });
  // the manager refuses new operations, waits for the running ones and interrupts the late ones;
  // several instances (docs/decisions/0030): only what runs here, another instance's sessions are
  // its own to finish
  await within(grace + CLOSE_MS, runtime.manager.drain(grace));
  await within(CLOSE_MS, runtime.close()).catch(() => undefined);
  // after the runtime: the spans of the operations interrupted above end in its close
  await within(CLOSE_MS, shutdownTelemetry());
}

/** True when `work` settled within `ms`. */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Takes over SIGTERM and SIGINT from Next's handler (kept, and called once drained, so Next still
 * closes its server and exits as it does). Call once, at start (instrumentation.ts).
 */
export function installShutdown(runtime: () => Promise<Runtime | undefined>): void {
  const next = new Map<NodeJS.Signals, NodeJS.SignalsListener[]>();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    next.set(signal, process.listeners(signal) as NodeJS.SignalsListener[]);
    process.removeAllListeners(signal);
    process.on(signal, () => void onSignal(signal));
  }
  // had Next not registered yet, it must not now: its handler would exit before the drain ends
  process.env.NEXT_MANUAL_SIG_HANDLE = "true";
  let started = false;

  async function onSignal(signal: NodeJS.Signals): Promise<void> {
    if (started) return;
    started = true;
    const grace = graceMs(process.env);
    const code = signal === "SIGINT" ? 130 : 143;
    setTimeout(() => process.exit(code), grace + 3 * CLOSE_MS).unref();
    try {
      await drain(await runtime(), grace);
    } catch (error) {
      console.error("[arbor] shutdown:", error instanceof Error ? error.message : String(error));
    }
    // Next's handler closes its server (nothing is open now) and exits; should it not be there
    // (or not exit), the process exits shortly after anyway
    setTimeout(() => process.exit(code), CLOSE_MS);
    for (const listener of next.get(signal) ?? []) listener(signal);
  }
}
