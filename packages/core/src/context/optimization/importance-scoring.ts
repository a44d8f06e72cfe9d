import type { ContextMessage } from "../../model/message-types.js";
import { isSummary, toModelText } from "./model-view.js";
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
  unitTokens,
} from "./selection.js";

// ImportanceScoring{keep_recent, min_score, summarize}.
//
// The score of message i (of n, newest last) is
//
//   score = clamp01( 0.7·type + 0.2·recency + 0.2·mentions − length )
//
//   type     role/type weight: plan 0.9, question 0.9, summary 0.8, tool result with error /
//            denied status 0.7, user text 0.6, assistant text 0.5, file reference 0.5, tool request
//            0.4, MCP resource 0.4, successful tool result 0.3 (0.2 when "long": over 2,000
//            tokens), other system notices 0.3.
//   recency  0.5^(age / 40), age = n − 1 − i: halves every 40 messages.
//   mentions min(1, k / 3), k = distinct paths / identifiers (see IDENTIFIER) in the first 4,000
//            characters of the message that also occur in the recent tail: old messages about what
//            the conversation is working on now are worth more.
//   length   min(0.15, tokens / 20,000): a large message must earn its place.
//
// A unit (a tool request with its results) takes the highest score of its messages, so a pair is
// kept or summarized together. The recent tail (keep_recent messages, widened to a unit boundary)
// is always kept; other units are kept when their score is ≥ min_score, and summarized in batches
// of consecutive messages (or dropped when `summarize` is off). While the estimated view is still
// over the budget, the bar is raised by 0.05 at a time — i.e. fewer units qualify — until it fits
// or only the recent tail remains.

export interface ImportanceScoringOptions {
  keep_recent: number;
  min_score: number;
  summarize: boolean;
}

const TYPE_WEIGHT = {
  plan: 0.9,
  question: 0.9,
  summary: 0.8,
  toolError: 0.7,
  userText: 0.6,
  assistantText: 0.5,
  fileReference: 0.5,
  toolRequest: 0.4,
  mcpResource: 0.4,
  toolResult: 0.3,
  longToolResult: 0.2,
  notice: 0.3,
} as const;
const LONG_TOOL_RESULT_TOKENS = 2_000;
const RECENCY_HALF_LIFE = 40;
const MENTION_SATURATION = 3;
const MENTION_SCAN_CHARS = 4_000;
const LENGTH_PENALTY_MAX = 0.15;
const LENGTH_PENALTY_TOKENS = 20_000;
const BAR_STEP = 0.05;

/** A path (has a / or a file extension) or a code identifier (snake_case, camelCase, PascalCase). */
const IDENTIFIER =
  /[\w.-]*\/[\w./-]+|\b\w+\.[a-z]{1,5}\b|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b/g;

/** Identifiers of a message; content never changes, so they are extracted once per message. */
const identifierCache = new WeakMap<ContextMessage, ReadonlySet<string>>();

export function identifiersOf(message: ContextMessage): ReadonlySet<string> {
  let found = identifierCache.get(message);
  if (!found) {
    const text = toModelText(message).slice(0, MENTION_SCAN_CHARS);
    found = new Set(text.match(IDENTIFIER) ?? []);
    identifierCache.set(message, found);
  }
  return found;
}

export function typeWeight(message: ContextMessage, tokens: number): number {
  const body = message.body;
  switch (body.message_type) {
    case "text":
      return message.role === "user" ? TYPE_WEIGHT.userText : TYPE_WEIGHT.assistantText;
    case "file_reference":
      return TYPE_WEIGHT.fileReference;
    case "tool_request":
      return TYPE_WEIGHT.toolRequest;
    case "tool_result":
      if (body.status === "error" || body.status === "denied") return TYPE_WEIGHT.toolError;
      return tokens > LONG_TOOL_RESULT_TOKENS ? TYPE_WEIGHT.longToolResult : TYPE_WEIGHT.toolResult;
    case "mcp_resource":
    case "attachment":
      return TYPE_WEIGHT.mcpResource;
    case "system_control":
      return isSummary(message) ? TYPE_WEIGHT.summary : TYPE_WEIGHT.notice;
    case "plan":
      return TYPE_WEIGHT.plan;
    case "question":
      return TYPE_WEIGHT.question;
    default:
      return body satisfies never;
  }
}

/** The documented score (header comment) of messages[i], given the recent tail's identifiers. */
export function importanceScore(
  messages: readonly ContextMessage[],
  tokens: readonly number[],
  i: number,
  recentIdentifiers: ReadonlySet<string>,
): number {
  const message = messages[i]!;
  const messageTokens = tokens[i]!;
  const age = messages.length - 1 - i;
  const recency = 0.5 ** (age / RECENCY_HALF_LIFE);
  let shared = 0;
  if (recentIdentifiers.size > 0) {
    for (const id of identifiersOf(message)) if (recentIdentifiers.has(id)) shared++;
  }
  const mentions = Math.min(1, shared / MENTION_SATURATION);
  const length = Math.min(LENGTH_PENALTY_MAX, messageTokens / LENGTH_PENALTY_TOKENS);
  const raw = 0.7 * typeWeight(message, messageTokens) + 0.2 * recency + 0.2 * mentions - length;
  return Math.min(1, Math.max(0, raw));
}

export function importanceScoringStrategy(
  options: ImportanceScoringOptions,
): OptimizationStrategyImpl {
  const giveUp: Fate = options.summarize ? "summarize" : "drop";
  return {
    name: "importance_scoring",
    select({ messages, tokens, budget }: StrategyInput): Selection {
      if (sum(tokens) <= budget) return keepAll(messages);
      const units = segmentUnits(messages);
      const cost = unitTokens(units, tokens);
      const tail = recentTailUnit(units, messages.length, Math.max(1, options.keep_recent));
      const recent = new Set<string>();
      for (let i = units[tail]?.start ?? messages.length; i < messages.length; i++) {
        for (const id of identifiersOf(messages[i]!)) recent.add(id);
      }
      const scores = units.map((unit, u) => {
        if (u >= tail) return 1;
        let best = 0;
        for (let i = unit.start; i < unit.end; i++) {
          best = Math.max(best, importanceScore(messages, tokens, i, recent));
        }
        return best;
      });
      let bar = options.min_score;
      const fatesAt = (threshold: number): Fate[] =>
        units.map((_, u): Fate => (u >= tail || scores[u]! >= threshold ? "keep" : giveUp));
      let fates = fatesAt(bar);
      while (bar <= 1 && estimateView(fates, cost) > budget) {
        bar += BAR_STEP;
        fates = fatesAt(bar);
      }
      return toSelection(units, fates, cost);
    },
  };
}
