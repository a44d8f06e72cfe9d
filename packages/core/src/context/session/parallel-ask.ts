import { finalText, lastAssistant } from "../../agent/evaluation.js";
import { effectiveConfigId, loopIdOf } from "../../agent/loop-id.js";
import { type ParallelLoopResult, runAgentLoopParallel } from "../../agent/parallel.js";
import { strategyForMode } from "../../agent/tool-execution.js";
import type { AgentEvent, AgentLoopConfig, ToolCallVerdict } from "../../agent/types.js";
import { costOfUsage } from "../../llm/pricing.js";
import type { ToolCallContent } from "../../model/llm-messages.js";
import type { ApprovalStatus, ContextMessage } from "../../model/message-types.js";
import type { PersonRef } from "../../model/person.js";
import type { ContextState } from "../../model/states.js";
import { pricedUsage } from "../../model/usage-cost.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { ParallelMessageRequest } from "../../protocol/parallel.js";
import { isPlanTool } from "../plan-act.js";
import {
  approvalFor,
  DENIED_RESULT_TEXT,
  deniedResultText,
  readOnlyNames,
  userNote,
} from "./approval-policy.js";
import { childContext } from "./loop-context.js";
import { type ParallelAskResult, storeAnswers } from "./parallel-answers.js";
import {
  judgeConfigOf,
  labelOf,
  modelFor,
  parallelRequestProblem,
  strategyFor,
} from "./parallel-config.js";
import { notFoundText } from "./run-driver.js";
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
// does not move it: only that candidate waits (nested-approvals.ts), the others go on.

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

/**
 * The operation: processes and stores the message, runs the candidates and the strategy, stores
 * every answer. Called inside a session operation (queued, leased); the group's pending calls
 * wait in the session's nested approvals.
 */
export async function askParallelOp(
  core: StoredSession,
  request: ParallelMessageRequest,
  message: ContextMessage,
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
  const view = currentView(core).filter((m) => m.id !== message.id);
  const history = toAgentMessages(view);
  const tools = setup.tools.filter((t) => !isPlanTool(t.name));
  const offered = new Set(tools.map((t) => t.name));
  const readOnly = readOnlyNames(tools);
  const session = core.config.model;
  const base: Omit<AgentLoopConfig, "model"> = {
    provider: deps.provider,
    contextConfig: null,
    executionLimits: deps.executionLimits,
    retryConfig: deps.retryConfig,
    toolExecution: strategyForMode(core.config.tool_execution),
    logger: deps.logger,
  };
  const writer = new EventWriter(core);
  const groupId = loopIdOf(core.id, "parallel", Date.now());
  const decided = new Map<string, ApprovalStatus>();
  const configs = request.candidates.map((candidate, index): AgentLoopConfig => {
    const config: AgentLoopConfig = {
      ...base,
      model: modelFor(core, candidate.model),
      thinkingLevel: candidate.thinking_level ?? session?.thinking_level ?? "off",
      approveToolCalls: (calls) => gate(index, calls),
      // the session's optimization and overflow recovery, as for every loop (loop-context.ts),
      // over the candidate's own history: the branch's view, the message, then its answer
      ...childContext(
        core,
        { systemPrompt: candidate.system_prompt ?? setup.systemPrompt, tools },
        { rows: [...view, message], messages: history.length + 1 },
      ),
    };
    if (candidate.temperature !== undefined) config.temperature = candidate.temperature;
    if (session?.max_tokens !== undefined) config.maxTokens = session.max_tokens;
    return config;
  });
  const toolEvent = (
    candidate: number,
    call: { id: string; name: string; arguments?: Record<string, unknown> },
    status: "pending_approval" | "approved" | "denied" | "running" | "done" | "failed",
    by?: PersonRef | null,
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
      ...(by !== undefined ? { decided_by: by } : {}),
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
      let approval = approvalFor(core.config, call, (n) => readOnly.has(n)).approval;
      let reason = DENIED_RESULT_TEXT;
      if (approval === "pending") {
        // the call waits before its pending event is out: a decision sent the moment a client
        // sees that event finds it waiting (and is stored after it: `stored`)
        const shown = writer.add([toolEvent(candidate, call, "pending_approval")]);
        const waiting = core.nestedApprovals.wait(
          call.id,
          {
            toolName: call.name,
            decisionEvent: (status, by) =>
              toolEvent(candidate, { id: call.id, name: call.name }, status, by),
            stored: () => writer.settled(),
          },
          signal,
        );
        await shown;
        const verdict = await waiting;
        approval = verdict.decision === "approve" ? "approved" : "denied";
        if (verdict.decision === "deny") reason = deniedResultText(userNote(verdict.reason));
        // the decision's own event is stored by Session.decideToolCalls (its stream shows it)
      } else {
        await writer.add([
          toolEvent(candidate, call, approval === "denied" ? "denied" : "approved"),
        ]);
      }
      decided.set(call.id, approval);
      // who decided, for the call's span: the person, else the policy
      const by = core.nestedApprovals.decidedBy(call.id);
      const source = by !== undefined ? { decidedBy: by } : { rule: "policy" };
      verdicts.push(
        approval === "denied"
          ? { toolCallId: call.id, verdict: "deny", reason, ...source }
          : { toolCallId: call.id, verdict: "run", ...source },
      );
    }
    return verdicts;
  };

  // loop ids numbered from the store (as RunDriver does): same-config candidates get the next ones;
  // the judge's too, so a judge after a restart or on another instance never takes an earlier
  // judge's id (and overwrites its loop record)
  const loopIds: string[] = [];
  const taken = new Map<string, number>();
  let judgeLoopId: string | undefined;
  try {
    const configIds = configs.map((config) => effectiveConfigId(config));
    const judgeConfigId =
      request.judge.strategy === "llm_judge"
        ? effectiveConfigId(judgeConfigOf(core, request.judge, base))
        : undefined;
    const distinct = [
      ...new Set(judgeConfigId === undefined ? configIds : [...configIds, judgeConfigId]),
    ];
    const numbers = await Promise.all(
      distinct.map((configId) => deps.store.nextLoopNumber(core.id, configId)),
    );
    for (const [i, configId] of distinct.entries()) taken.set(configId, numbers[i] ?? 1);
    for (const configId of configIds) {
      const next = taken.get(configId) ?? 1;
      loopIds.push(loopIdOf(core.id, configId, next));
      taken.set(configId, next + 1);
    }
    if (judgeConfigId !== undefined) {
      judgeLoopId = loopIdOf(core.id, judgeConfigId, taken.get(judgeConfigId) ?? 1);
    }
  } catch (error) {
    throw new StorageFailure(error);
  }
  const candidateOf = new Map(loopIds.map((id, i) => [id, i]));
  const strategy = strategyFor(core, request.judge, base, judgeLoopId);

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
  let judgeText: string | undefined;
  let judgeModel: string | undefined;
  const sink = {
    push: (event: AgentEvent): Promise<void> | undefined => {
      deps.recorder?.onEvent(event);
      const candidate = "loopId" in event ? candidateOf.get(event.loopId) : undefined;
      if (candidate === undefined) {
        if (event.type === "agentEnd" && event.loopId === judgeLoopId) {
          judgeText = finalText(event.messages);
          judgeModel = lastAssistant(event.messages)?.model;
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
                usage: pricedUsage(event.usage, last?.model, costOfUsage),
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
  let flushed: Promise<void> | undefined;
  let ran = false;
  try {
    result = await runAgentLoopParallel(
      [prompt],
      {
        systemPrompt: setup.systemPrompt,
        messages: history,
        tools,
        agentId: "arbor",
        sessionId: core.id,
        ...(core.operator !== null ? { startedBy: core.operator } : {}),
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
    ran = true;
  } finally {
    await writer.settled();
    // the loop records (every candidate's end) are stored while the answers are, not before
    // them: on SQLite both writes share one group commit. The operation still ends only once
    // both are stored (listLoops right after it sees every candidate's record).
    flushed = deps.recorder?.flush();
    // a run that threw: its records are stored before its error goes on
    if (!ran) await flushed;
  }
  try {
    if (setup.stored) await setup.stored;
    if (writer.error !== undefined) throw writer.error;
    return await storeAnswers(core, request, message, result, {
      groupId,
      decided,
      judgeLoopId,
      judgeText,
      judgeModel,
      interrupted: signal.aborted,
    });
  } finally {
    await flushed;
  }
}
