import { defaultTokenCounter } from "../../agent/tokens.js";
import type { TokenCounter } from "../../agent/types.js";
import type { ToolDefinition } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { OptimizationConfig, OptimizationStrategy } from "../../model/session-config.js";
import type { OptimizationView } from "../../store/types.js";
import { importanceScoringStrategy } from "./importance-scoring.js";
import { intelligentStrategy } from "./intelligent.js";
import { isSummary } from "./model-view.js";
import { recentNStrategy } from "./recent-n.js";
import { type OptimizationStrategyImpl, segmentUnits } from "./selection.js";
import { ExtractiveSummarizer, type Summarizer } from "./summarizer.js";
import {
  cachedContextMessageTokens,
  contextMessageTokens,
  countRequestTokens,
  needsOptimization,
  optimizationTarget,
} from "./token-budget.js";
import { estimateTruncatedTokens, truncateToolResult } from "./tool-output-truncation.js";

// optimizeBranch: what the model sees of a branch. The cascade, cheapest first (learned from the
// runtime's compaction):
//   1. truncate long tool outputs (view copies, same ids);
//   2. only if still over the target: the configured strategy selects what to keep, and each batch
//      of the rest becomes ONE new summary message (LLM, falling back to extractive on failure);
//   3. only if still over the target (summaries longer than expected, or a kept set too large):
//      drop whole units from the front, never the last one.
// It triggers above trigger_ratio × window and aims at target_ratio × window, well below, so
// several turns fit before the next optimization.
//
// Contract: stored messages are never modified — the view is made of pool messages, truncated view
// copies and the NEW summary messages (returned in `summaries` for the caller to store). Order is
// preserved; a tool_request is never separated from its tool_results; the view never starts with
// a tool_result; re-optimizing the returned view with the same inputs changes nothing.

export interface OptimizeBranchInput {
  /** the branch's messages in order (or a previous view of it, see viewFromRecords) */
  messages: readonly ContextMessage[];
  systemPrompt: string;
  tools: readonly ToolDefinition[];
  config: OptimizationConfig;
  contextWindow: number;
  summarizer: Summarizer;
  /** ISO timestamp for new messages and the record */
  now: () => string;
  newId: () => string;
  sessionId: string;
  branchId: string;
  signal: AbortSignal;
  counter?: TokenCounter;
  /** optimize even below the trigger (the user's "optimize now"); still a no-op within target */
  force?: boolean;
  /**
   * After the provider refused the request as too long (its count differs from ours): aim at
   * most at this fraction of the request's current size, below the configured target when that
   * is lower still. Implies `force`.
   */
  shrinkTo?: number;
  /** summary batches summarized at once; default 3 */
  concurrency?: number;
}

export type OptimizationTier = "truncate" | "summarize" | "drop";

export interface OptimizeBranchResult {
  view: ContextMessage[];
  /** the new summary messages, to be stored (system_control{kind: "summary"}, role "system") */
  summaries: ContextMessage[];
  /** tokens and message counts cover the whole request: system prompt, tools and messages */
  record: OptimizationView;
  /** false: the view is the input; nothing needs storing */
  changed: boolean;
  tiers: OptimizationTier[];
  target: number;
}

export function strategyFor(strategy: OptimizationStrategy): OptimizationStrategyImpl {
  switch (strategy.type) {
    case "recent_n":
      return recentNStrategy({ n: strategy.n });
    case "intelligent":
      return intelligentStrategy(strategy);
    case "importance_scoring":
      return importanceScoringStrategy(strategy);
    default:
      return strategy satisfies never;
  }
}

const fallbackSummarizer = new ExtractiveSummarizer();

async function summarizeBatch(
  batch: readonly ContextMessage[],
  summarizer: Summarizer,
  signal: AbortSignal,
): Promise<{ text: string; summarizer: string; fallback_reason?: string }> {
  try {
    return { text: await summarizer.summarize(batch, signal), summarizer: summarizer.kind };
  } catch (error) {
    signal.throwIfAborted();
    const reason = error instanceof Error ? error.message : String(error);
    const text = await fallbackSummarizer.summarize(batch, signal);
    return { text, summarizer: fallbackSummarizer.kind, fallback_reason: reason };
  }
}

async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export async function optimizeBranch(input: OptimizeBranchInput): Promise<OptimizeBranchResult> {
  const counter = input.counter ?? defaultTokenCounter();
  const { messages, config, contextWindow, signal } = input;
  const before = countRequestTokens(input, counter);
  const overhead = before.systemPrompt + before.tools;
  const configured = optimizationTarget(config, contextWindow);
  const target =
    input.shrinkTo === undefined
      ? configured
      : Math.min(configured, Math.floor(before.total * input.shrinkTo));
  const record = (view: readonly ContextMessage[], tokensAfter: number): OptimizationView => ({
    id: input.newId(),
    session_id: input.sessionId,
    branch_id: input.branchId,
    created_at: input.now(),
    strategy: config.strategy.type,
    tokens_before: before.total,
    tokens_after: tokensAfter,
    messages_before: messages.length,
    messages_after: view.length,
    summaries: [],
    dropped: [],
  });
  const unchanged = (): OptimizeBranchResult => ({
    view: [...messages],
    summaries: [],
    record: record(messages, before.total),
    changed: false,
    tiers: [],
    target,
  });
  const triggered =
    input.force || input.shrinkTo !== undefined
      ? before.total > target
      : needsOptimization(before.total, config, contextWindow);
  if (!triggered) return unchanged();
  signal.throwIfAborted();

  // Tier 1: truncate tool outputs.
  const tiers: OptimizationTier[] = [];
  const truncated = messages.map(truncateToolResult);
  if (truncated.some((m, i) => m !== messages[i])) tiers.push("truncate");
  const exact = (m: ContextMessage): number => contextMessageTokens(m, counter);
  const sumExact = (list: readonly ContextMessage[]): number =>
    overhead + list.reduce((a, m) => a + exact(m), 0);
  const tokens = truncated.map(
    (m, i) =>
      cachedContextMessageTokens(m, counter) ??
      estimateTruncatedTokens(messages[i]!, m, exact(messages[i]!)),
  );
  let total = overhead + tokens.reduce((a, b) => a + b, 0);
  // the estimate only decides whether to go on; a view is always measured exactly
  if (total <= target) total = sumExact(truncated);

  let view: ContextMessage[] = truncated;
  let summaries: ContextMessage[] = [];
  const dropped: string[] = [];
  if (total > target) {
    // Tier 2: the strategy's selection, each batch summarized.
    const selection = strategyFor(config.strategy).select({
      messages: truncated,
      tokens,
      budget: target - overhead,
    });
    const batches: ContextMessage[][] = [];
    selection.dispositions.forEach((disposition, i) => {
      if (disposition.kind === "summarize") {
        const batch = batches[disposition.group] ?? [];
        // the summarizer reads the stored message, not its truncated view copy
        batch.push(messages[i]!);
        batches[disposition.group] = batch;
      } else if (disposition.kind === "drop") dropped.push(truncated[i]!.id);
    });
    const texts = await mapPool(batches, input.concurrency ?? 3, (batch) =>
      summarizeBatch(batch, input.summarizer, signal),
    );
    signal.throwIfAborted();
    summaries = batches.map((batch, g): ContextMessage => {
      const { text, ...how } = texts[g]!;
      const replacedTokens = batch.reduce((a, m) => a + exact(m), 0);
      return {
        id: input.newId(),
        session_id: input.sessionId,
        role: "system",
        body: {
          message_type: "system_control",
          kind: "summary",
          text,
          replaces: batch.map((m) => m.id),
          data: { ...how, replaced_tokens: replacedTokens, replaced_messages: batch.length },
        },
        status: "complete",
        created_at: input.now(),
      };
    });
    view = [];
    const placed = new Set<number>();
    selection.dispositions.forEach((disposition, i) => {
      if (disposition.kind === "keep") view.push(truncated[i]!);
      else if (disposition.kind === "summarize" && !placed.has(disposition.group)) {
        placed.add(disposition.group);
        view.push(summaries[disposition.group]!);
      }
    });
    if (summaries.length > 0) tiers.push("summarize");
    total = sumExact(view);
  }

  if (total > target) {
    // Tier 3: drop whole units from the front, keeping at least the last one.
    const units = segmentUnits(view);
    let first = 0;
    while (first < units.length - 1 && total > target) {
      const { start, end } = units[first]!;
      for (let i = start; i < end; i++) {
        const message = view[i]!;
        total -= contextMessageTokens(message, counter);
        if (isSummary(message)) {
          summaries = summaries.filter((s) => s !== message);
          dropped.push(
            ...(message.body.message_type === "system_control"
              ? (message.body.replaces ?? [])
              : []),
          );
        } else dropped.push(message.id);
      }
      first++;
    }
    if (first > 0) {
      tiers.push("drop");
      view = view.slice(units[first]!.start);
    }
  }

  const out = record(view, total);
  out.summaries = summaries.map((s) => ({
    summary_message_id: s.id,
    replaces: s.body.message_type === "system_control" ? (s.body.replaces ?? []) : [],
  }));
  out.dropped = dropped;
  const changed = tiers.length > 0;
  if (!changed) return unchanged();
  return { view, summaries, record: out, changed, tiers, target };
}
