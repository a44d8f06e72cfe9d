import type { ContextMessage } from "../../model/message-types.js";

// What every strategy shares: the input it sees, the Selection it returns, the units it may not
// split, and the cost estimate it uses to decide whether its selection fits the budget.

export interface StrategyInput {
  /** the branch's messages in order (tool outputs already truncated by tier 1) */
  messages: readonly ContextMessage[];
  /** tokens[i] = tokens of messages[i] */
  tokens: readonly number[];
  /** tokens available to messages: the target minus the system prompt and tool definitions */
  budget: number;
}

/**
 * The fate of one message in the optimized view. Messages of one `group` are consecutive and are
 * replaced by one summary; `drop` removes a message without a summary.
 */
export type Disposition =
  | { kind: "keep" }
  | { kind: "summarize"; group: number }
  | { kind: "drop" };

export interface Selection {
  /** one per input message, same order */
  dispositions: Disposition[];
}

export interface OptimizationStrategyImpl {
  readonly name: "recent_n" | "intelligent" | "importance_scoring";
  /** Pure and deterministic. Never splits a unit (see segmentUnits). */
  select(input: StrategyInput): Selection;
}

/**
 * What a summary is expected to cost in the view, used to judge a selection before any summary
 * exists (summaries are capped near this size: see summarizer.ts).
 */
export const SUMMARY_TOKEN_ESTIMATE = 400;
/** Consecutive summarized messages are cut into batches of at most this many tokens. */
export const MAX_BATCH_TOKENS = 24_000;

/**
 * A unit is a span [start, end) that must share one fate: a tool_request together with every
 * tool_result answering it (and anything between them), or a single other message. Spans of
 * requests whose results interleave are merged.
 */
export interface Unit {
  start: number;
  end: number;
}

export function segmentUnits(messages: readonly ContextMessage[]): Unit[] {
  const lastResult = new Map<string, number>();
  messages.forEach((message, i) => {
    if (message.body.message_type === "tool_result") lastResult.set(message.body.request_id, i);
  });
  const units: Unit[] = [];
  let i = 0;
  while (i < messages.length) {
    let end = i + 1;
    for (let j = i; j < end; j++) {
      const message = messages[j]!;
      if (message.body.message_type !== "tool_request") continue;
      const last = lastResult.get(message.id);
      if (last !== undefined && last + 1 > end) end = last + 1;
    }
    units.push({ start: i, end });
    i = end;
  }
  return units;
}

/** Index of the first unit of the recent tail holding at least the last `keep` messages. */
export function recentTailUnit(units: readonly Unit[], messageCount: number, keep: number): number {
  const start = messageCount - keep;
  if (start <= 0) return 0;
  for (let u = units.length - 1; u >= 0; u--) if (units[u]!.start <= start) return u;
  return 0;
}

export type Fate = "keep" | "summarize" | "drop";

export function unitTokens(units: readonly Unit[], tokens: readonly number[]): number[] {
  return units.map(({ start, end }) => {
    let sum = 0;
    for (let i = start; i < end; i++) sum += tokens[i]!;
    return sum;
  });
}

/**
 * Tokens the view would use with these unit fates: kept units in full, each summary batch at
 * SUMMARY_TOKEN_ESTIMATE (never more than what it replaces), drops nothing.
 */
export function estimateView(
  fates: readonly Fate[],
  unitCost: readonly number[],
  singleBatch = false,
): number {
  let total = 0;
  let batch = -1;
  const close = (): void => {
    if (batch >= 0) total += Math.min(batch, SUMMARY_TOKEN_ESTIMATE);
    batch = -1;
  };
  fates.forEach((fate, u) => {
    const cost = unitCost[u]!;
    if (fate === "summarize") {
      if (batch > 0 && !singleBatch && batch + cost > MAX_BATCH_TOKENS) close();
      batch = Math.max(batch, 0) + cost;
      return;
    }
    if (fate === "keep") {
      close();
      total += cost;
    }
    // a drop neither costs nor ends a batch: the batch's messages stay in order around it
  });
  close();
  return total;
}

/**
 * Expands unit fates to per-message dispositions, numbering summary groups: a run of consecutive
 * summarized units (drops do not break it) becomes one group, cut at MAX_BATCH_TOKENS unless
 * `singleBatch`. Must mirror estimateView's batching.
 */
export function toSelection(
  units: readonly Unit[],
  fates: readonly Fate[],
  unitCost: readonly number[],
  singleBatch = false,
): Selection {
  const dispositions: Disposition[] = [];
  let group = -1;
  let open = false;
  let batch = 0;
  units.forEach((unit, u) => {
    const fate = fates[u]!;
    if (fate === "summarize") {
      const cost = unitCost[u]!;
      if (!open || (!singleBatch && batch + cost > MAX_BATCH_TOKENS && batch > 0)) {
        group++;
        batch = 0;
        open = true;
      }
      batch += cost;
    } else if (fate === "keep") {
      open = false;
    }
    for (let i = unit.start; i < unit.end; i++) {
      dispositions.push(
        fate === "summarize"
          ? { kind: "summarize", group }
          : { kind: fate === "keep" ? "keep" : "drop" },
      );
    }
  });
  return { dispositions };
}

export function keepAll(messages: readonly ContextMessage[]): Selection {
  return { dispositions: messages.map(() => ({ kind: "keep" })) };
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
