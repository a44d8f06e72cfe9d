import type { ContextMessage } from "../../model/message-types.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { OptimizationView } from "../../store/types.js";
import { TELEMETRY_NAMES } from "../../telemetry/names.js";
import { inSpan } from "../../telemetry/spans.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { toolDefinition } from "../../tools/tool.js";
import { type OptimizeBranchResult, optimizeBranch } from "../optimization/optimizer.js";
import { viewFromRecords } from "../optimization/view-record.js";
import { hookSessionInfo } from "./command-hook-calls.js";
import { optimizerSettings } from "./optimizer-settings.js";
import { calibrateBeforeRequest } from "./session-token-count.js";
import type { AheadOptimization, StoredSession } from "./stored-session.js";

// The session's side of optimization: the current optimized view of a branch (its stored records
// applied to its messages) and one optimization step whose new messages and record are stored
// (stored messages never change; summaries and masks are new messages off the branch), with the
// settings every loop of the session optimizes with (optimizer-settings.ts: strategy, window, who
// writes the summaries). An optimization made ahead, after an answer (optimizeAhead), is taken
// over by the next step instead of being made again while the user waits.

export function branchRecords(core: StoredSession, branchId: string): OptimizationView[] {
  return core.views.filter((v) => v.branch_id === branchId);
}

/** The branch as the model sees it now: summaries and masks in place of what they replaced. */
export function currentView(
  core: StoredSession,
  branchId = core.activeBranchId,
  extra: ContextMessage[] = [],
  more: OptimizeBranchResult[] = [],
): ContextMessage[] {
  const messages = [...core.branchMessages(branchId), ...extra];
  const records = [...branchRecords(core, branchId), ...more.map((r) => r.record)];
  if (records.length === 0) return messages;
  const lookup = new Map<string, ContextMessage>();
  for (const message of messages) lookup.set(message.id, message);
  for (const result of more) {
    for (const message of [...result.summaries, ...result.masked]) lookup.set(message.id, message);
  }
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

/** Turn numbers of a branch: each user message that is not a tool result starts the next one. */
function turnsOf(messages: readonly ContextMessage[]): (m: ContextMessage) => number | undefined {
  const turns = new Map<string, number>();
  let turn = 0;
  for (const message of messages) {
    if (message.role === "user" && message.body.message_type !== "tool_result") turn++;
    turns.set(message.id, Math.max(1, turn));
  }
  return (message) => turns.get(message.id);
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

/** One step's outcome: the view for the request and what to store. */
export interface SessionOptimization {
  view: ContextMessage[];
  /** this step's own optimization (changed false: nothing of its own to store) */
  result: OptimizeBranchResult;
  /** an optimization made ahead (after the last answer) and taken over now */
  taken: OptimizeBranchResult | undefined;
  /** what to store, oldest first: the one taken over, then this one */
  stored: OptimizeBranchResult[];
}

// ---- optimizing ahead -------------------------------------------------------------------------

/** Starts optimizing the active branch for its next request; core.ahead holds it. */
export function startAhead(
  core: StoredSession,
  setup: { systemPrompt: string; tools: readonly AnyAgentTool[] },
): AheadOptimization {
  const branchId = core.activeBranchId;
  const controller = new AbortController();
  const ahead: AheadOptimization = {
    branchId,
    records: branchRecords(core, branchId).length,
    messageIds: core.branchMessages(branchId).map((m) => m.id),
    controller,
    settled: false,
    result: Promise.resolve(undefined),
  };
  ahead.result = optimizeOnce(core, { ...setup, signal: controller.signal }, [])
    .then(
      (result) => (result.changed ? result : undefined),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          core.deps.logger.warn("the optimization made ahead failed", {
            session: core.id,
            error: error instanceof Error ? error.message : String(error),
          });
        }
        return undefined;
      },
    )
    .finally(() => {
      ahead.settled = true;
    });
  core.ahead = ahead;
  return ahead;
}

function stillValid(core: StoredSession, ahead: AheadOptimization): boolean {
  if (core.activeBranchId !== ahead.branchId) return false;
  if (branchRecords(core, ahead.branchId).length !== ahead.records) return false;
  const now = core.branchMessages(ahead.branchId);
  return ahead.messageIds.every((id, i) => now[i]?.id === id);
}

/**
 * The optimization made ahead, when there is one and it still applies to the branch (waiting for
 * it if it is still running: it started earlier than anything that could start now). Clears it.
 */
export async function takeAhead(core: StoredSession): Promise<OptimizeBranchResult | undefined> {
  const ahead = core.ahead;
  if (ahead === undefined) return undefined;
  if (!stillValid(core, ahead)) {
    ahead.controller.abort();
    core.ahead = undefined;
    return undefined;
  }
  const result = await ahead.result;
  if (core.ahead === ahead) core.ahead = undefined;
  return result !== undefined && stillValid(core, ahead) ? result : undefined;
}

// ---- one step ---------------------------------------------------------------------------------

function optimizeOnce(
  core: StoredSession,
  step: OptimizeStep,
  taken: OptimizeBranchResult[],
): Promise<OptimizeBranchResult> {
  const branchId = core.activeBranchId;
  const extra = step.pending ? [step.pending] : [];
  const hooks = core.deps.commandHooks?.(core.config);
  return optimizeBranch({
    ...optimizerSettings(core),
    // the workspace's PreCompact hooks: `manual` for an optimization a person asked for
    ...(hooks !== undefined
      ? {
          beforeOptimize: () =>
            hooks.preCompact(
              hookSessionInfo(core),
              step.force ? "manual" : "auto",
              "",
              step.signal,
            ),
        }
      : {}),
    messages: currentView(core, branchId, extra, taken),
    systemPrompt: step.systemPrompt,
    tools: step.tools.map(toolDefinition),
    turnOf: turnsOf([...core.branchMessages(branchId), ...extra]),
    newId: () => core.newId(),
    branchId,
    signal: step.signal,
    ...(step.force ? { force: true } : {}),
    ...(step.shrinkTo !== undefined ? { shrinkTo: step.shrinkTo } : {}),
  });
}

/**
 * Optimizes the active branch's current view (not yet stored): first takes over an optimization
 * made ahead, then optimizes what it left, which is usually nothing.
 */
export function optimizeActiveBranch(
  core: StoredSession,
  step: OptimizeStep,
): Promise<SessionOptimization> {
  // a span of its own, under the run's when a run asks (telemetry/)
  const names = TELEMETRY_NAMES.attributes;
  return inSpan(
    TELEMETRY_NAMES.spans.contextOptimize,
    {
      [names.conversationId]: core.id,
      [names.contextReason]: step.shrinkTo !== undefined ? "overflow" : "request",
    },
    async (span) => {
      const optimized = await optimizeOnActiveBranch(core, step);
      if (span.isRecording()) {
        span.setAttributes({
          [names.contextTokensBefore]: optimized.result.record.tokens_before,
          [names.contextTokensAfter]: optimized.result.record.tokens_after,
        });
      }
      return optimized;
    },
  );
}

async function optimizeOnActiveBranch(
  core: StoredSession,
  step: OptimizeStep,
): Promise<SessionOptimization> {
  const ahead = await takeAhead(core);
  step.signal.throwIfAborted();
  const taken = ahead ? [ahead] : [];
  // near the trigger, the provider's own count of this request decides (session-token-count.ts)
  await calibrateBeforeRequest(
    core,
    {
      systemPrompt: step.systemPrompt,
      tools: step.tools,
      messages: currentView(core, core.activeBranchId, step.pending ? [step.pending] : [], taken),
    },
    step.signal,
  );
  const result = await optimizeOnce(core, step, taken);
  // what the view about to be sent is estimated at: its reported usage calibrates the next ones
  core.tokens.expect(result.record.tokens_after);
  return {
    view: result.view,
    result,
    taken: ahead,
    stored: [...taken, ...(result.changed ? [result] : [])],
  };
}

/** The write that stores an optimization step's new messages and records. */
export function optimizationWrite(step: Pick<SessionOptimization, "stored">) {
  return {
    messages: step.stored.flatMap((r) => [...r.summaries, ...r.masked]),
    optimization_views: step.stored.map((r) => r.record),
  };
}

/** One context_update per stored optimization (in the current state), `extra` in each. */
export function optimizationUpdates(
  core: StoredSession,
  step: Pick<SessionOptimization, "stored" | "taken">,
  extra: Record<string, unknown> = {},
): SessionEventBody[] {
  return step.stored.map((result) =>
    core.contextUpdateEvent(core.state, undefined, undefined, {
      changed: true,
      ...optimizationMetadata(result, result === step.taken),
      ...extra,
    }),
  );
}

export function optimizationMetadata(
  result: OptimizeBranchResult,
  ahead = false,
): Record<string, unknown> {
  return {
    optimization_id: result.record.id,
    tokens_before: result.record.tokens_before,
    tokens_after: result.record.tokens_after,
    messages_before: result.record.messages_before,
    messages_after: result.record.messages_after,
    tiers: result.tiers,
    summaries: result.summaries.length,
    masked: result.masked.length,
    ...(ahead ? { ahead: true } : {}),
  };
}
