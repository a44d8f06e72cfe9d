// Several instances on one database (docs/decisions/0030) keep copies of small tables in memory
// (workspace trust, provider keys, the MCP servers added in the settings): each rereads its table
// every few seconds to see what another instance changed. This is that timer, once.

/** How often an instance rereads what another may have changed (a change shows within this). */
export const STORE_POLL_MS = 2000;

/**
 * Calls `reread` every `intervalMs` until the returned function is called. A reread still running
 * when the next is due is not doubled (a slow database gets one at a time); a failure goes to
 * `onError` and the next tick tries again. The timer does not keep the process alive.
 */
export function pollStore(
  reread: () => Promise<unknown>,
  onError: (error: Error) => void,
  intervalMs: number = STORE_POLL_MS,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    reread()
      .catch((error: unknown) => onError(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
