import { randomUUID } from "node:crypto";
import { providerIdFor, type StreamRequest } from "../llm/provider.js";
import { DEFAULT_CACHE_CONFIG } from "../model/llm-config.js";
import {
  type AgentMessage,
  type AssistantMessage,
  combineUsage,
  emptyUsage,
  isLlmMessage,
  type Message,
  type ToolCallContent,
  type ToolResultMessage,
  userMessage,
} from "../model/llm-messages.js";
import type { LoopKind } from "../telemetry/names.js";
import { LoopTrace, type ToolDecision } from "../telemetry/spans.js";
import { toolDefinition } from "../tools/tool.js";
import { streamAssistantResponse } from "./assistant-response.js";
import type { AgentEventSink } from "./event-sink.js";
import { EventStream } from "./event-stream.js";
import { ExecutionTracker } from "./execution-limits.js";
import { callHook, errorText, silentLogger } from "./hook-calls.js";
import { applyInputFilters } from "./input-filters.js";
import { effectiveConfigId, LoopIdAllocator } from "./loop-id.js";
import type { LoopRun } from "./loop-run.js";
import { optimizeContext } from "./optimization-step.js";
import { executeToolCalls } from "./tool-execution.js";
import type {
  AgentContext,
  AgentEvent,
  AgentLoopConfig,
  ToolCallVerdict,
  TurnTrigger,
} from "./types.js";

// The agent loop (REQ-036–039, 060–062, 068–070, 087–093, 161, 180–195), modelled on pi-mono's
// agent-loop.ts: a few plain functions. `agentLoop` / `agentLoopContinue` return an EventStream
// at once and run the loop in the background; it ends with the new messages of the run.
//
// Lifecycle, with hooks (REQ-185, exact order):
//   beforeLoop → agentStart → [inputRejected] → per turn: beforeTurn → turnStart → pending
//   messages → model response (messageStart/Update/End, retry, compaction) → tools → turnEnd →
//   afterTurn … → agentEnd → afterLoop.
//
// Exit policy (REQ-161): agentEnd is emitted whenever the loop exits — normal stop, provider
// error, execution limit, input rejection, beforeLoop veto, abort, even an internal bug — and
// afterLoop runs exactly once after it. The single exception is REQ-091: beforeTurn returning
// false stops the run at once without agentEnd (afterLoop still runs). On abort the loop
// finishes the step it is in: a streaming response ends with stopReason "aborted", running
// tools see their signal aborted and their results are recorded, the turn closes (turnEnd →
// afterTurn) and no new turn, model call or tool starts. Pending prompts/steering are never
// dropped: they are appended (with message events) before the loop exits.
//
// Events: each goes to the sink in order, and when the sink returns a promise (it persists) the
// loop waits for it before its next step (event-sink.ts), so whoever stores the run gets ordering
// and backpressure from the loop itself. A sink that returns nothing costs no await.
//
// Error policy: after it has started the loop never throws at its caller. Provider failures
// become assistant messages with stopReason "error"; tool failures become error tool results;
// throwing hooks are logged and treated as "proceed".

/** Loops run without an Agent still get `{sessionId}.{configId}.{n}` ids. */
const bareLoopIds = new LoopIdAllocator();

/** The next id of a loop run without an Agent (parallel branches take theirs before they start). */
export function nextBareLoopId(sessionId: string, configId: string): string {
  return bareLoopIds.next(sessionId, configId);
}

/** REQ-036: an origin run. Adds identity to `context` when absent (REQ-190); mutates `context.messages`. */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
): EventStream<AgentEvent, AgentMessage[]> {
  const stream = new EventStream<AgentEvent, AgentMessage[]>();
  void runAgentLoop(prompts, context, config, stream, signal).then((messages) =>
    stream.end(messages),
  );
  return stream;
}

/**
 * REQ-037: continue from `context` without new prompts. Throws at once (programmer error) when
 * context has no agentId/sessionId (REQ-191), no messages, or ends with an assistant message (REQ-108).
 */
export function agentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
): EventStream<AgentEvent, AgentMessage[]> {
  const stream = new EventStream<AgentEvent, AgentMessage[]>();
  void runAgentLoopContinue(context, config, stream, signal).then((messages) =>
    stream.end(messages),
  );
  return stream;
}

/** Like `agentLoop`, writing into a caller's sink (which it does not end). Never rejects. */
export function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  sink: AgentEventSink,
  signal?: AbortSignal,
): Promise<AgentMessage[]> {
  context.agentId ||= randomUUID();
  context.sessionId ||= randomUUID();
  context.loopId ||= bareLoopIds.next(context.sessionId, effectiveConfigId(config));
  return runLoop(prompts, context, config, sink, signal ?? new AbortController().signal);
}

/** Like `agentLoopContinue`, writing into a caller's sink. Validates synchronously (throws). */
export function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  sink: AgentEventSink,
  signal?: AbortSignal,
): Promise<AgentMessage[]> {
  if (!context.agentId) throw new Error("agentLoopContinue requires context.agentId to be set");
  if (!context.sessionId) throw new Error("agentLoopContinue requires context.sessionId to be set");
  const last = context.messages[context.messages.length - 1];
  if (last === undefined)
    throw new Error("agentLoopContinue requires at least one message in context.messages");
  // An assistant message is a valid place to continue from only when its tool calls are still
  // unanswered (they were deferred by the approval gate): the continuation runs them first.
  if (last.role === "assistant" && toolCallsOf(last).length === 0) {
    throw new Error(
      "agentLoopContinue cannot continue from an assistant message: the last message must be a user, tool result or extension message, or an assistant message whose tool calls await results",
    );
  }
  context.loopId ||= bareLoopIds.next(context.sessionId, effectiveConfigId(config));
  return runLoop(undefined, context, config, sink, signal ?? new AbortController().signal);
}

type RunOutcome = "finished" | "vetoed";

/** `prompts` undefined: a continuation. */
async function runLoop(
  prompts: AgentMessage[] | undefined,
  context: AgentContext,
  config: AgentLoopConfig,
  sink: AgentEventSink,
  signal: AbortSignal,
): Promise<AgentMessage[]> {
  const loopId = context.loopId ?? "";
  const trace = LoopTrace.start({
    loopId,
    agentId: context.agentId ?? "",
    sessionId: context.sessionId ?? "",
    kind: loopKind(context),
    provider: providerIdFor(config.provider, config.model),
    model: config.model.model,
    ...(context.parentLoopId !== undefined ? { parentLoopId: context.parentLoopId } : {}),
    ...(context.startedBy !== undefined ? { startedBy: context.startedBy } : {}),
    ...(context.trace !== undefined ? { options: context.trace } : {}),
  });
  if (trace.traceparent !== undefined) {
    context.trace = { ...context.trace, traceparent: trace.traceparent };
  }
  const run: LoopRun = {
    context,
    config,
    sink,
    signal,
    loopId,
    logger: config.logger ?? silentLogger,
    newMessages: [],
    usage: emptyUsage(),
    trace,
  };
  return trace.within(() => runTraced(prompts, run));
}

/** The run, with its span active (telemetry/): what its hooks and context handling do nests under it. */
async function runTraced(
  prompts: AgentMessage[] | undefined,
  run: LoopRun,
): Promise<AgentMessage[]> {
  const { context, config, sink } = run;
  const hooks = config.hooks ?? {};
  let outcome: RunOutcome = "finished";
  let failure: string | undefined;
  try {
    if (await callHook(run.logger, "beforeLoop", () => hooks.beforeLoop?.(context) ?? true, true)) {
      await sink.push({
        type: "agentStart",
        loopId: run.loopId,
        agentId: context.agentId ?? "",
        sessionId: context.sessionId ?? "",
        ...(context.parentLoopId !== undefined ? { parentLoopId: context.parentLoopId } : {}),
        ...(context.continuationKind !== undefined
          ? { continuationKind: context.continuationKind }
          : {}),
        ...(context.startedBy !== undefined ? { startedBy: context.startedBy } : {}),
        ...(run.trace.traceparent !== undefined ? { traceparent: run.trace.traceparent } : {}),
        timestamp: Date.now(),
      });
      const verdict = applyInputFilters(prompts ?? [], config.inputFilters ?? [], run.logger);
      if (verdict.type === "reject") {
        await sink.push({ type: "inputRejected", loopId: run.loopId, reason: verdict.reason });
      } else {
        const firstTrigger: TurnTrigger =
          prompts !== undefined
            ? (config.firstTurnTrigger ?? "user")
            : context.continuationKind?.type === "branch"
              ? "branch"
              : "continuation";
        outcome = await runTurns(run, verdict.messages, firstTrigger);
      }
    }
  } catch (error) {
    // only a bug in the loop or in a seam it cannot guard (a throwing sink) lands here
    run.logger.error("agent loop failed unexpectedly", {
      loopId: run.loopId,
      error: errorText(error),
    });
    failure = errorText(error);
  }
  if (outcome !== "vetoed") {
    await pushEnd(run);
  }
  endTrace(run, failure);
  await callHook(
    run.logger,
    "afterLoop",
    () => hooks.afterLoop?.(run.newMessages, run.usage),
    undefined,
  );
  return run.newMessages;
}

/** How a loop came to run, for its span: the caller's word, else from its continuation. */
function loopKind(context: AgentContext): LoopKind {
  if (context.trace?.kind !== undefined) return context.trace.kind;
  switch (context.continuationKind?.type) {
    case undefined:
      return context.parentLoopId !== undefined ? "continuation" : "run";
    case "default":
      return "continuation";
    case "rerun":
      return "rerun";
    case "branch":
      return "branch";
    default:
      return context.continuationKind satisfies never;
  }
}

/** Ends the run's span with what the run did (never throws: telemetry must not break a run). */
function endTrace(run: LoopRun, failure: string | undefined): void {
  let turns = 0;
  let last: AssistantMessage | undefined;
  for (const message of run.newMessages) {
    if (message.role === "assistant") {
      turns++;
      last = message;
    }
  }
  try {
    run.trace.end({
      usage: run.usage,
      turns,
      ...(run.pendingToolCalls !== undefined ? { pendingToolCalls: run.pendingToolCalls } : {}),
      ...(failure !== undefined ? { error: failure } : {}),
      ...(last !== undefined ? { lastMessage: last } : {}),
    });
  } catch (error) {
    run.logger.warn("ending the run's span failed", { error: errorText(error) });
  }
}

/** agentEnd; a sink that fails here (a bug) is logged, and afterLoop still runs. */
async function pushEnd(run: LoopRun): Promise<void> {
  try {
    await run.sink.push({
      type: "agentEnd",
      loopId: run.loopId,
      messages: run.newMessages,
      usage: run.usage,
      timestamp: Date.now(),
      ...(run.pendingToolCalls ? { pendingToolCalls: run.pendingToolCalls } : {}),
    });
  } catch (error) {
    run.logger.error("the event sink failed on agentEnd", {
      loopId: run.loopId,
      error: errorText(error),
    });
  }
}

/** The outer (follow-up) and inner (tool/steering) loops of REQ-038/087–089. */
async function runTurns(
  run: LoopRun,
  initial: AgentMessage[],
  firstTrigger: TurnTrigger,
): Promise<RunOutcome> {
  const { config, context, sink, loopId } = run;
  const hooks = config.hooks ?? {};
  const limits = config.executionLimits;
  const tracker = limits ? new ExecutionTracker(limits) : undefined;
  let turn = 0;
  // REQ-087: steering queued before the run joins the prompts
  let pending = [...initial, ...drainQueue(run, "getSteeringMessages")];
  let needsResponse = true;
  const open = initial.length === 0 ? openRound(context.messages) : undefined;
  if (open !== undefined) {
    // resuming deferred tool calls: this turn runs them, the next one asks the model again
    if (!(await allowTurn(run, turn))) return "vetoed";
    await sink.push({ type: "turnStart", loopId, turn, triggeredBy: firstTrigger });
    // queued steering waits for the next turn: nothing may come between calls and their results
    const round = await runToolRound(run, turn, open.message, open.unanswered);
    if (round === "deferred") return "finished";
    pending = [...pending, ...round];
    turn++;
  }
  for (;;) {
    while (needsResponse || pending.length > 0) {
      // REQ-062: limits are checked at the start of every inner iteration
      const limitReason = run.signal.aborted ? undefined : tracker?.checkLimits();
      if (run.signal.aborted || limitReason !== undefined) {
        const stopped =
          limitReason !== undefined ? [userMessage(`[Agent stopped: ${limitReason}]`)] : [];
        await appendMessages(run, [...pending, ...stopped], true);
        return "finished";
      }
      // pending messages join the history before beforeTurn sees it; their events follow turnStart
      await appendMessages(run, pending, false);
      if (!(await allowTurn(run, turn))) return "vetoed";
      await sink.push({
        type: "turnStart",
        loopId,
        turn,
        triggeredBy: turn === 0 ? firstTrigger : "continuation",
      });
      await emitMessages(run, pending);
      pending = [];

      const message = await streamAssistantResponse(run, buildRequest);
      await appendMessages(run, [message], false);
      run.usage = combineUsage(run.usage, message.usage);
      tracker?.recordTurn(message.usage.totalTokens);

      if (message.stopReason === "error" || message.stopReason === "aborted") {
        if (message.stopReason === "error") {
          const text = message.errorMessage ?? "unknown error";
          await callHook(run.logger, "onError", () => hooks.onError?.(text), undefined);
        }
        await endTurn(run, turn, message, []);
        return "finished";
      }

      const hasCalls = toolCallsOf(message).length > 0;
      if (hasCalls) {
        const round = await runToolRound(run, turn, message);
        if (round === "deferred") return "finished";
        pending = round; // REQ-088
      } else {
        pending = drainQueue(run, "getSteeringMessages");
        await endTurn(run, turn, message, []);
      }
      turn++;
      needsResponse = hasCalls;
    }
    // REQ-089: follow-ups re-enter the loop once the agent would otherwise stop
    pending = drainQueue(run, "getFollowUpMessages");
    if (pending.length === 0 && !run.signal.aborted) {
      pending = await callHook(run.logger, "beforeStop", () => hooks.beforeStop?.() ?? [], []);
    }
    if (pending.length === 0) return "finished";
  }
}

/** REQ-091: the beforeTurn hook; false stops the run at once (without agentEnd). */
function allowTurn(run: LoopRun, turn: number): Promise<boolean> {
  const beforeTurn = run.config.hooks?.beforeTurn;
  return callHook(
    run.logger,
    "beforeTurn",
    () => beforeTurn?.(run.context.messages, turn) ?? true,
    true,
  );
}

/**
 * Runs the tool calls of `message` through the approval gate and the tools, appends the results
 * and ends the turn. Returns the steering messages that arrived meanwhile, or "deferred" when the
 * gate deferred a call: then only the calls before the first deferred one ran, the turn ended
 * with their results, and the run must stop waiting for decisions (the message, followed only by
 * those results, stays last in the history so agentLoopContinue can resume the rest).
 * `unanswered`: a resumed round's calls still without a result (the gate is asked about them only).
 */
async function runToolRound(
  run: LoopRun,
  turn: number,
  message: AssistantMessage,
  unanswered?: ToolCallContent[],
): Promise<AgentMessage[] | "deferred"> {
  let calls = unanswered ?? toolCallsOf(message);
  const gate = run.config.approveToolCalls;
  let denied: Map<string, string> | undefined;
  let deferred: string[] = [];
  // who decided each call, for its span; without a gate every call runs on the loop's own terms
  const decisions = new Map<string, ToolDecision>();
  if (gate !== undefined) {
    let verdicts: ToolCallVerdict[];
    try {
      verdicts = await gate(calls, { turn, message });
    } catch (error) {
      // an approval check that fails must not let calls run unapproved: wait for a person
      run.logger.error("approveToolCalls threw; deferring the calls", {
        loopId: run.loopId,
        error: errorText(error),
      });
      verdicts = calls.map((call) => ({ toolCallId: call.id, verdict: "defer" }));
    }
    deferred = verdicts.filter((v) => v.verdict === "defer").map((v) => v.toolCallId);
    if (deferred.length > 0) {
      // the calls before the first deferred one run now (read-only work need not wait for a
      // person); that call and every later one wait, since a later call may depend on it
      const waiting = new Set(deferred);
      const first = calls.findIndex((c) => waiting.has(c.id));
      calls = calls.slice(0, Math.max(0, first));
    }
    denied = new Map();
    for (const v of verdicts) if (v.verdict === "deny") denied.set(v.toolCallId, v.reason);
    for (const v of verdicts) {
      if (v.verdict === "defer") continue;
      decisions.set(v.toolCallId, {
        outcome: v.verdict === "deny" ? "denied" : v.decidedBy !== undefined ? "approved" : "auto",
        ...(v.decidedBy !== undefined ? { decidedBy: v.decidedBy } : {}),
        ...(v.rule !== undefined ? { rule: v.rule } : {}),
      });
    }
  }
  if (deferred.length > 0) {
    run.pendingToolCalls = deferred;
    if (calls.length === 0) {
      await endTurn(run, turn, message, []);
      return "deferred";
    }
  }
  const hooks = run.config.hooks ?? {};
  const execution = await executeToolCalls(calls, {
    tools: run.context.tools,
    loopId: run.loopId,
    sink: run.sink,
    signal: run.signal,
    hooks,
    logger: run.logger,
    strategy: run.config.toolExecution ?? { type: "parallel" },
    trace: run.trace,
    decisions,
    // a round that ends waiting keeps steering queued for the run that resumes it
    getSteeringMessages: () => (deferred.length > 0 ? [] : drainQueue(run, "getSteeringMessages")),
    ...(denied !== undefined && denied.size > 0 ? { denied } : {}),
  });
  await appendMessages(run, execution.results, false);
  await endTurn(run, turn, message, execution.results);
  return deferred.length > 0 ? "deferred" : execution.steering;
}

/**
 * The round a continuation resumes: the last assistant message, followed only by tool results,
 * whose calls are not all answered (the approval gate deferred them). Undefined otherwise.
 */
function openRound(
  messages: readonly AgentMessage[],
): { message: AssistantMessage; unanswered: ToolCallContent[] } | undefined {
  const answered = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "toolResult") {
      answered.add(message.toolCallId);
      continue;
    }
    if (message?.role !== "assistant") return undefined;
    const unanswered = toolCallsOf(message).filter((c) => !answered.has(c.id));
    return unanswered.length > 0 ? { message, unanswered } : undefined;
  }
  return undefined;
}

/** turnEnd → afterTurn (REQ-092: also on error/abort paths). `usage` is this turn's response usage. */
async function endTurn(
  run: LoopRun,
  turn: number,
  message: AssistantMessage,
  toolResults: ToolResultMessage[],
): Promise<void> {
  await run.sink.push({ type: "turnEnd", loopId: run.loopId, turn, message, toolResults });
  const afterTurn = run.config.hooks?.afterTurn;
  await callHook(
    run.logger,
    "afterTurn",
    () => afterTurn?.(run.context.messages, message.usage),
    undefined,
  );
}

/** Builds the request for the next model call: compaction (REQ-060/146) → transformContext → convertToLlm (REQ-044/145). */
async function buildRequest(
  run: LoopRun,
  reason: "budget" | "overflow",
): Promise<{ request: StreamRequest; compacted: boolean }> {
  const { config, context } = run;
  const compacted = await optimizeContext(run, reason);
  let messages = context.messages;
  if (config.transformContext) messages = await config.transformContext(messages, run.signal);
  const llmMessages = (config.convertToLlm ?? defaultConvertToLlm)(messages);
  const request: StreamRequest = {
    model: config.model,
    systemPrompt: context.systemPrompt,
    messages: llmMessages,
    tools: context.tools.map(toolDefinition),
    thinkingLevel: config.thinkingLevel ?? "off",
    cache: config.cacheConfig ?? DEFAULT_CACHE_CONFIG,
  };
  if (config.maxTokens !== undefined) request.maxTokens = config.maxTokens;
  if (config.temperature !== undefined) request.temperature = config.temperature;
  return { request, compacted };
}

/** REQ-044: extension messages stay in the agent's history but are never sent to the model. */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  return messages.filter(isLlmMessage);
}

export type BuildRequest = typeof buildRequest;

function toolCallsOf(message: AssistantMessage): ToolCallContent[] {
  const calls: ToolCallContent[] = [];
  for (const block of message.content) if (block.type === "toolCall") calls.push(block);
  return calls;
}

async function appendMessages(
  run: LoopRun,
  messages: AgentMessage[],
  emit: boolean,
): Promise<void> {
  for (const message of messages) {
    run.context.messages.push(message);
    run.newMessages.push(message);
  }
  if (emit) await emitMessages(run, messages);
}

async function emitMessages(run: LoopRun, messages: AgentMessage[]): Promise<void> {
  for (const message of messages) {
    await run.sink.push({ type: "messageStart", loopId: run.loopId, message });
    await run.sink.push({ type: "messageEnd", loopId: run.loopId, message });
  }
}

/** Queue callbacks are user code: a throwing one is logged and read as empty. */
function drainQueue(
  run: LoopRun,
  which: "getSteeringMessages" | "getFollowUpMessages",
): AgentMessage[] {
  const read = run.config[which];
  if (read === undefined) return [];
  try {
    return read();
  } catch (error) {
    run.logger.warn(`${which} threw; treating the queue as empty`, { error: errorText(error) });
    return [];
  }
}
