import { getRuntime } from "./runtime";
import { beginDrain, shutdownGraceMs } from "./shutdown";

// The SIGTERM half of shutdown.ts, installed by instrumentation.ts (the server, not the tests):
// the first SIGTERM or SIGINT begins the drain; Next's own handler closes the HTTP server, which
// finishes once the event streams are ended. A hard timer exits after the grace period + 5 s.

const HARD_EXTRA_MS = 5_000;

export function installGracefulShutdown(env: Record<string, string | undefined> = process.env) {
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) return;
    started = true;
    const graceMs = shutdownGraceMs(env);
    const hard = setTimeout(
      () => process.exit(signal === "SIGINT" ? 130 : 143),
      graceMs + HARD_EXTRA_MS,
    );
    hard.unref();
    const ended = beginDrain();
    console.log(
      `Arbor is shutting down: ${ended} event stream(s) ended, waiting up to ${graceMs} ms`,
    );
    void getRuntime()
      .then((runtime) => runtime.shutdown(graceMs))
      .catch((error: unknown) =>
        console.error("shutdown failed", error instanceof Error ? error.message : String(error)),
      )
      .finally(() => {
        // Next's handler exits once its server has closed; this covers a server held open
        setTimeout(() => process.exit(signal === "SIGINT" ? 130 : 143), 500).unref();
      });
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
}
