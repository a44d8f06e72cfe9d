import { randomUUID } from "node:crypto";
import { type AgentMessage, combineUsage, emptyUsage, type Usage } from "../model/llm-messages.js";
import { TELEMETRY_NAMES } from "../telemetry/names.js";
import { inSpan } from "../telemetry/spans.js";
import type { EvaluationDecision, EvaluationStrategy, ParallelLoopOutcome } from "./evaluation.js";
import type { AgentEventSink } from "./event-sink.js";
import { EventStream } from "./event-stream.js";
import { errorText } from "./hook-calls.js";
import { nextBareLoopId, runAgentLoop, runAgentLoopContinue } from "./loop.js";
import { effectiveConfigId } from "./loop-id.js";
import type { AgentContext, AgentEvent, AgentLoopConfig } from "./types.js";

// REQ-196–209: N candidate loops from one context, at the same time, and one of them chosen.
//
//   parallelLoopStart{loopIds} → every candidate's own events (agentStart … agentEnd, interleaved,
//   each with its loop id) → the evaluation (an LLM judge's loop events too) → parallelLoopEnd
//
// Each candidate runs on its own copy of the context (the base's messages, then its own), with its
// own config: another model, system prompt, thinking level or temperature. They share the tools
// and the signal: an abort ends every candidate and the evaluation. With no prompts every candidate
// continues the base context (agentLoopContinue, REQ-205). The result holds every outcome, the
// chosen one whole, and the usage of all candidates plus the evaluation's.

/** One candidate: a loop config, and optionally its own system prompt. */
export type ParallelCandidateConfig = AgentLoopConfig & { systemPrompt?: string };

/** REQ-198 */
export interface ParallelLoopResult {
  /** the group's id (`{sessionId}.parallel.{n}`), the loopId of its start and end events */
  groupId: string;
  selectedIndex: number;
  selectedLoopId: string;
  /** the chosen candidate, its messages as it produced them (never the judge's optimized copy) */
  selected: ParallelLoopOutcome;
  /** every candidate, in config order */
  outcomes: ParallelLoopOutcome[];
  reason: string;
  /** the strategy chose nothing and the first candidate was taken (EvaluationDecision.fallback) */
  fallback?: true;
  evaluationUsage: Usage;
  /** REQ-197: every candidate's usage and the evaluation's, summed */
  usage: Usage;
}

export interface ParallelLoopOptions {
  /** the candidates' loop ids, in config order (default: `{sessionId}.{configId}.{n}`) */
  loopIds?: string[];
  /** the group's id (default `{sessionId}.parallel.{n}`) */
  groupId?: string;
}

/** REQ-203: runs the candidates and the evaluation, returning an EventStream at once. */
export function agentLoopParallel(
  prompts: AgentMessage[],
  baseContext: AgentContext,
  configs: ParallelCandidateConfig[],
  strategy: EvaluationStrategy,
  signal?: AbortSignal,
  options: ParallelLoopOptions = {},
): EventStream<AgentEvent, ParallelLoopResult> {
  const stream = new EventStream<AgentEvent, ParallelLoopResult>();
  const run = runAgentLoopParallel(
    prompts,
    baseContext,
    configs,
    strategy,
    stream,
    signal,
    options,
  );
  void run.then((result) => stream.end(result));
  return stream;
}

/**
 * Like agentLoopParallel, writing into a caller's sink. Throws at once (programmer errors) for no
 * configs, wrong loop id counts, or, with no prompts, a context agentLoopContinue refuses.
 */
export function runAgentLoopParallel(
  prompts: AgentMessage[],
  baseContext: AgentContext,
  configs: ParallelCandidateConfig[],
  strategy: EvaluationStrategy,
  sink: AgentEventSink,
  signal?: AbortSignal,
  options: ParallelLoopOptions = {},
): Promise<ParallelLoopResult> {
  if (configs.length === 0) throw new Error("agentLoopParallel needs at least one config");
  if (options.loopIds !== undefined && options.loopIds.length !== configs.length) {
    throw new Error("agentLoopParallel: give one loop id per config");
  }
  if (prompts.length === 0) {
    if (!baseContext.agentId || !baseContext.sessionId) {
      throw new Error("agentLoopParallel without prompts requires context.agentId and sessionId");
    }
    const last = baseContext.messages.at(-1);
    if (last === undefined) {
      throw new Error("agentLoopParallel without prompts requires at least one message");
    }
    if (last.role === "assistant" && !last.content.some((b) => b.type === "toolCall")) {
      throw new Error(
        "agentLoopParallel without prompts cannot continue from an assistant message (see agentLoopContinue)",
      );
    }
  }
  baseContext.agentId ||= randomUUID();
  baseContext.sessionId ||= randomUUID();
  const sessionId = baseContext.sessionId;
  const loopIds =
    options.loopIds ?? configs.map((c) => nextBareLoopId(sessionId, effectiveConfigId(c)));
  const groupId = options.groupId ?? nextBareLoopId(sessionId, "parallel");
  const abort = signal ?? new AbortController().signal;
  const contexts = configs.map((config, i) =>
    candidateContext(baseContext, config, loopIds[i] ?? ""),
  );
  // one span for the group: the candidates and the judge are its children (telemetry/)
  const names = TELEMETRY_NAMES;
  return inSpan(
    `${names.spans.invokeWorkflow} ask_n_ways`,
    {
      [names.attributes.operationName]: names.spans.invokeWorkflow,
      [names.attributes.workflowName]: "ask_n_ways",
      [names.attributes.conversationId]: sessionId,
      [names.attributes.parallelGroupId]: groupId,
      [names.attributes.parallelCandidates]: loopIds.length,
    },
    async (span) => {
      const result = await runCandidates(
        prompts,
        contexts,
        configs,
        strategy,
        sink,
        abort,
        groupId,
        sessionId,
      );
      if (span.isRecording()) {
        span.setAttribute(names.attributes.parallelSelectedLoopId, result.selectedLoopId);
      }
      return result;
    },
  );
}

function candidateContext(
  base: AgentContext,
  config: ParallelCandidateConfig,
  loopId: string,
): AgentContext {
  return {
    ...base,
    systemPrompt: config.systemPrompt ?? base.systemPrompt,
    messages: [...base.messages],
    tools: [...base.tools],
    loopId,
    // each candidate's span nests under the group's (the active context), whatever the base continued
    trace: { kind: "candidate" },
  };
}

async function runCandidates(
  prompts: AgentMessage[],
  contexts: AgentContext[],
  configs: ParallelCandidateConfig[],
  strategy: EvaluationStrategy,
  sink: AgentEventSink,
  signal: AbortSignal,
  groupId: string,
  sessionId: string,
): Promise<ParallelLoopResult> {
  const loopIds = contexts.map((c) => c.loopId ?? "");
  const originalContextLen = contexts[0]?.messages.length ?? 0;
  await sink.push({
    type: "parallelLoopStart",
    loopId: groupId,
    sessionId,
    loopIds,
    timestamp: Date.now(),
  });
  const outcomes = await Promise.all(
    configs.map(async (candidateConfig, i): Promise<ParallelLoopOutcome> => {
      const { systemPrompt: _own, ...config } = candidateConfig;
      const context = contexts[i] as AgentContext;
      let usage = emptyUsage();
      // per candidate: its usage, from its own agentEnd (REQ-203)
      const forward: AgentEventSink = {
        push: (event) => {
          if (event.type === "agentEnd" && event.loopId === context.loopId) usage = event.usage;
          return sink.push(event);
        },
      };
      const newMessages =
        prompts.length > 0
          ? await runAgentLoop(prompts, context, config, forward, signal)
          : await runAgentLoopContinue(context, config, forward, signal);
      return {
        configIndex: i,
        loopId: loopIds[i] ?? "",
        context,
        originalContextLen,
        newMessages,
        usage,
      };
    }),
  );
  let decision: EvaluationDecision = { index: 0, reason: "" };
  let evaluationUsage = emptyUsage();
  let evaluationModel: string | undefined;
  try {
    const evaluated = await strategy.evaluate(prompts, outcomes, sink, signal);
    decision = evaluated.decision;
    evaluationUsage = evaluated.usage;
    evaluationModel = evaluated.model;
  } catch (error) {
    // a strategy is user code: its failure picks the first candidate rather than losing the run
    decision = {
      index: 0,
      reason: `The ${strategy.name} evaluation failed (${errorText(error)}), so the first candidate was taken.`,
      fallback: true,
    };
  }
  const index = decision.index >= 0 && decision.index < outcomes.length ? decision.index : 0;
  const selected = outcomes[index] as ParallelLoopOutcome;
  await sink.push({
    type: "parallelLoopEnd",
    loopId: groupId,
    sessionId,
    selectedLoopId: selected.loopId,
    selectedConfigIndex: index,
    evaluationUsage,
    ...(evaluationModel !== undefined ? { evaluationModel } : {}),
    reason: decision.reason,
    timestamp: Date.now(),
  });
  const usage = outcomes.reduce((sum, o) => combineUsage(sum, o.usage), evaluationUsage);
  return {
    groupId,
    selectedIndex: index,
    selectedLoopId: selected.loopId,
    selected,
    outcomes,
    reason: decision.reason,
    ...(decision.fallback ? { fallback: true as const } : {}),
    evaluationUsage,
    usage,
  };
}
