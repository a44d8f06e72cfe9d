import { lastAssistant } from "../../agent/evaluation.js";
import type { ParallelLoopResult } from "../../agent/parallel.js";
import { costOfUsage } from "../../llm/pricing.js";
import { type AgentMessage, emptyUsage, type Usage } from "../../model/llm-messages.js";
import type { ApprovalStatus, ContextMessage } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import { pricedUsage, sumCostedUsage, withCost } from "../../model/usage-cost.js";
import type { ParallelMessageRequest } from "../../protocol/parallel.js";
import { createBranch } from "../branches/branch-ops.js";
import { assistantRow, toolResultRow } from "./agent-rows.js";
import { labelOf } from "./parallel-config.js";
import type { RunResult } from "./run-driver.js";
import type { StoredSession } from "./stored-session.js";

// Ask N ways (parallel-ask.ts), the end: every candidate's messages as rows, and the ONE write
// that keeps them — the chosen candidate's after a verdict notice on the active branch, each other
// one on a new branch forked after the user's message — with the verdict event.

/** What an ask-N-ways operation did. */
export type ParallelAskResult =
  | {
      type: "chosen";
      group_id: string;
      selected: number;
      reason: string;
      /** per candidate, in request order: the branch that keeps its answer */
      branch_ids: string[];
      usage: Usage;
    }
  | Extract<RunResult, { type: "not_run" }>;

/** The judge's reply row's meta: its usage, priced by its model when that is known. */
function judgeMeta(
  usage: Usage,
  loopId: string,
  model: string | undefined,
): ContextMessage["meta"] {
  const cost = model === undefined ? undefined : costOfUsage(usage, model);
  return {
    ...(model === undefined ? {} : { model }),
    usage: withCost(usage, cost ?? null),
    ...(cost === undefined ? {} : { cost_usd: cost }),
    loop_id: loopId,
    stop_reason: "stop",
  };
}

/** The rows of one candidate's new messages (its prompt left out), in order. */
function candidateRows(
  core: StoredSession,
  messages: readonly AgentMessage[],
  loopId: string,
  decided: ReadonlyMap<string, ApprovalStatus>,
): ContextMessage[] {
  const rows: ContextMessage[] = [];
  const requestOf = new Map<string, string>();
  const argsOf = new Map<string, Record<string, unknown>>();
  const ctx = (id: string) => ({ id, sessionId: core.id, now: core.nowIso(), loopId });
  for (const message of messages) {
    if (message.role === "assistant") {
      const cut = message.stopReason === "error" || message.stopReason === "aborted";
      const hasContent = message.content.some((b) =>
        b.type === "text" ? b.text.length > 0 : b.type !== "thinking",
      );
      if (cut && !hasContent) continue;
      const row = assistantRow(
        message,
        ctx(core.newId()),
        cut ? "incomplete" : "complete",
        () => "pending",
      );
      if (row.body.message_type === "tool_request") {
        for (const call of row.body.calls) {
          call.approval = decided.get(call.id) ?? "denied";
          requestOf.set(call.id, row.id);
          argsOf.set(call.id, call.arguments);
        }
      }
      rows.push(row);
    } else if (message.role === "toolResult") {
      const call = {
        arguments: argsOf.get(message.toolCallId) ?? {},
        approval: decided.get(message.toolCallId) ?? ("denied" as const),
      };
      rows.push(
        toolResultRow(
          message,
          { ...ctx(core.newId()), requestId: requestOf.get(message.toolCallId) ?? "unknown" },
          call,
        ),
      );
    }
  }
  return rows;
}

export async function storeAnswers(
  core: StoredSession,
  request: ParallelMessageRequest,
  message: ContextMessage,
  result: ParallelLoopResult,
  run: {
    groupId: string;
    decided: ReadonlyMap<string, ApprovalStatus>;
    judgeLoopId: string | undefined;
    judgeText: string | undefined;
    /** the model that answered as the judge (prices its usage) */
    judgeModel: string | undefined;
    interrupted: boolean;
  },
): Promise<ParallelAskResult> {
  const now = core.nowIso();
  const active = core.activeBranch();
  const selected = result.selectedIndex;
  const rowsOf = result.outcomes.map((outcome) =>
    candidateRows(core, outcome.newMessages, outcome.loopId, run.decided),
  );
  const branches = [];
  const branchIds: string[] = [];
  for (const [index, rows] of rowsOf.entries()) {
    if (index === selected) {
      branchIds.push(active.id);
      continue;
    }
    const branch = createBranch({
      newId: () => core.newId(),
      now: () => now,
      pool: (id) => core.pool.get(id),
      from: active,
      fromMessageId: message.id,
      existing: [...core.branches.values(), ...branches],
      name: `${labelOf(request.candidates[index] ?? {}, index)} (asked ${request.candidates.length} ways)`,
    });
    branch.message_ids.push(...rows.map((r) => r.id));
    branches.push(branch);
    branchIds.push(branch.id);
  }
  const chosenRows = rowsOf[selected] ?? [];
  const verdict = {
    group_id: run.groupId,
    strategy: request.judge.strategy,
    selected,
    reason: result.reason,
    ...(result.fallback ? { fallback: true as const } : {}),
    candidates: request.candidates.map((candidate, index) => ({
      index,
      label: labelOf(candidate, index),
      branch_id: branchIds[index] ?? active.id,
    })),
  };
  const notice: ContextMessage = {
    id: core.newId(),
    session_id: core.id,
    role: "system",
    body: {
      message_type: "system_control",
      kind: "notice",
      // a fallback was chosen by no one: the reason says why it was taken, in one sentence
      text: result.fallback
        ? `Asked ${request.candidates.length} ways; ${labelOf(request.candidates[selected] ?? {}, selected)} was taken. ${result.reason}`
        : `Asked ${request.candidates.length} ways; ${labelOf(request.candidates[selected] ?? {}, selected)} was chosen: ${result.reason}`,
      data: { parallel: verdict },
    },
    status: "complete",
    created_at: now,
    completed_at: now,
  };
  // the judge's reply: on no branch (never sent to a model), counted in the session's usage
  const judgeRow: ContextMessage[] =
    run.judgeText !== undefined && run.judgeLoopId !== undefined
      ? [
          {
            id: core.newId(),
            session_id: core.id,
            role: "assistant",
            body: { message_type: "text", text: run.judgeText },
            status: "complete",
            created_at: now,
            completed_at: now,
            meta: judgeMeta(result.evaluationUsage, run.judgeLoopId, run.judgeModel),
          },
        ]
      : [];
  // the judge's request, priced by its model (the other strategies spend nothing)
  const evaluation =
    result.evaluationUsage.totalTokens === 0
      ? withCost(result.evaluationUsage, 0)
      : pricedUsage(result.evaluationUsage, run.judgeModel, costOfUsage);
  const appended = [notice, ...chosenRows];
  const from = core.state;
  const rest: ContextState[] = run.interrupted
    ? [{ type: "Interrupting" }, { type: "Idle" }]
    : [{ type: "ProcessingLLMResponse" }, { type: "Idle" }];
  const chain =
    core.checkChain(rest) === undefined ? { states: rest } : { reset: { type: "Idle" } as const };
  const processing = rest[0] as ContextState;
  await core.commit({
    ...chain,
    write: {
      messages: [...rowsOf.flat(), notice, ...judgeRow],
      branches,
      branch_appends: [{ branch_id: active.id, message_ids: appended.map((m) => m.id) }],
    },
    events: [
      core.contextUpdateEvent(processing, from),
      {
        name: "parallel_verdict",
        payload: {
          context_id: core.id,
          group_id: run.groupId,
          strategy: request.judge.strategy,
          selected,
          reason: result.reason,
          ...(result.fallback ? { fallback: true as const } : {}),
          candidates: rowsOf.map((rows, index) => ({
            index,
            branch_id: branchIds[index] ?? active.id,
            message_ids: rows.map((r) => r.id),
          })),
          evaluation_usage: evaluation,
          usage: sumCostedUsage([
            ...result.outcomes.map((o) =>
              pricedUsage(o.usage, lastAssistant(o.newMessages)?.model, costOfUsage),
            ),
            evaluation,
          ]),
        },
      },
      ...appended.flatMap((m) => core.messageEvents(m, active.id, processing)),
      core.contextUpdateEvent({ type: "Idle" }, processing, undefined, {
        parallel_group: run.groupId,
        branches_created: branches.map((b) => b.id),
        ...(run.interrupted ? { interrupted: true } : {}),
      }),
    ],
  });
  return {
    type: "chosen",
    group_id: run.groupId,
    selected,
    reason: result.reason,
    branch_ids: branchIds,
    usage: result.usage ?? emptyUsage(),
  };
}
