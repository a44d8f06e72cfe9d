import { setMaxListeners } from "node:events";
import { z } from "zod";
import { childAbortController } from "../model/cancellation.js";
import type { AgentMessage, ToolCallContent, ToolResultMessage } from "../model/llm-messages.js";
import type { ToolExecutionMode } from "../model/session-config.js";
import type { LoopTrace, ToolDecision, ToolTrace } from "../telemetry/spans.js";
import { type AnyAgentTool, type SpentUsage, ToolError, type ToolResult } from "../tools/tool.js";
import { type AgentEventSink, pushAfter, type SinkWait } from "./event-sink.js";
import { callHook, callSyncHook, errorText } from "./hook-calls.js";
import type { AgentHooks, Logger, ToolExecutionStrategy } from "./types.js";

// Tool execution (REQ-045/046, 078–080, 084–086, 140, 142, 143, 183, 184).
//
// Every tool call yields exactly one ToolResultMessage, in call order, whatever happens: an
// unknown tool, invalid arguments, a vetoing hook, a throwing tool, steering or an abort all
// become error results (isError: true) the model can read and correct itself from. Per call the
// order is: beforeToolExecution → toolExecutionStart → (update hooks/events)* → toolExecutionEnd
// → afterToolExecution → toolResult messageStart/messageEnd. Calls skipped because the user
// steered or the run was aborted never ran, so they skip beforeToolExecution but keep the rest.

export const SKIPPED_FOR_STEERING = "Skipped due to queued user message.";
export const SKIPPED_FOR_ABORT = "Skipped because the run was aborted.";
export const CANCELLED_FOR_ABORT = "Cancelled: the run was stopped while this tool ran.";
export const BLOCKED_BY_HOOK = "Tool execution was blocked by the beforeToolExecution hook.";

export interface ToolExecutionEnv {
  tools: readonly AnyAgentTool[];
  loopId: string;
  sink: AgentEventSink;
  /** the run's signal; each call gets a child of it */
  signal: AbortSignal;
  hooks: AgentHooks;
  logger: Logger;
  strategy: ToolExecutionStrategy;
  /** drains queued steering messages (empty when none) */
  getSteeringMessages: () => AgentMessage[];
  /** calls the approval gate denied: tool call id → reason; they never run */
  denied?: ReadonlyMap<string, string>;
  /** the run's span: each call gets a child span (telemetry/) */
  trace?: LoopTrace;
  /** who decided each call (the gate's verdicts); a call without one ran on the policy's terms */
  decisions?: ReadonlyMap<string, ToolDecision>;
}

const AUTO: ToolDecision = { outcome: "auto" };

export interface ToolExecutionOutcome {
  /** one per call, in call order */
  results: ToolResultMessage[];
  /** steering messages that arrived during execution, to inject before the next model call */
  steering: AgentMessage[];
}

export async function executeToolCalls(
  calls: readonly ToolCallContent[],
  env: ToolExecutionEnv,
): Promise<ToolExecutionOutcome> {
  return executeInGroups(executionGroups(calls, env.strategy, env.tools), env);
}

/** A session's `tool_execution` setting as the loop's strategy. */
export function strategyForMode(mode: ToolExecutionMode): ToolExecutionStrategy {
  switch (mode) {
    case "sequential":
      return { type: "sequential" };
    case "parallel_read_only":
      return { type: "parallelReadOnly" };
    case "parallel":
      return { type: "parallel" };
    default:
      return mode satisfies never;
  }
}

/**
 * The strategy's groups, in call order: each group runs concurrently, one group after another.
 * parallelReadOnly (Claude Code's rule): consecutive read-only calls (tools of category "read":
 * the file readers, search, the codebase tools, MCP tools annotated readOnlyHint) share a group;
 * every other call, and a call of an unknown tool, is a group of its own, so nothing runs beside
 * a call that may change what the others read.
 */
export function executionGroups(
  calls: readonly ToolCallContent[],
  strategy: ToolExecutionStrategy,
  tools: readonly AnyAgentTool[],
): ToolCallContent[][] {
  switch (strategy.type) {
    case "parallel":
      return calls.length > 0 ? [[...calls]] : [];
    case "sequential":
      return calls.map((call) => [call]);
    case "batched": {
      const size = Math.max(1, Math.floor(strategy.size));
      const groups: ToolCallContent[][] = [];
      for (let start = 0; start < calls.length; start += size) {
        groups.push(calls.slice(start, start + size));
      }
      return groups;
    }
    case "parallelReadOnly": {
      const readOnly = new Set(tools.filter((t) => t.category === "read").map((t) => t.name));
      const groups: ToolCallContent[][] = [];
      let reads: ToolCallContent[] | undefined;
      for (const call of calls) {
        if (readOnly.has(call.name)) {
          if (reads === undefined) {
            reads = [];
            groups.push(reads);
          }
          reads.push(call);
        } else {
          reads = undefined;
          groups.push([call]);
        }
      }
      return groups;
    }
    default:
      return strategy satisfies never;
  }
}

/**
 * Runs the groups one after another (each group's calls concurrently) and checks the steering
 * queue after each group: queued steering skips every remaining call (REQ-084–086).
 */
async function executeInGroups(
  groups: readonly ToolCallContent[][],
  env: ToolExecutionEnv,
): Promise<ToolExecutionOutcome> {
  const results: ToolResultMessage[] = [];
  let steering: AgentMessage[] = [];
  for (const group of groups) {
    const skipReason =
      steering.length > 0
        ? SKIPPED_FOR_STEERING
        : env.signal.aborted
          ? SKIPPED_FOR_ABORT
          : undefined;
    if (skipReason !== undefined) {
      for (const call of group) {
        const skipped = await skipToolCall(call, skipReason, env);
        await afterTool(skipped, env);
        results.push(skipped);
      }
      continue;
    }
    // one listener on the run's signal per group; the group's own signal (ours) takes one per call
    const groupAbort = childAbortController(env.signal);
    setMaxListeners(0, groupAbort.signal);
    const groupEnv = { ...env, signal: groupAbort.signal };
    try {
      results.push(...(await Promise.all(group.map((call) => executeSingleTool(call, groupEnv)))));
    } finally {
      groupAbort.dispose();
    }
    steering = env.getSteeringMessages();
  }
  return { results, steering };
}

/** REQ-046: one call, start to finish. Never throws. */
export async function executeSingleTool(
  call: ToolCallContent,
  env: ToolExecutionEnv,
): Promise<ToolResultMessage> {
  const { hooks, logger, sink, loopId } = env;
  const args = call.arguments;
  const span = env.trace?.tool(call, env.decisions?.get(call.id) ?? AUTO);
  const deniedReason = env.denied?.get(call.id);
  if (deniedReason !== undefined) {
    const denied = await skipToolCall(call, deniedReason, env);
    endSpan(span, denied, "denied");
    await afterTool(denied, env);
    return denied;
  }
  const proceed = await callHook(
    logger,
    "beforeToolExecution",
    () => hooks.beforeToolExecution?.({ toolCallId: call.id, toolName: call.name, args }) ?? true,
    true,
  );
  await sink.push({
    type: "toolExecutionStart",
    loopId,
    toolCallId: call.id,
    toolName: call.name,
    args,
  });

  let result: ToolResult;
  let isError = false;
  let cancelled = false;
  let errorType: string | undefined;
  if (proceed === false || typeof proceed === "object") {
    result = textResult(proceed === false ? BLOCKED_BY_HOOK : proceed.block);
    isError = true;
    errorType = "blocked";
  } else {
    // what the tool reported spending as it ran: kept when the call ends without its own result
    let spent: SpentUsage | undefined;
    try {
      const running = () =>
        runTool(call, env, (report) => {
          spent = report;
        });
      // the tool runs with its span active: a sub-agent or a fold it starts nests under it
      result = await (span !== undefined ? span.run(running) : running());
      result = await withFeedback(call, result, env);
    } catch (error) {
      // ToolError kinds and plain errors alike become readable error results (REQ-078–080)
      result = textResult(errorText(error));
      isError = true;
      cancelled = error instanceof ToolError && error.kind === "cancelled";
      errorType = error instanceof ToolError ? error.kind : "tool_error";
      if (spent !== undefined) result = withSpent(result, spent);
    }
  }
  const message = await finishToolCall(call, result, isError, env);
  endSpan(span, result, errorType);
  if (cancelled) message.cancelled = true;
  await afterTool(message, env);
  return message;
}

/** Ends a call's span; telemetry never breaks a call. */
function endSpan(span: ToolTrace | undefined, result: ToolResult, errorType?: string): void {
  try {
    span?.end(result, errorType);
  } catch {
    // a broken exporter or SDK is the SDK's to report (its own diagnostics), not the run's
  }
}

/** A succeeded call's result with the toolResultFeedback hook's text added (a text part). */
async function withFeedback(
  call: ToolCallContent,
  result: ToolResult,
  env: ToolExecutionEnv,
): Promise<ToolResult> {
  const feedback = await callHook(
    env.logger,
    "toolResultFeedback",
    () =>
      env.hooks.toolResultFeedback?.(
        { toolCallId: call.id, toolName: call.name, args: call.arguments },
        result,
      ),
    undefined,
  );
  if (feedback === undefined || feedback === "") return result;
  return { ...result, content: [...result.content, { type: "text", text: feedback }] };
}

async function runTool(
  call: ToolCallContent,
  env: ToolExecutionEnv,
  onUsage: (spent: SpentUsage) => void,
): Promise<ToolResult> {
  const tool = env.tools.find((t) => t.name === call.name);
  if (tool === undefined) throw ToolError.notFound(call.name);
  const parsed = tool.parameters.safeParse(call.arguments);
  if (!parsed.success) {
    throw ToolError.invalidArgs(
      `Invalid arguments for tool ${call.name}:\n${z.prettifyError(parsed.error)}`,
    );
  }
  const { hooks, logger, sink, loopId } = env;
  const child = childAbortController(env.signal);
  let running = true;
  // the pushes of the tool's updates and progress: the tool does not wait for them, the call's
  // end does (its toolExecutionEnd follows them)
  let updates: SinkWait;
  // An abort (interrupt, timeout, shutdown) ends the call at once as cancelled, whether or not
  // the tool honours its signal; a result it produces later is ignored (issue #9 finding 8).
  let onAbort: (() => void) | undefined;
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(ToolError.cancelled(CANCELLED_FOR_ABORT));
    if (child.signal.aborted) onAbort();
    else child.signal.addEventListener("abort", onAbort, { once: true });
  });
  cancelled.catch(() => undefined);
  try {
    const execution = tool.execute(parsed.data, {
      toolCallId: call.id,
      toolName: call.name,
      signal: child.signal,
      loopId,
      onUpdate: (partialResult) => {
        if (!running) return; // late updates would land after toolExecutionEnd
        const update = { toolCallId: call.id, toolName: call.name, partialResult };
        const emit = callSyncHook(
          logger,
          "beforeToolExecutionUpdate",
          () => hooks.beforeToolExecutionUpdate?.(update) ?? true,
          true,
        );
        if (emit === false) return;
        updates = pushAfter(sink, updates, { type: "toolExecutionUpdate", loopId, ...update });
        callSyncHook(
          logger,
          "afterToolExecutionUpdate",
          () => hooks.afterToolExecutionUpdate?.(update),
          undefined,
        );
      },
      onUsage: (spent) => {
        if (running) onUsage(spent);
      },
      onProgress: (text) => {
        if (!running) return;
        updates = pushAfter(sink, updates, {
          type: "progressMessage",
          loopId,
          toolCallId: call.id,
          toolName: call.name,
          text,
        });
      },
    });
    execution.catch(() => undefined);
    return await Promise.race([execution, cancelled]);
  } finally {
    running = false;
    await updates;
    if (onAbort) child.signal.removeEventListener("abort", onAbort);
    child.dispose();
  }
}

/** A call that never runs: start and end events, the result message, no beforeToolExecution. */
async function skipToolCall(
  call: ToolCallContent,
  reason: string,
  env: ToolExecutionEnv,
): Promise<ToolResultMessage> {
  await env.sink.push({
    type: "toolExecutionStart",
    loopId: env.loopId,
    toolCallId: call.id,
    toolName: call.name,
    args: call.arguments,
  });
  return finishToolCall(call, textResult(reason), true, env);
}

/** Emits toolExecutionEnd and returns the result message (its message events follow afterToolExecution). */
async function finishToolCall(
  call: ToolCallContent,
  result: ToolResult,
  isError: boolean,
  env: ToolExecutionEnv,
): Promise<ToolResultMessage> {
  await env.sink.push({
    type: "toolExecutionEnd",
    loopId: env.loopId,
    toolCallId: call.id,
    toolName: call.name,
    result,
    isError,
    ...(result.childLoopId !== undefined ? { childLoopId: result.childLoopId } : {}),
  });
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    isError,
    timestamp: Date.now(),
  };
  if (result.details !== undefined) message.details = result.details;
  if (result.childLoopId !== undefined) message.childLoopId = result.childLoopId;
  if (result.usage !== undefined) message.usage = result.usage;
  if (result.model !== undefined) message.model = result.model;
  return message;
}

async function afterTool(message: ToolResultMessage, env: ToolExecutionEnv): Promise<void> {
  await callHook(
    env.logger,
    "afterToolExecution",
    () => env.hooks.afterToolExecution?.(message),
    undefined,
  );
  await env.sink.push({ type: "messageStart", loopId: env.loopId, message });
  await env.sink.push({ type: "messageEnd", loopId: env.loopId, message });
}

/** An error result that keeps what the call spent (a cancelled sub-agent's child loop). */
function withSpent(result: ToolResult, spent: SpentUsage): ToolResult {
  return {
    ...result,
    usage: spent.usage,
    ...(spent.model !== undefined ? { model: spent.model } : {}),
    ...(spent.childLoopId !== undefined ? { childLoopId: spent.childLoopId } : {}),
  };
}

function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }] };
}
