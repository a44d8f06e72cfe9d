"use client";

import { costText, formatTokens } from "./format.js";
import { unreachable } from "./state-label.js";
import { Toggletip } from "./toggletip.js";

export type UsageLevel = "normal" | "warning" | "critical";

/** warning from 75% of the limit, critical from 90% */
export function usageLevel(used: number, limit: number): UsageLevel {
  if (limit <= 0) return "critical";
  const ratio = used / limit;
  if (ratio >= 0.9) return "critical";
  if (ratio >= 0.75) return "warning";
  return "normal";
}

function barClass(level: UsageLevel): string {
  switch (level) {
    case "normal":
      return "bg-sky-500 dark:bg-sky-400";
    case "warning":
      return "bg-amber-500 dark:bg-amber-400";
    case "critical":
      return "bg-red-600 dark:bg-red-500";
    default:
      return unreachable(level);
  }
}

export interface UsageMeterProps {
  /** tokens the next request would send */
  used: number;
  /** the model's context window */
  limit: number;
  /**
   * the fixed part every request pays before the conversation (issue #15): the system prompt and
   * the tool definitions; shown as the bar's first segment and named in the text
   */
  fixed?: { systemPrompt: number; tools: number };
  /**
   * the person's monthly token budget and what their runs used of it (GET /api/me/usage, issue
   * #25); shown as what is left when they have one (null or absent: no budget, nothing shown)
   */
  budget?: { monthly_tokens: number | null; used_tokens: number } | undefined;
  /**
   * what the session spent so far (its summary's usage, issue #28): "$0.0042 spent", or "no price
   * for this model" (absent: nothing shown)
   */
  cost?: { cost_usd: number | null; cost_complete: boolean } | undefined;
  className?: string;
}

/** "12.3k of 100k monthly tokens left"; "monthly budget of 100k tokens used up" */
export function budgetText(budget: { monthly_tokens: number; used_tokens: number }): string {
  const left = budget.monthly_tokens - budget.used_tokens;
  return left > 0
    ? `${formatTokens(left)} of ${formatTokens(budget.monthly_tokens)} monthly tokens left`
    : `monthly budget of ${formatTokens(budget.monthly_tokens)} tokens used up`;
}

/**
 * "1.7k in every request (instructions 242 + tool descriptions 1.5k)": what each request sends
 * before the conversation, in words a newcomer reads (issue #27 found "fixed 2.2k" unexplained)
 */
export function fixedText(fixed: { systemPrompt: number; tools: number }): string {
  return `${formatTokens(fixed.systemPrompt + fixed.tools)} in every request (instructions ${formatTokens(fixed.systemPrompt)} + tool descriptions ${formatTokens(fixed.tools)})`;
}

/** What the meter's numbers count (its toggletip). */
export const USAGE_EXPLAINED =
  "How much of the model's context window the next request fills, in tokens. Part of it goes in every request: the instructions (system prompt) and the descriptions of the tools the model may call. When the conversation nears the limit, older messages are summarized or shortened.";

export function UsageMeter({ used, limit, fixed, budget, cost, className = "" }: UsageMeterProps) {
  const level = usageLevel(used, limit);
  const percent = limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 100;
  const fixedTokens = fixed ? fixed.systemPrompt + fixed.tools : 0;
  const fixedPercent = limit > 0 ? Math.min(percent, (fixedTokens / limit) * 100) : 0;
  const text = `${formatTokens(used)} / ${formatTokens(limit)} tokens (${percent}%)${fixed ? `, ${fixedText(fixed)}` : ""}`;
  return (
    <div className={`flex min-w-0 items-center gap-2 text-xs ${className}`}>
      {/* biome-ignore lint/a11y/useSemanticElements: a native <meter> cannot be styled alike across browsers; the ARIA meter carries the same semantics */}
      <div
        role="meter"
        aria-label="Context usage"
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(used, limit)}
        aria-valuetext={text}
        data-level={level}
        className="h-2 w-24 shrink-0 overflow-hidden rounded-full bg-zinc-200 sm:w-32 dark:bg-zinc-800"
      >
        <div className={`relative h-full ${barClass(level)}`} style={{ width: `${percent}%` }}>
          {fixed !== undefined && (
            <div
              data-testid="fixed-overhead"
              className="absolute inset-y-0 left-0 bg-zinc-700/60 dark:bg-zinc-100/60"
              style={{ width: `${percent > 0 ? (fixedPercent / percent) * 100 : 0}%` }}
            />
          )}
        </div>
      </div>
      <span
        className={
          level === "normal"
            ? "text-zinc-600 dark:text-zinc-400"
            : level === "warning"
              ? "font-medium text-amber-700 dark:text-amber-300"
              : "font-semibold text-red-700 dark:text-red-400"
        }
      >
        {text}
      </span>
      <Toggletip label="context usage">{USAGE_EXPLAINED}</Toggletip>
      {budget !== undefined && budget.monthly_tokens !== null && (
        <BudgetLeft monthly_tokens={budget.monthly_tokens} used_tokens={budget.used_tokens} />
      )}
      {cost !== undefined && <SessionCost cost={cost} />}
    </div>
  );
}

function BudgetLeft(budget: { monthly_tokens: number; used_tokens: number }) {
  const level = usageLevel(budget.used_tokens, budget.monthly_tokens);
  return (
    <span
      data-testid="budget-left"
      data-level={level}
      className={
        level === "normal"
          ? "text-zinc-600 dark:text-zinc-400"
          : level === "warning"
            ? "font-medium text-amber-700 dark:text-amber-300"
            : "font-semibold text-red-700 dark:text-red-400"
      }
    >
      · {budgetText(budget)}
    </span>
  );
}

/** "· $0.0042 spent" / "· no price for this model": the session's cost at list prices. */
function SessionCost({ cost }: { cost: { cost_usd: number | null; cost_complete: boolean } }) {
  const text = costText(cost);
  return (
    <span data-testid="meter-cost" className="text-zinc-600 dark:text-zinc-400">
      · {cost.cost_usd === null ? text : `${text} spent`}
    </span>
  );
}
