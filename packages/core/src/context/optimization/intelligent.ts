import type { ContextMessage } from "../../model/message-types.js";
import { isSummary } from "./model-view.js";
import { isMasked } from "./observation-masking.js";
import {
  estimateView,
  type Fate,
  keepAll,
  type OptimizationStrategyImpl,
  recentTailUnit,
  type Selection,
  type StrategyInput,
  segmentUnits,
  sum,
  toSelection,
  type Unit,
  unitTokens,
} from "./selection.js";

// Intelligent{keep_recent, file_reference_window, summarize} (spec "Intelligent message
// prioritization"). The system prompt is outside the messages and always sent. Kept whole:
//   - the last keep_recent messages (widened to a unit boundary),
//   - every tool request with its results (their oversized outputs were already cut by tier 1),
//     unless every output of it is masked (observation-masking.ts),
//   - file references among the last file_reference_window messages,
//   - earlier summaries (already compact).
// Everything else is summarized in batches of consecutive messages (or dropped when `summarize` is
// off). When that selection still does not fit the budget, protected units outside the recent
// tail are given up oldest first, in this order: earlier summaries, file references, tool pairs.
// The recent tail is never given up here; the optimizer's last tier handles a tail over budget.

export interface IntelligentOptions {
  keep_recent: number;
  file_reference_window: number;
  summarize: boolean;
}

type Protection = "recent" | "summary" | "file" | "tool" | "none";

function protection(
  messages: readonly ContextMessage[],
  unit: Unit,
  u: number,
  tail: number,
  fileWindowStart: number,
): Protection {
  if (u >= tail) return "recent";
  const first = messages[unit.start]!;
  if (isSummary(first)) return "summary";
  if (first.body.message_type === "file_reference") {
    return unit.start >= fileWindowStart ? "file" : "none";
  }
  // a tool_request that heads a unit, with at least one result in it: a complete pair — unless
  // its outputs are masked already: then the pair says little and is summarized with its turn
  // (kept, masked pairs would cut the dialogue into many small summaries)
  if (first.body.message_type === "tool_request" && unit.end - unit.start > 1) {
    for (let i = unit.start + 1; i < unit.end; i++) if (!isMasked(messages[i]!)) return "tool";
    return "none";
  }
  return "none";
}

export function intelligentStrategy(options: IntelligentOptions): OptimizationStrategyImpl {
  const giveUp: Fate = options.summarize ? "summarize" : "drop";
  return {
    name: "intelligent",
    select({ messages, tokens, budget }: StrategyInput): Selection {
      if (sum(tokens) <= budget) return keepAll(messages);
      const units = segmentUnits(messages);
      const cost = unitTokens(units, tokens);
      const tail = recentTailUnit(units, messages.length, Math.max(1, options.keep_recent));
      const fileWindowStart = messages.length - options.file_reference_window;
      const kinds = units.map((unit, u) => protection(messages, unit, u, tail, fileWindowStart));
      const fates = kinds.map((kind): Fate => (kind === "none" ? giveUp : "keep"));
      for (const level of ["summary", "file", "tool"] as const) {
        for (let u = 0; u < tail && estimateView(fates, cost) > budget; u++) {
          if (kinds[u] === level) fates[u] = giveUp;
        }
      }
      return toSelection(units, fates, cost);
    },
  };
}
