// Number and time formats shared by the components. Pure, so the exact strings are testable.

/** 999 → "999", 1_500 → "1.5k", 120_000 → "120k", 1_250_000 → "1.3M" */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${trimZero(count / 1000)}k`;
  return `${trimZero(count / 1_000_000)}M`;
}

// One decimal below 10 ("1.5k"), none above ("120k"), and never a trailing ".0".
function trimZero(value: number): string {
  const text = value < 10 ? value.toFixed(1) : value.toFixed(0);
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}

/** 850 → "850 ms", 1_240 → "1.2 s", 125_000 → "2 min 5 s" */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", then the date. `now` is a prop so tests are stable. */
export function formatRelativeTime(iso: string, now: Date): string {
  const then = new Date(iso);
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 60) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 7) return `${days} d ago`;
  return then.toISOString().slice(0, 10);
}

/**
 * US dollars: cents from a cent up ("$1.23"), four decimals below ("$0.0042"), and "<$0.0001"
 * for what would round to nothing, so a small cost never reads as free.
 */
export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.0001) return "<$0.0001";
  if (usd > 0 && usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** What the UI says when a model has no price: never "$0.00". */
export const NO_PRICE = "no price for this model";

/**
 * A usage's cost in words (the API's `cost_usd` / `cost_complete`, decision 0062): the amount;
 * "no price for this model" when no part has a price; the priced part's amount with
 * "+ tokens without a price" when only some have one. Undefined when the cost was not given.
 */
export function costText(
  usage: { cost_usd?: number | null | undefined; cost_complete?: boolean | undefined } | undefined,
): string | undefined {
  const cost = usage?.cost_usd;
  if (cost === undefined) return undefined;
  if (cost === null) return NO_PRICE;
  return usage?.cost_complete === false
    ? `${formatCost(cost)} + tokens without a price`
    : formatCost(cost);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
