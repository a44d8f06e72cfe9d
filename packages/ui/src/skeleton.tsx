"use client";

// Grey shapes where content is about to appear, so the page keeps its layout while it loads.
// One busy region with a name; the shapes themselves are hidden from screen readers.

export interface SkeletonProps {
  /** what is loading, e.g. "Loading the conversation" */
  label: string;
  /** how many rows to draw */
  rows?: number;
  /** "cards" for a transcript, "lines" for a list */
  shape?: "cards" | "lines";
  className?: string;
}

const widths = ["w-2/3", "w-5/6", "w-1/2", "w-3/4"];

export function Skeleton({ label, rows = 3, shape = "cards", className = "" }: SkeletonProps) {
  return (
    <div
      role="status"
      aria-busy="true"
      aria-label={label}
      data-skeleton={shape}
      className={`flex flex-col gap-3 ${className}`}
    >
      {Array.from({ length: rows }, (_, i) =>
        shape === "cards" ? (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: fixed placeholder shapes
            key={i}
            aria-hidden="true"
            className={`flex motion-safe:animate-pulse flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800 ${i % 2 === 0 ? "ml-auto w-3/5 bg-sky-50/60 dark:bg-sky-950/30" : "w-full bg-white dark:bg-zinc-900"}`}
          >
            <div className="h-3 w-16 rounded bg-zinc-200 dark:bg-zinc-800" />
            <div
              className={`h-3 rounded bg-zinc-200 dark:bg-zinc-800 ${widths[i % widths.length]}`}
            />
            {i % 2 === 1 && <div className="h-3 w-2/5 rounded bg-zinc-200 dark:bg-zinc-800" />}
          </div>
        ) : (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: fixed placeholder shapes
            key={i}
            aria-hidden="true"
            className={`h-8 motion-safe:animate-pulse rounded-md bg-zinc-200 dark:bg-zinc-800 ${widths[i % widths.length]}`}
          />
        ),
      )}
      <span className="sr-only">{label}…</span>
    </div>
  );
}
