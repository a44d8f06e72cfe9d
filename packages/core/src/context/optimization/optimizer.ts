import { defaultTokenCounter } from "../../agent/token-count.js";
import type { TokenCounter } from "../../agent/types.js";
import type { ToolDefinition } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { OptimizationConfig, OptimizationStrategy } from "../../model/session-config.js";
import type { OptimizationView } from "../../store/types.js";
import { ExtractiveSummarizer } from "./extractive-summarizer.js";
import { importanceScoringStrategy } from "./importance-scoring.js";
import { intelligentStrategy } from "./intelligent.js";
import { isSummary } from "./model-view.js";
import { maskable, maskedCopy, recentKeep } from "./observation-masking.js";
import {
  hasRecentFiles,
  RECENT_FILES_SHARE,
  type RecentFileReader,
  recentFilePaths,
  recentFilesSection,
  withoutRecentFiles,
} from "./recent-files.js";
import { recentNStrategy } from "./recent-n.js";
import {
  cachedContextMessageTokens,
  contextMessageTokens,
  countRequestTokens,
  needsOptimization,
  optimizationTarget,
  requestTokensAtMost,
} from "./request-tokens.js";
import { type OptimizationStrategyImpl, recentTailUnit, segmentUnits } from "./selection.js";
import type { SummarizeOptions, Summarizer } from "./summarizer.js";
import { summaryShares } from "./summary-share.js";
import { estimateTruncatedTokens, truncateToolResult } from "./tool-output-truncation.js";

// optimizeBranch: what the model sees of a branch. The cascade, cheapest first (issue #15):
//   1. truncate long tool outputs (view copies, same ids);
//   2. mask old tool outputs (observation masking): every result before the strategy's recent
//      messages becomes a stored copy holding a one-line note (observation-masking.ts);
//   3. only if still over the target: the configured strategy selects what to keep, and each batch
//      of the rest becomes ONE new summary message (the session's summarizer, falling back to the
//      extractive one on failure or timeout), each within its token share (summary-share.ts);
//   4. only if still over the target (summaries longer than asked, or a kept set too large):
//      drop whole units, the oldest dialogue first and the summaries last, never the last unit.
// It triggers above trigger_ratio × window and aims at target_ratio × window, well below, so
// several turns fit before the next optimization.
//
// Contract: stored messages are never modified — the view is made of pool messages, truncated view
// copies and NEW messages (summaries and masked results, returned for the caller to store). Order
// is preserved; a tool_request is never separated from its tool_results; re-optimizing the
// returned view with the same inputs changes nothing. The view may begin with an answer: the
// conversion to the model's messages puts a user note first (to-agent-messages.ts).

export interface OptimizeBranchInput {
  /**
   * awaited once the view is found to need optimizing, before anything is changed (a workspace's
   * PreCompact hooks); a throw is the caller's to keep out
   */
  beforeOptimize?: () => Promise<void>;
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
  /** the turn of a message (summaries tag their facts with it); default: counted in `messages` */
  turnOf?: (message: ContextMessage) => number | undefined;
  /** one summary may take this long before the extractive one stands in; default 120 s */
  summaryTimeoutMs?: number;
  /**
   * reads a workspace file as it is now (confined, secrets redacted): after summarizing, the files
   * the summarized or masked messages used are re-read into the newest summary (recent-files.ts);
   * absent: none are
   */
  readRecentFile?: RecentFileReader;
}

export type OptimizationTier = "truncate" | "mask" | "summarize" | "drop";

export interface OptimizeBranchResult {
  view: ContextMessage[];
  /** the new summary messages, to be stored (system_control{kind: "summary"}, role "system") */
  summaries: ContextMessage[];
  /** the new masked tool results in the view, to be stored (observation-masking.ts) */
  masked: ContextMessage[];
  /** tokens and message counts cover the whole request: system prompt, tools and messages */
  record: OptimizationView;
  /**
   * true: there is something to store (summaries, masks or drops). False: nothing to store; the
   * view may still differ from the input by truncated outputs (tiers says so)
   */
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
const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;

interface BatchSummary {
  text: string;
  summarizer: string;
  model?: string;
  fallback_reason?: string;
}

async function summarizeBatch(
  batch: readonly ContextMessage[],
  summarizer: Summarizer,
  signal: AbortSignal,
  options: SummarizeOptions & { timeoutMs: number },
): Promise<BatchSummary> {
  const { timeoutMs, ...summarize } = options;
  try {
    const text = await summarizer.summarize(
      batch,
      AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      summarize,
    );
    return {
      text,
      summarizer: summarizer.kind,
      ...(summarizer.label ? { model: summarizer.label } : {}),
    };
  } catch (error) {
    // the caller's cancellation ends the optimization; a failure or a timeout falls back
    signal.throwIfAborted();
    const reason = error instanceof Error ? error.message : String(error);
    const text = await fallbackSummarizer.summarize(batch, signal, summarize);
    return { text, summarizer: fallbackSummarizer.kind, fallback_reason: reason };
  }
}

async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Turns counted in the input: each user message (not a tool result) starts the next one. */
function countedTurns(messages: readonly ContextMessage[]): (m: ContextMessage) => number {
  const turns = new Map<ContextMessage, number>();
  let turn = 0;
  for (const message of messages) {
    if (message.role === "user" && message.body.message_type !== "tool_result") turn++;
    turns.set(message, Math.max(1, turn));
  }
  return (message) => turns.get(message) ?? Math.max(1, turn);
}

/** Below this many tokens a cut summary says too little: it is dropped instead. */
const MIN_TRIMMED_SUMMARY = 60;

/**
 * `summary` cut to its first lines within `tokens` (its header and what comes first: decisions,
 * errors, questions, then facts), saying how many lines were left out; undefined when too little
 * would be left.
 */
function trimSummary(
  summary: ContextMessage,
  tokens: number,
  counter: TokenCounter,
  copy: { id: string },
): ContextMessage | undefined {
  const body = summary.body;
  if (body.message_type !== "system_control" || tokens < MIN_TRIMMED_SUMMARY) return undefined;
  const lines = body.text.split("\n");
  const room = tokens - 24;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = counter.countText(line) + 1;
    if (used + cost > room) break;
    kept.push(line);
    used += cost;
  }
  if (kept.length < 2) return undefined;
  const text = `${kept.join("\n")}\n(${lines.length - kept.length} more lines left out for space)`;
  return {
    ...summary,
    id: copy.id,
    body: { ...body, text, data: { ...body.data, trimmed_from_lines: lines.length } },
  };
}

/**
 * False only when `optimizeBranch(input)` surely gives the input back unchanged (not forced, and
 * the request stays within the trigger by a bound of its tokens: requestTokensAtMost), found
 * without tokenizing messages not counted yet. A caller that uses nothing of an unchanged
 * result (its record's counts included) can skip the call then.
 */
export function mayOptimize(
  input: Pick<
    OptimizeBranchInput,
    | "messages"
    | "systemPrompt"
    | "tools"
    | "config"
    | "contextWindow"
    | "counter"
    | "force"
    | "shrinkTo"
  >,
): boolean {
  if (input.force || input.shrinkTo !== undefined) return true;
  const most = requestTokensAtMost(input, input.counter ?? defaultTokenCounter());
  return most === undefined || needsOptimization(most, input.config, input.contextWindow);
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
    masked: [],
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
  await input.beforeOptimize?.();
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

  // Tier 2: mask the outputs of old tool calls (every result before the recent messages), and
  // the files an earlier summary re-read (their contents are old by now: recent-files.ts).
  /** masked copy → the id of the message it stands for */
  const maskOf = new Map<ContextMessage, string>();
  if (total > target) {
    const units = segmentUnits(truncated);
    const tail = recentTailUnit(units, truncated.length, Math.max(1, recentKeep(config.strategy)));
    const tailStart = units[tail]?.start ?? truncated.length;
    for (let i = 0; i < tailStart; i++) {
      const stored = messages[i]!;
      const copy = hasRecentFiles(stored)
        ? withoutRecentFiles(stored, input.newId(), input.now())
        : maskable(stored)
          ? maskedCopy(stored, input.newId(), input.now())
          : undefined;
      if (copy === undefined) continue;
      maskOf.set(copy, messages[i]!.id);
      truncated[i] = copy;
      total -= tokens[i]!;
      tokens[i] = exact(copy);
      total += tokens[i]!;
    }
    if (maskOf.size > 0) tiers.push("mask");
  }
  // the estimate only decides whether to go on; a view is always measured exactly
  if (total <= target) total = sumExact(truncated);

  let view: ContextMessage[] = truncated;
  let summaries: ContextMessage[] = [];
  const dropped: string[] = [];
  if (total > target) {
    // Tier 3: the strategy's selection, each batch summarized within its share.
    const selection = strategyFor(config.strategy).select({
      messages: truncated,
      tokens,
      budget: target - overhead,
    });
    const batches: ContextMessage[][] = [];
    let kept = 0;
    selection.dispositions.forEach((disposition, i) => {
      if (disposition.kind === "summarize") {
        const batch = batches[disposition.group] ?? [];
        // the summarizer reads the stored message, not its truncated or masked view copy (but a
        // summary without its old files: they would only be summarized again)
        const copy = truncated[i]!;
        batch.push(maskOf.has(copy) && isSummary(copy) ? copy : messages[i]!);
        batches[disposition.group] = batch;
      } else if (disposition.kind === "drop") dropped.push(messages[i]!.id);
      else kept += tokens[i]!;
    });
    const batchTokens = batches.map((batch) => batch.reduce((a, m) => a + exact(m), 0));
    const shares = summaryShares(batches, batchTokens, exact, target - overhead - kept);
    const turnOf = input.turnOf ?? countedTurns(messages);
    const texts = await mapPool(batches, input.concurrency ?? 3, (batch, g) =>
      summarizeBatch(batch, input.summarizer, signal, {
        maxTokens: shares[g]!,
        turnOf,
        timeoutMs: input.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
      }),
    );
    signal.throwIfAborted();
    summaries = batches.map((batch, g): ContextMessage => {
      const { text, ...how } = texts[g]!;
      return {
        id: input.newId(),
        session_id: input.sessionId,
        role: "system",
        body: {
          message_type: "system_control",
          kind: "summary",
          text,
          replaces: batch.map((m) => maskOf.get(m) ?? m.id),
          data: {
            ...how,
            share_tokens: shares[g]!,
            replaced_tokens: batchTokens[g]!,
            replaced_messages: batch.length,
          },
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
    // a strategy configured not to summarize drops instead
    if (dropped.length > 0) tiers.push("drop");
    total = sumExact(view);
    if (summaries.length > 0 && input.readRecentFile) {
      // the files the summarized and masked messages used, re-read into the newest summary
      const byId = new Map(messages.map((m) => [m.id, m]));
      const gone: ContextMessage[] = [];
      selection.dispositions.forEach((disposition, i) => {
        if (disposition.kind === "summarize") gone.push(messages[i]!);
        const body = truncated[i]!.body;
        if (maskOf.has(truncated[i]!) && body.message_type === "tool_result") {
          const request = byId.get(body.request_id);
          if (request) gone.push(request);
        }
      });
      const budget = Math.min(target - total, Math.floor(RECENT_FILES_SHARE * (target - overhead)));
      const section = await recentFilesSection(
        recentFilePaths(gone, view),
        input.readRecentFile,
        budget,
        counter,
      );
      signal.throwIfAborted();
      const newest = view.findLastIndex((m) => summaries.includes(m));
      const summary = view[newest];
      if (section && summary?.body.message_type === "system_control") {
        const withFiles: ContextMessage = {
          ...summary,
          body: {
            ...summary.body,
            text: `${summary.body.text}${section.text}`,
            data: { ...summary.body.data, recent_files: section.files },
          },
        };
        view[newest] = withFiles;
        summaries = summaries.map((s) => (s === summary ? withFiles : s));
        total = sumExact(view);
      }
    }
  }

  if (total > target) {
    // Tier 4: drop whole units, the oldest dialogue first, summaries last, never the last unit.
    const units = segmentUnits(view);
    const order = [
      ...units.slice(0, -1).filter((unit) => !isSummary(view[unit.start]!)),
      ...units.slice(0, -1).filter((unit) => isSummary(view[unit.start]!)),
    ];
    const gone = new Set<number>();
    for (const { start, end } of order) {
      if (total <= target) break;
      const first = view[start]!;
      if (isSummary(first) && end === start + 1) {
        // a summary that fits in part is cut to what fits rather than dropped whole
        const trimmed = trimSummary(first, exact(first) - (total - target), counter, {
          id: summaries.includes(first) ? first.id : input.newId(),
        });
        if (trimmed !== undefined) {
          if (summaries.includes(first))
            summaries = summaries.map((m) => (m === first ? trimmed : m));
          else maskOf.set(trimmed, maskOf.get(first) ?? first.id);
          view[start] = trimmed;
          total += exact(trimmed) - exact(first);
          if (!tiers.includes("drop")) tiers.push("drop");
          continue;
        }
      }
      for (let i = start; i < end; i++) {
        const message = view[i]!;
        gone.add(i);
        total -= exact(message);
        if (message.body.message_type === "system_control" && isSummary(message)) {
          if (summaries.includes(message)) {
            // made now, so never stored: what it stands for is dropped instead
            summaries = summaries.filter((s) => s !== message);
            dropped.push(...(message.body.replaces ?? []));
          } else {
            // a stored summary (or a copy standing for one): dropping it hides everything it
            // covers (viewFromRecords)
            dropped.push(maskOf.get(message) ?? message.id);
          }
        } else dropped.push(maskOf.get(message) ?? message.id);
      }
    }
    if (gone.size > 0) {
      if (!tiers.includes("drop")) tiers.push("drop");
      view = view.filter((_, i) => !gone.has(i));
    }
  }

  const masked = view.filter((m) => maskOf.has(m));
  const out = record(view, total);
  out.summaries = [
    ...summaries.map((s) => ({
      summary_message_id: s.id,
      replaces: s.body.message_type === "system_control" ? (s.body.replaces ?? []) : [],
    })),
    ...masked.map((m) => ({ summary_message_id: m.id, replaces: [maskOf.get(m)!] })),
  ];
  out.dropped = dropped;
  const changed = summaries.length > 0 || masked.length > 0 || dropped.length > 0;
  if (tiers.length === 0) return unchanged();
  return { view, summaries, masked, record: out, changed, tiers, target };
}
