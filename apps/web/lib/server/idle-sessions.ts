import { DEFAULT_IDLE_SESSION_MS } from "@arbor/core";

// ARBOR_IDLE_SESSION_SECONDS: a session at rest (nothing runs, waits for a person or streams in it)
// that nobody has asked for this long leaves the server's memory and is read again from the
// database on its next use (core SessionManager, SessionDeps.idleSessionMs). Default 300; 0 keeps
// every session a server has served in its memory until it stops.

/** The idle time in ms; a value that is not a whole number of seconds ≥ 0 is refused at start. */
export function idleSessionMs(env: Record<string, string | undefined>): number {
  const raw = env.ARBOR_IDLE_SESSION_SECONDS?.trim();
  if (raw === undefined || raw === "") return DEFAULT_IDLE_SESSION_MS;
  if (!/^\d+$/.test(raw)) {
    throw new Error(
      `ARBOR_IDLE_SESSION_SECONDS: "${raw}" is not a whole number of seconds (0 keeps every session in memory)`,
    );
  }
  return Number(raw) * 1000;
}
