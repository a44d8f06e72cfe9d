// The session list's date groups, as ChatGPT and Open WebUI show them: Today, Yesterday,
// Previous 7 days, Previous 30 days, then one group per month ("September 2026"). Days are the
// reader's calendar days (local time), counted between midnights, so a session updated at 23:59
// yesterday is "Yesterday" at 00:01 today.

export interface DateGroup<T> {
  /** the heading: "Today", "Yesterday", "Previous 7 days", "Previous 30 days" or "Month Year" */
  label: string;
  items: T[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole calendar days from `at`'s local date to `now`'s (0: the same day; negative: future). */
function daysBefore(at: Date, now: Date): number {
  const start = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  return Math.round((start(now) - start(at)) / DAY_MS);
}

/** The group a time belongs to, seen at `now`. A time in the future counts as today. */
export function dateGroupLabel(iso: string, now: Date): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "Older";
  const days = daysBefore(at, now);
  if (days <= 0) return "Today";
  if (days === 1) return "Yesterday";
  if (days <= 7) return "Previous 7 days";
  if (days <= 30) return "Previous 30 days";
  return at.toLocaleString("en-US", { month: "long", year: "numeric" });
}

/**
 * Items (newest first, as the API lists sessions) in their date groups, in reading order. The
 * order within and between groups is the input's: a group is opened where its first item is.
 */
export function groupByDate<T>(
  items: readonly T[],
  dateOf: (item: T) => string,
  now: Date,
): DateGroup<T>[] {
  const groups: DateGroup<T>[] = [];
  const byLabel = new Map<string, DateGroup<T>>();
  for (const item of items) {
    const label = dateGroupLabel(dateOf(item), now);
    let group = byLabel.get(label);
    if (group === undefined) {
      group = { label, items: [] };
      byLabel.set(label, group);
      groups.push(group);
    }
    group.items.push(item);
  }
  return groups;
}
