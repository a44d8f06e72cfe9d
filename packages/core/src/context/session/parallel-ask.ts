import {
  ElaborateEvaluation,
  type EvaluationStrategy,
  finalText,
  lastAssistant,
  PickFirstEvaluation,
  TokenEfficientEvaluation,
} from "../../agent/evaluation.js";
import { LlmJudgeEvaluation } from "../../agent/judge.js";
import { effectiveConfigId, loopIdOf } from "../../agent/loop-id.js";
import { type ParallelLoopResult, runAgentLoopParallel } from "../../agent/parallel.js";
import type { AgentEvent, AgentLoopConfig, ToolCallVerdict } from "../../agent/types.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ModelConfig } from "../../model/llm-config.js";
import {
  type AgentMessage,
  emptyUsage,
  type ToolCallContent,
  type Usage,
} from "../../model/llm-messages.js";
import type { ApprovalStatus, ContextMessage } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type {
  ParallelCandidate,
  ParallelJudge,
  ParallelMessageRequest,
  ParallelStrategyName,
} from "../../protocol/parallel.js";
import { createBranch } from "../branches/branch-ops.js";
import { isPlanTool } from "../plan-act.js";
import { assistantRow, toolResultRow } from "./agent-rows.js";
import { DENIED_RESULT_TEXT, initialApproval } from "./approval-policy.js";
import type { ParallelApprovals } from "./parallel-approvals.js";
import { notFoundText, type RunResult } from "./run-driver.js";
import { processMessage } from "./send-message.js";
import { currentView } from "./session-optimization.js";
import { OperationRejected, StorageFailure, type StoredSession } from "./stored-session.js";
import { toAgentMessage, toAgentMessages } from "./to-agent-messages.js";

// "Ask N ways" (issue #14; REQ-196–209 in the product): one user message, answered by N candidate
// loops at once through agentLoopParallel, one of them chosen. The message goes through the
// branch's pipeline and is stored like any other; the candidates stream into their own columns
// (candidate_* events, stored and replayable); once the strategy has chosen, ONE write keeps
// every answer: the chosen one's messages continue the active branch (after a notice with the
// verdict), and every other candidate's messages go on a new branch forked after the user's
// message (ordinary branches: listed, switchable, mergeable). A judge's reply is stored as an
// assistant message on no branch, so the session's usage (summed over assistant messages)
// includes it. The session's state follows one answer's path (Preparing → Connecting →
// AwaitingFirstChunk → Streaming → Processing → Idle); a candidate waiting for a tool approval
// does not move it: only that candidate waits (ParallelApprovals), the others go on.

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

/** A candidate's or the judge's model that cannot be used: the request field and why. */
export interface ParallelRequestProblem {
  field: string;
  message: string;
}

/** Checks the models a request names (keys present) before anything is stored. */
export function parallelRequestProblem(
  core: StoredSession,
  request: Pick<ParallelMessageRequest, "candidates" | "judge">,
): ParallelRequestProblem | undefined {
  const check = (field: string, choice: ParallelCandidate["model"]) => {
    if (choice === undefined) return undefined;
    try {
      sessionModelConfig(core.deps.model, choice, core.deps.modelEnv);
      return undefined;
    } catch (error) {
      return { field, message: error instanceof Error ? error.message : String(error) };
    }
  };
  for (const [i, candidate] of request.candidates.entries()) {
    const problem = check(`candidates.${i}.model`, candidate.model);
    if (problem) return problem;
  }
  return check("judge.model", request.judge.model);
}

function modelFor(core: StoredSession, choice: ParallelCandidate["model"]): ModelConfig {
  const session = core.config.model;
  const wanted = choice ?? session;
  if (wanted === undefined) return core.deps.model;
  try {
    return sessionModelConfig(core.deps.model, wanted, core.deps.modelEnv);
  } catch (error) {
    throw new OperationRejected("invalid_request", (error as Error).message);
  }
}

function labelOf(candidate: ParallelCandidate, index: number): string {
  return candidate.label ?? `Candidate ${index + 1}`;
}

/** Stores candidate events in batches (a group commit), in the order they were added. */
class EventWriter {
  readonly #core: StoredSession;
  #events: SessionEventBody[] = [];
  #states: ContextState[] = [];
  #tail: Promise<void> = Promise.resolve();
  #scheduled = false;
  error: unknown;

  constructor(core: StoredSession) {
    this.#core = core;
  }

  /** Queues events (and state moves); the promise settles once they are stored. */
  add(events: SessionEventBody[], states: ContextState[] = []): Promise<void> {
    this.#events.push(...events);
    this.#states.push(...states);
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#tail = this.#tail.then(async () => {
        this.#scheduled = false;
        const events = this.#events.splice(0);
        const states = this.#states.splice(0);
        if (this.error !== undefined) return;
        try {
          await this.#core.commit({ ...(states.length > 0 ? { states } : {}), events });
        } catch (error) {
          this.error ??= error;
        }
      });
    }
    return this.#tail;
  }

  settled(): Promise<void> {
    return this.#tail;
  }
}

function strategyFor(
  core: StoredSession,
  judge: ParallelJudge,
  loop: Omit<AgentLoopConfig, "model">,
): EvaluationStrategy {
  const name: ParallelStrategyName = judge.strategy;
  switch (name) {
    case "pick_first":
      return new PickFirstEvaluation();
    case "token_efficient":
      return new TokenEfficientEvaluation();
    case "elaborate":
      return new ElaborateEvaluation();
    case "llm_judge": {
      const model = modelFor(core, judge.model);
      return new LlmJudgeEvaluation({
        judgeConfig: {
          ...loop,
          model,
          thinkingLevel: "off",
          // its own config id: the judge's loop id never takes a candidate's number
          configId: `judge-${effectiveConfigId({ ...loop, model, thinkingLevel: "off" })}`,
          executionLimits: null,
        },
        ...(judge.system_prompt !== undefined ? { systemPrompt: judge.system_prompt } : {}),
      });
    }
    default:
      return name satisfies never;
  }
}

/**
 * The operation: processes and stores the message, runs the candidates and the strategy, stores
 * every answer. Called inside a session operation (queued, leased); `approvals` is where this
 * group's pending calls wait.
 */
export async function askParallelOp(
  core: StoredSession,
  request: ParallelMessageRequest,
  message: ContextMessage,
  approvals: ParallelApprovals,
  signal: AbortSignal,
): Promise<ParallelAskResult> {
  const problem = parallelRequestProblem(core, request);
  if (problem)
    throw new OperationRejected("invalid_request", `${problem.field}: ${problem.message}`);
  const setup = await processMessage(core, message, { signal });
  if (!setup) return { type: "not_run", reason: "rolled_back" };
  // the message's write is in flight (TurnSetup.stored): the candidates' requests go out
  // meanwhile, and every later write is stored after it (StoredSession.commit keeps the order)
  const { deps } = core;
  const prompt = toAgentMessage(message);
  if (prompt === undefined) throw new OperationRejected("internal", "the message has no content");
  const history = toAgentMessages(currentView(core).filter((m) => m.id !== message.id));
  const tools = setup.tools.filter((t) => !isPlanTool(t.name));
  const offered = new Set(tools.map((t) => t.name));
  const session = core.config.model;
  const base: Omit<AgentLoopConfig, "model"> = {
    provider: deps.provider,
    contextConfig: null,
    executionLimits: deps.executionLimits,
    retryConfig: deps.retryConfig,
    toolExecution: { type: "sequential" },
    logger: deps.logger,
  };
  const writer = new EventWriter(core);
  const groupId = loopIdOf(core.id, "parallel", Date.now());
  approvals.groupId = groupId;
  const decided = new Map<string, ApprovalStatus>();
  const configs = request.candidates.map((candidate, index): AgentLoopConfig => {
    const config: AgentLoopConfig = {
      ...base,
      model: modelFor(core, candidate.model),
      thinkingLevel: candidate.thinking_level ?? session?.thinking_level ?? "off",
      approveToolCalls: (calls) => gate(index, calls),
    };
    if (candidate.temperature !== undefined) config.temperature = candidate.temperature;
    if (session?.max_tokens !== undefined) config.maxTokens = session.max_tokens;
    return config;
  });
  const toolEvent = (
    candidate: number,
    call: { id: string; name: string; arguments?: Record<string, unknown> },
    status: "pending_approval" | "approved" | "denied" | "running" | "done" | "failed",
  ): SessionEventBody => ({
    name: "candidate_tool",
    payload: {
      context_id: core.id,
      group_id: groupId,
      candidate,
      tool_call_id: call.id,
      tool_name: call.name,
      ...(call.arguments !== undefined ? { arguments: call.arguments } : {}),
      status,
    },
  });
  // the approval gate of one candidate: the session's policy, then (pending) a person
  const gate = async (
    candidate: number,
    calls: readonly ToolCallContent[],
  ): Promise<ToolCallVerdict[]> => {
    const verdicts: ToolCallVerdict[] = [];
    for (const call of calls) {
      if (!offered.has(call.name)) {
        decided.set(call.id, "denied");
        verdicts.push({ toolCallId: call.id, verdict: "deny", reason: notFoundText(call.name) });
        continue;
      }
      let approval = initialApproval(core.config.approval_policy, call.name);
      if (approval === "pending") {
        await writer.add([toolEvent(candidate, call, "pending_approval")]);
        const decision = await approvals.wait(call.id, candidate, call.name, signal);
        approval = decision === "approve" ? "approved" : "denied";
        // the decision's own event is stored by Session.decideToolCalls (its stream shows it)
      } else {
        await writer.add([
          toolEvent(candidate, call, approval === "denied" ? "denied" : "approved"),
        ]);
      }
      decided.set(call.id, approval);
      verdicts.push(
        approval === "denied"
          ? { toolCallId: call.id, verdict: "deny", reason: DENIED_RESULT_TEXT }
          : { toolCallId: call.id, verdict: "run" },
      );
    }
    return verdicts;
  };

  // loop ids numbered from the store (as RunDriver does): same-config candidates get the next ones
  const loopIds: string[] = [];
  const taken = new Map<string, number>();
  try {
    const configIds = configs.map((config) => effectiveConfigId(config));
    const distinct = [...new Set(configIds)];
    const numbers = await Promise.all(
      distinct.map((configId) => deps.store.nextLoopNumber(core.id, configId)),
    );
    distinct.forEach((configId, i) => taken.set(configId, numbers[i] ?? 1));
    for (const configId of configIds) {
      const next = taken.get(configId) ?? 1;
      loopIds.push(loopIdOf(core.id, configId, next));
      taken.set(configId, next + 1);
    }
  } catch (error) {
    throw new StorageFailure(error);
  }
  const candidateOf = new Map(loopIds.map((id, i) => [id, i]));
  const strategy = strategyFor(core, request.judge, base);

  const moves: ContextState[] = [
    { type: "PreparingLLMRequest" },
    { type: "ConnectingToLLM" },
    { type: "AwaitingLLMFirstChunk" },
  ];
  // not awaited: the requests go out while it is written; the writer keeps the order
  void writer.add(
    [
      ...moves.map((state, i) =>
        core.contextUpdateEvent(state, i === 0 ? core.state : moves[i - 1]),
      ),
      {
        name: "parallel_started",
        payload: {
          context_id: core.id,
          group_id: groupId,
          message_id: message.id,
          strategy: request.judge.strategy,
          candidates: request.candidates.map((candidate, index) => ({
            index,
            label: labelOf(candidate, index),
            loop_id: loopIds[index] ?? "",
            model: configs[index]?.model.model ?? "",
            thinking_level: configs[index]?.thinkingLevel ?? "off",
            ...(candidate.temperature !== undefined ? { temperature: candidate.temperature } : {}),
          })),
        },
      },
    ],
    moves,
  );

  let streaming = false;
  let judgeLoopId: string | undefined;
  let judgeText: string | undefined;
  const sink = {
    push: (event: AgentEvent): Promise<void> | undefined => {
      deps.recorder?.onEvent(event);
      const candidate = "loopId" in event ? candidateOf.get(event.loopId) : undefined;
      if (candidate === undefined) {
        if (event.type === "agentStart" && event.loopId !== groupId) judgeLoopId = event.loopId;
        if (event.type === "agentEnd" && event.loopId === judgeLoopId) {
          judgeText = finalText(event.messages);
        }
        return undefined;
      }
      switch (event.type) {
        case "messageUpdate": {
          const { delta } = event;
          if (delta.type === "toolCall") return undefined;
          const states: ContextState[] = [];
          if (!streaming && delta.type === "text") {
            streaming = true;
            states.push({ type: "StreamingLLMResponse", chunks: 1, chars: delta.delta.length });
          }
          // not awaited: the loop goes on while the batch is written (EventWriter)
          void writer.add(
            [
              ...states.map((s) => core.contextUpdateEvent(s, core.state)),
              {
                name: "candidate_delta",
                payload: {
                  context_id: core.id,
                  group_id: groupId,
                  candidate,
                  delta: delta.delta,
                  channel: delta.type,
                },
              },
            ],
            states,
          );
          return undefined;
        }
        case "toolExecutionStart":
          return writer.add([
            toolEvent(candidate, { id: event.toolCallId, name: event.toolName }, "running"),
          ]);
        case "toolExecutionEnd":
          return writer.add([
            toolEvent(
              candidate,
              { id: event.toolCallId, name: event.toolName },
              event.isError ? "failed" : "done",
            ),
          ]);
        case "agentEnd": {
          const last = lastAssistant(event.messages);
          const status =
            last?.stopReason === "aborted"
              ? "aborted"
              : last === undefined || last.stopReason === "error"
                ? "failed"
                : "complete";
          return writer.add([
            {
              name: "candidate_finished",
              payload: {
                context_id: core.id,
                group_id: groupId,
                candidate,
                loop_id: event.loopId,
                status,
                text: finalText(event.messages),
                ...(last?.errorMessage !== undefined ? { error: last.errorMessage } : {}),
                usage: event.usage,
              },
            },
          ]);
        }
        default:
          return undefined;
      }
    },
  };

  let result: ParallelLoopResult;
  try {
    result = await runAgentLoopParallel(
      [prompt],
      {
        systemPrompt: setup.systemPrompt,
        messages: history,
        tools,
        agentId: "arbor",
        sessionId: core.id,
      },
      configs.map((config, i) => {
        const own = request.candidates[i]?.system_prompt;
        return own !== undefined ? { ...config, systemPrompt: own } : config;
      }),
      strategy,
      sink,
      signal,
      { loopIds, groupId },
    );
  } finally {
    await writer.settled();
    await deps.recorder?.flush();
  }
  if (setup.stored) await setup.stored;
  if (writer.error !== undefined) throw writer.error;
  return storeAnswers(core, request, message, result, {
    groupId,
    decided,
    judgeLoopId,
    judgeText,
    interrupted: signal.aborted,
  });
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

async function storeAnswers(
  core: StoredSession,
  request: ParallelMessageRequest,
  message: ContextMessage,
  result: ParallelLoopResult,
  run: {
    groupId: string;
    decided: ReadonlyMap<string, ApprovalStatus>;
    judgeLoopId: string | undefined;
    judgeText: string | undefined;
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
      text: `Asked ${request.candidates.length} ways; ${labelOf(request.candidates[selected] ?? {}, selected)} was chosen: ${result.reason}`,
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
            meta: { usage: result.evaluationUsage, loop_id: run.judgeLoopId, stop_reason: "stop" },
          },
        ]
      : [];
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
          candidates: rowsOf.map((rows, index) => ({
            index,
            branch_id: branchIds[index] ?? active.id,
            message_ids: rows.map((r) => r.id),
          })),
          evaluation_usage: result.evaluationUsage,
          usage: result.usage,
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
