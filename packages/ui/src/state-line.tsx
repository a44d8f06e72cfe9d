"use client";

import type { ContextState } from "@arbor/core/browser";
import { type StateTone, shortStateLabel, stateTone } from "./state-label.js";

const toneClasses: Record<StateTone, string> = {
  idle: "text-zinc-500 dark:text-zinc-400",
  working: "text-sky-700 dark:text-sky-300",
  waiting: "text-amber-700 dark:text-amber-300 font-medium",
  paused: "text-zinc-700 dark:text-zinc-300",
  failed: "text-red-700 dark:text-red-400 font-medium",
};

export interface StateLineProps {
  state: ContextState;
  /**
   * What the operation as a whole is doing, shown before the state (e.g. the auto-loop round
   * while the next model request streams): states such as ToolAutoLoop last only an instant.
   */
  context?: string;
  /**
   * The live stream is down: what the line would say is no longer known, so it says that instead
   * of a state that may be stale ("Ready" while the server is away, issue #27).
   */
  connection?: "offline" | "reconnecting";
  className?: string;
}

const connectionWords: Record<NonNullable<StateLineProps["connection"]>, string> = {
  offline: "Offline · trying to reconnect",
  reconnecting: "Reconnecting…",
};

/**
 * What the state line says: the connection's words while the live stream is down, else the
 * state's short label (also the phone header's summary, so both say the same).
 */
export function stateLineLabel(
  state: StateLineProps["state"],
  connection?: StateLineProps["connection"],
): string {
  return connection === undefined ? shortStateLabel(state) : connectionWords[connection];
}

/** One human line for the session's fine-grained state; a live region so screen readers hear it. */
export function StateLine({ state, context, connection, className = "" }: StateLineProps) {
  const tone = connection === undefined ? stateTone(state) : "waiting";
  const label = stateLineLabel(state, connection);
  return (
    <div
      role="status"
      aria-live="polite"
      aria-label="Session state"
      data-state={state.type}
      data-tone={tone}
      {...(state.type === "Failed" && connection === undefined ? { title: state.error } : {})}
      className={`flex min-h-6 items-center gap-2 text-sm ${toneClasses[tone]} ${className}`}
    >
      {tone === "working" && (
        <span
          aria-hidden="true"
          className="inline-block size-2 motion-safe:animate-pulse rounded-full bg-sky-500 dark:bg-sky-400"
        />
      )}
      {connection === undefined && context && context !== label && (
        <span className="shrink-0 font-medium">{context} ·</span>
      )}
      <span className="truncate">{label}</span>
    </div>
  );
}
