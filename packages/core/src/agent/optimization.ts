import type { AgentMessage } from "../model/llm-messages.js";
import { segmentBlocks } from "./message-blocks.js";
import {
  dropMiddle,
  firstTimestamp,
  omissionMarker,
  summarizeOldTurns,
  truncateToolOutputs,
} from "./optimization-tiers.js";
import { defaultTokenCounter, messageTokens, totalTokens } from "./token-count.js";
import type { CompactionStrategy, ContextConfig, TokenCounter } from "./types.js";

// The built-in optimization cascade (REQ-056): cheap, deterministic tiers, no model call.
//
// Trigger and hysteresis: optimization runs when the history exceeds the budget
// (maxContextTokens − systemPromptTokens, REQ-011). Once triggered it aims lower, at
// COMPACTION_TARGET_RATIO × budget: each tier runs only while the total is still above that
// target, so after an optimization several turns fit before the next one, instead of optimizing (and
// invalidating the provider's prompt cache) on every turn. The target is best effort: the tiers
// never touch the last keepRecent messages, so a large recent tail can leave the total between the
// target and the budget. The budget itself is a hard limit: when tier 3 still does not fit, the
// keepWithinBudget fallback keeps only the newest blocks that fit.
//
// Invariants of the output (checked by the property test): total ≤ budget; order preserved; a tool
// result is never separated from the assistant message that called it; the first message sent to
// the model is a user message whenever anything was dropped or summarized at the front.

/** Fraction of the budget that a triggered optimization aims for. */
export const COMPACTION_TARGET_RATIO = 0.7;

export interface CompactionResult {
  messages: AgentMessage[];
  /** tiers that ran, in order; empty when the history was under budget */
  tiers: Array<1 | 2 | 3>;
  tokensBefore: number;
  tokensAfter: number;
}

/** REQ-011: tokens available to messages. */
export function compactionBudget(config: ContextConfig): number {
  return Math.max(0, config.maxContextTokens - config.systemPromptTokens);
}

/** The low-water mark a triggered optimization aims for. */
export function compactionTarget(config: ContextConfig): number {
  return Math.floor(compactionBudget(config) * COMPACTION_TARGET_RATIO);
}

/**
 * REQ-059 fallback: the longest suffix of whole blocks whose total fits `target` (the newest block
 * alone may use up to `budget`), preceded by an omission marker when it would otherwise not start
 * with a user message or when messages were dropped. Leading blocks are given up to make room for
 * the marker. Result total ≤ budget always; it is empty when not even the marker fits.
 */
export function keepWithinBudget(
  messages: AgentMessage[],
  budget: number,
  counter: TokenCounter = defaultTokenCounter(),
  target: number = budget,
): AgentMessage[] {
  const blocks = segmentBlocks(messages);
  const blockTokens = blocks.map(({ start, end }) => {
    let tokens = 0;
    for (let i = start; i < end; i++) tokens += messageTokens(messages[i]!, counter);
    return tokens;
  });
  let first = blocks.length;
  let total = 0;
  for (let b = blocks.length - 1; b >= 0; b--) {
    const tokens = blockTokens[b]!;
    const fits = total + tokens <= target || (first === blocks.length && tokens <= budget);
    if (!fits) break;
    total += tokens;
    first = b;
  }
  while (true) {
    const start = first < blocks.length ? blocks[first]!.start : messages.length;
    const kept = messages.slice(start);
    if (start === 0) return kept;
    const marker = omissionMarker(start, firstTimestamp(messages, 0, start));
    if (total + messageTokens(marker, counter) <= budget) return [marker, ...kept];
    const lead = kept.find((m) => m.role !== "extension");
    if (lead === undefined || lead.role === "user") return kept;
    total -= blockTokens[first]!;
    first++;
  }
}

/**
 * REQ-056: under budget → the same array, tiers []. Otherwise tier 1 (truncate tool outputs), then
 * while above the target tier 2 (summarize old turns), then tier 3 (drop the middle), then — only
 * if still above the budget — keepWithinBudget. `tiers` lists the tiers that ran (the fallback
 * counts as part of tier 3).
 */
export function compactMessages(
  messages: AgentMessage[],
  config: ContextConfig,
  counter: TokenCounter = defaultTokenCounter(),
): CompactionResult {
  const tokensBefore = totalTokens(messages, counter);
  const budget = compactionBudget(config);
  if (tokensBefore <= budget) {
    return { messages, tiers: [], tokensBefore, tokensAfter: tokensBefore };
  }
  const target = compactionTarget(config);
  const tiers: Array<1 | 2 | 3> = [1];
  let current = truncateToolOutputs(messages, config.toolOutputMaxLines).messages;
  let total = totalTokens(current, counter);
  if (total > target) {
    tiers.push(2);
    current = summarizeOldTurns(current, config.keepRecent).messages;
    total = totalTokens(current, counter);
  }
  if (total > target) {
    tiers.push(3);
    current = dropMiddle(current, config.keepFirst, config.keepRecent).messages;
    total = totalTokens(current, counter);
    if (total > budget) {
      current = keepWithinBudget(current, budget, counter, target);
      total = totalTokens(current, counter);
    }
  }
  return { messages: current, tiers, tokensBefore, tokensAfter: total };
}

/** REQ-023 / REQ-146: the cascade as a strategy object, counting with `counter`. */
export function createTieredCompaction(
  counter: TokenCounter = defaultTokenCounter(),
): CompactionStrategy {
  return {
    name: "tiered",
    compact(messages, config, signal) {
      signal.throwIfAborted();
      return compactMessages(messages, config, counter).messages;
    },
  };
}

/** The built-in cascade with the default token counter. */
export const tieredCompaction: CompactionStrategy = createTieredCompaction();
