import type { ContextMessage } from "../../model/message-types.js";
import type { OptimizationView } from "../../store/types.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { toolDefinition } from "../../tools/tool.js";
import { type OptimizeBranchResult, optimizeBranch } from "../optimization/optimizer.js";
import { viewFromRecords } from "../optimization/view-record.js";
import type { StoredSession } from "./stored-session.js";

// The session's side of optimization: the current optimized view of a branch (its stored records
// applied to its messages), and one optimization step whose new summaries and record are stored
// (stored messages never change; a summary is a new message off the branch).

export function branchRecords(core: StoredSession, branchId: string): OptimizationView[] {
  return core.views.filter((v) => v.branch_id === branchId);
}

/** The branch as the model sees it now: summaries in place of what they replaced. */
export function currentView(
  core: StoredSession,
  branchId = core.activeBranchId,
  extra: ContextMessage[] = [],
): ContextMessage[] {
  const messages = [...core.branchMessages(branchId), ...extra];
  const records = branchRecords(core, branchId);
  if (records.length === 0) return messages;
  const lookup = new Map<string, ContextMessage>();
  for (const message of messages) lookup.set(message.id, message);
  for (const record of records) {
    for (const { summary_message_id, replaces } of record.summaries) {
      const summary = core.pool.get(summary_message_id);
      if (summary) lookup.set(summary.id, summary);
      for (const id of replaces) {
        const replaced = core.pool.get(id);
        if (replaced) lookup.set(id, replaced);
      }
    }
  }
  return viewFromRecords(messages, records, lookup);
}

export interface OptimizeStep {
  systemPrompt: string;
  tools: readonly AnyAgentTool[];
  signal: AbortSignal;
  force?: boolean;
  /** after a context overflow: aim at most at this fraction of the current size (optimizer.ts) */
  shrinkTo?: number;
  /** a message being processed, not yet in the pool (it is always among the kept recent ones) */
  pending?: ContextMessage;
}

/** Optimizes the active branch's current view; returns the result (not yet stored). */
export async function optimizeActiveBranch(
  core: StoredSession,
  step: OptimizeStep,
): Promise<OptimizeBranchResult> {
  const branchId = core.activeBranchId;
  return optimizeBranch({
    messages: currentView(core, branchId, step.pending ? [step.pending] : []),
    systemPrompt: step.systemPrompt,
    tools: step.tools.map(toolDefinition),
    config: core.config.optimization,
    contextWindow: core.config.model?.context_window ?? core.deps.model.contextWindow ?? 100_000,
    summarizer: core.deps.summarizer,
    now: () => core.nowIso(),
    newId: () => core.newId(),
    sessionId: core.id,
    branchId,
    signal: step.signal,
    ...(step.force ? { force: true } : {}),
    ...(step.shrinkTo !== undefined ? { shrinkTo: step.shrinkTo } : {}),
  });
}

/** The write that stores an optimization's new summaries and its record. */
export function optimizationWrite(result: OptimizeBranchResult) {
  return {
    messages: [...result.summaries, ...result.masked],
    optimization_views: [result.record],
  };
}

export function optimizationMetadata(result: OptimizeBranchResult): Record<string, unknown> {
  return {
    optimization_id: result.record.id,
    tokens_before: result.record.tokens_before,
    tokens_after: result.record.tokens_after,
    messages_before: result.record.messages_before,
    messages_after: result.record.messages_after,
    tiers: result.tiers,
    summaries: result.summaries.length,
    masked: result.masked.length,
  };
}
