"use client";

// The live stream's state in the header: whether what the page shows is current. A dot and a
// word; the word hides at phone width but stays the element's accessible name.

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "offline";

const looks: Record<ConnectionState, { label: string; dot: string; text: string; title: string }> =
  {
    connecting: {
      label: "Connecting",
      dot: "bg-zinc-400 motion-safe:animate-pulse",
      text: "text-zinc-500 dark:text-zinc-400",
      title: "Opening the live stream",
    },
    connected: {
      label: "Live",
      dot: "bg-emerald-500",
      text: "text-zinc-500 dark:text-zinc-400",
      title: "Connected: updates arrive as they happen",
    },
    reconnecting: {
      label: "Reconnecting…",
      dot: "bg-amber-500 motion-safe:animate-pulse",
      text: "text-amber-700 dark:text-amber-300",
      title: "The live stream dropped; reconnecting without losing events",
    },
    offline: {
      label: "Offline",
      dot: "bg-red-500",
      text: "text-red-700 dark:text-red-400 font-medium",
      title: "The server cannot be reached; still trying. What you see may be out of date.",
    },
  };

export interface ConnectionIndicatorProps {
  state: ConnectionState;
  /** the dot alone: the word is said next to it already (the state line); it stays the name */
  quiet?: boolean;
  className?: string;
}

export function ConnectionIndicator({
  state,
  quiet = false,
  className = "",
}: ConnectionIndicatorProps) {
  const look = looks[state];
  return (
    <span
      role="status"
      aria-label={`Connection: ${look.label}`}
      data-connection={state}
      title={look.title}
      className={`inline-flex items-center gap-1.5 text-xs ${look.text} ${className}`}
    >
      <span aria-hidden="true" className={`inline-block size-2 rounded-full ${look.dot}`} />
      <span className={quiet ? "sr-only" : "max-sm:sr-only"}>{look.label}</span>
    </span>
  );
}
