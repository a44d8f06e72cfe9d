import { runAgentLoop, runAgentLoopContinue } from "../../agent/loop.js";
import { effectiveConfigId, loopIdOf } from "../../agent/loop-id.js";
import { strategyForMode } from "../../agent/tool-execution.js";
import type {
  AgentEvent,
  AgentHooks,
  AgentLoopConfig,
  ToolCallVerdict,
} from "../../agent/types.js";
import type { FoldRuntime } from "../../folding/fold-runtime.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { AgentMessage, ToolCallContent } from "../../model/llm-messages.js";
import type { ContinuationKind } from "../../model/loop-records.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { ContextState, StateOf } from "../../model/states.js";
import type { LoopTraceOptions } from "../../telemetry/spans.js";
import { tracingActive } from "../../telemetry/trace-context.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { ASK_QUESTION, isPlanTool, PRESENT_PLAN } from "../plan-act.js";
import {
  deniedResultText,
  maxAutoLoopDepth,
  readOnlyNames,
  verdictFromApproval,
} from "./approval-policy.js";
import { hookSessionInfo, toolHookCalls } from "./command-hook-calls.js";
import { loopContext } from "./loop-context.js";
import { RunContext, type RunStop } from "./run-context.js";
import { planning, storeLoopEvent } from "./run-events.js";
import { foldRuntimeFor } from "./run-folds.js";
import { OverflowRecovery } from "./run-overflow.js";
import {
  type Change,
  RESTING_STATES,
  StorageFailure,
  type StoredSession,
} from "./stored-session.js";

// One run of the runtime's agent loop inside a session operation. The driver is the loop's sink
// and hooks: it maps the loop's events to states, rows and session events (run-events.ts), steers
// the loop through its hooks (beforeTurn, transformContext, approveToolCalls, below) and, when
// the loop returns, rests the session where the run's one RunStop says (finishRun). The loop
// awaits its sink and hooks, so every step is stored in the loop's own order. It never
// re-implements the loop.

export interface RunInput {
  /** new prompts (runAgentLoop); undefined continues the history (runAgentLoopContinue) */
  prompts?: AgentMessage[];
  history: AgentMessage[];
  systemPrompt: string;
  tools: AnyAgentTool[];
  /**
   * the optimized view of the active branch, as the model must see it now; `steered`: the run has
   * handed the loop messages sent while it works (their rows join the branch as they go out)
   */
  view: (signal: AbortSignal, steered: boolean) => Promise<AgentMessage[]>;
  /** a continuation's parent: the loop whose tool calls (or pause) this run continues */
  parentLoopId?: string;
  /** how the run continues (REQ-180); `default` when only `parentLoopId` is given */
  continuationKind?: ContinuationKind;
  /** the write of the prompt's message, still in flight (see RunContext) */
  stored?: Promise<void>;
  /** the prompt's message id: a queued message this run answers is never steering as well */
  promptId?: string;
  signal?: AbortSignal;
}

/** What an operation that may run the agent loop did: how its run stopped, or why none ran. */
export type RunResult =
  | { type: "ran"; stop: RunStop }
  | {
      type: "not_run";
      /**
       * rolled_back: processing the message failed or was interrupted (it is not stored);
       * awaiting_decisions: other calls still wait for a decision; finished: there was nothing
       * left to continue (the session is Idle); workflow_denied: the user's own call was denied;
       * queued: a message sent while the agent works was stored as queued (message-queue.ts);
       * nested_decision: decisions went to calls waiting inside the running operation (an
       * ask-N-ways candidate's, a fold's: nested-approvals.ts), whose stream goes on
       */
      reason:
        | "rolled_back"
        | "awaiting_decisions"
        | "finished"
        | "workflow_denied"
        | "queued"
        | "nested_decision";
    };

export class RunDriver {
  readonly #core: StoredSession;
  #run: RunContext | undefined;

  constructor(core: StoredSession) {
    this.#core = core;
  }

  /**
   * Stops the run at once: a streaming answer is cut (kept incomplete), a running tool's signal
   * is aborted and its call ends as cancelled without waiting for it (bash kills its process
   * group), nothing further runs (issue #9 finding 8). The session passes through Interrupting
   * with the run's next write.
   */
  interrupt(): void {
    const run = this.#run;
    if (run?.stopWith({ type: "interrupted" })) run.controller.abort();
  }

  /** Runs the loop and rests the session; throws the run's failure (a write failed). */
  async run(input: RunInput): Promise<RunStop> {
    // context folding (run-folds.ts): the model is offered `branch` as well
    const folding = this.#core.config.folding.enabled;
    const run = new RunContext(
      this.#core,
      [...input.tools.map((t) => t.name), ...(folding ? ["branch"] : [])],
      input.stored,
      input.promptId,
    );
    this.#run = run;
    const byName = new Map(input.tools.map((t) => [t.name, t]));
    run.readOnly = readOnlyNames(input.tools);
    run.describeCall = async (name, args) => {
      try {
        return await byName.get(name)?.describeCall?.(args);
      } catch {
        // a tool's description of a call is an aid for the approval card, never a reason to fail
        return undefined;
      }
    };
    const onAbort = (): void => this.interrupt();
    input.signal?.addEventListener("abort", onAbort, { once: true });
    if (input.signal?.aborted) this.interrupt();
    for (const prompt of input.prompts ?? []) run.prompts.add(prompt);
    const context = {
      systemPrompt: input.systemPrompt,
      messages: [...input.history],
      tools: input.tools,
      agentId: "arbor",
      sessionId: this.#core.id,
      ...(input.parentLoopId !== undefined ? { parentLoopId: input.parentLoopId } : {}),
      ...(input.continuationKind !== undefined || input.parentLoopId !== undefined
        ? { continuationKind: input.continuationKind ?? { type: "default" as const } }
        : {}),
      ...(this.#core.operator !== null ? { startedBy: this.#core.operator } : {}),
    };
    const trace = await traceOptions(this.#core, input);
    if (trace !== undefined) Object.assign(context, { trace });
    const overflow = new OverflowRecovery(run, input);
    const config = this.#loopConfig(run, input, overflow);
    const folds = folding && config !== undefined ? foldRuntimeFor(run, input, config) : undefined;
    if (folds !== undefined) context.tools = [...input.tools, pausingTimer(run, folds.runtime)];
    const recorder = this.#core.deps.recorder;
    const sink = {
      push: (event: AgentEvent): Promise<void> | undefined => {
        recorder?.onEvent(event);
        run.steering.observe(event);
        if (event.type === "agentStart") run.loopId = event.loopId;
        return storeLoopEvent(run, event)?.catch((error: unknown) => run.fail(error));
      },
    };
    let stop: RunStop;
    try {
      if (config !== undefined) await this.#nameLoop(run, context, config);
      if (config === undefined) {
        // no model to call (a missing key): the run fails as a model call would (model_failed)
      } else if (run.failed) {
        // the loop could not be numbered (a storage failure): nothing runs
      } else {
        const added =
          input.prompts !== undefined
            ? await runAgentLoop(input.prompts, context, config, sink, run.controller.signal)
            : await runAgentLoopContinue(context, config, sink, run.controller.signal);
        // a run this driver stopped between turns (a question, a plan, the auto-loop limit:
        // beforeTurn below) ends without agentEnd; its loop record closes here, not "running"
        if (run.loopId !== "") recorder?.returned(run.loopId, added);
      }
      // a cancelled run's loop ends without waiting for its calls: its folds end (forced) now
      folds?.runtime.cancelAll("cancelled");
      await folds?.settled();
      await run.storeHeld();
      stop = overflow.explain(run.stop ?? { type: "completed" });
      await finishRun(run, stop);
    } finally {
      clearTimeout(run.timer);
      input.signal?.removeEventListener("abort", onAbort);
      // the loop record is in the store once the operation ends (listLoops right after it)
      await this.#core.deps.recorder?.flush();
    }
    // a write of the end itself may have failed
    const end = run.stop ?? stop;
    if (end.type === "failed") throw end.error;
    return end;
  }

  /**
   * The loop's id, numbered from the store so it survives restarts: a new run never reuses (and
   * overwrites) an earlier run's loop record, and never becomes its own parent. A store that
   * cannot answer fails the run as a storage failure.
   */
  async #nameLoop(
    run: RunContext,
    context: { loopId?: string; parentLoopId?: string },
    config: AgentLoopConfig,
  ): Promise<void> {
    const configId = effectiveConfigId(config);
    try {
      const n = await this.#core.deps.store.nextLoopNumber(this.#core.id, configId);
      context.loopId = loopIdOf(this.#core.id, configId, n);
    } catch (error) {
      run.fail(new StorageFailure(error));
    }
  }

  /** The loop's config; undefined (the run stopped model_failed) when the model has no key. */
  #loopConfig(
    run: RunContext,
    input: RunInput,
    overflow: OverflowRecovery,
  ): AgentLoopConfig | undefined {
    const { deps, config } = this.#core;
    let model: ModelConfig;
    try {
      // keys are scoped to their provider: another protocol gets its own (or fails, naming it)
      model = config.model
        ? sessionModelConfig(deps.model(), config.model, deps.modelEnv())
        : deps.model();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger.error("the session's model cannot be used", {
        session: this.#core.id,
        error: message,
      });
      run.stopWith({ type: "model_failed", error: { code: "llm_error", message } });
      return undefined;
    }
    const loop: AgentLoopConfig = {
      provider: deps.provider,
      model,
      thinkingLevel: config.model?.thinking_level ?? "off",
      // the session's optimization of the branch, before every request and on a context
      // overflow (run-overflow.ts), as for every loop of the session (loop-context.ts)
      ...loopContext({
        view: (_messages, signal) => transformContext(run, input.view, signal),
        shrink: (signal) => overflow.recover(signal),
      }),
      executionLimits: deps.executionLimits,
      retryConfig: deps.retryConfig,
      toolExecution: strategyForMode(config.tool_execution),
      logger: deps.logger,
      hooks: { beforeTurn: () => beforeTurn(run), ...commandHookCalls(run) },
      approveToolCalls: (calls) => {
        run.steering.roundStarts(calls);
        return approvalGate(run, calls);
      },
      // messages sent while the run works (message-queue.ts); follow-ups wait for the run's end
      getSteeringMessages: () => run.steering.take(),
    };
    if (config.model?.max_tokens !== undefined) loop.maxTokens = config.model.max_tokens;
    return loop;
  }
}

// ---- telemetry -------------------------------------------------------------------------------

/**
 * Where a continuation's span goes: in the trace of the loop it continues (an approval's
 * continuation, a resume), read from that loop's record, which may have been written by another
 * instance or before a restart; a rerun or a branch links to it instead (a new answer of its own).
 * Undefined for a fresh run (its span nests under the active context) or when traces are off.
 */
async function traceOptions(
  core: StoredSession,
  input: RunInput,
): Promise<LoopTraceOptions | undefined> {
  const parentLoopId = input.parentLoopId;
  if (parentLoopId === undefined || !tracingActive()) return undefined;
  let traceparent = core.deps.recorder?.getLoop(parentLoopId)?.traceparent;
  if (traceparent === undefined) {
    try {
      const loops = await core.deps.store.listLoops(core.id);
      traceparent = loops.find((loop) => loop.loopId === parentLoopId)?.traceparent;
    } catch (error) {
      // telemetry never fails a run: the span starts a trace of its own
      core.deps.logger.warn("the continued loop's trace context could not be read", {
        session: core.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  if (traceparent === undefined) return undefined;
  const kind = input.continuationKind?.type ?? "default";
  return kind === "default" ? { parent: traceparent } : { links: [traceparent] };
}

// ---- the loop's hooks ---------------------------------------------------------------------

/** How many times Stop hooks may keep one run going (each costs a model request). */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;

/**
 * The workspace's hooks around the run (command-hook-calls.ts, docs/hooks.md): PreToolUse and
 * PostToolUse on its calls, and Stop: a Stop hook that blocks has its reason stored as a user
 * message, and the run goes on with it.
 */
function commandHookCalls(run: RunContext): AgentHooks {
  const { core } = run;
  const hooks = core.deps.commandHooks?.(core.config);
  if (hooks === undefined) return {};
  let stopHookActive = false;
  let continued = 0;
  return {
    ...toolHookCalls(core, hooks, () => run.controller.signal),
    beforeStop: async () => {
      if (run.stop !== undefined) return [];
      // a hook that never lets go (it ignores stop_hook_active) must not make the run endless
      if (continued >= MAX_STOP_HOOK_CONTINUATIONS) {
        core.deps.logger.warn("Stop hooks kept the agent going too often; the run ends", {
          session: core.id,
          continuations: continued,
        });
        return [];
      }
      const info = hookSessionInfo(core);
      const verdict = await hooks.stop("Stop", info, stopHookActive, run.controller.signal);
      if (verdict.block === undefined || run.stop !== undefined) return [];
      stopHookActive = true;
      continued++;
      const now = core.nowIso();
      const text = `Stop hook feedback: ${verdict.block}`;
      const row: ContextMessage = {
        id: core.newId(),
        session_id: core.id,
        role: "user",
        body: { message_type: "text", text },
        status: "complete",
        created_at: now,
        completed_at: now,
      };
      const message: AgentMessage = {
        role: "user",
        content: [{ type: "text", text }],
        timestamp: Date.now(),
      };
      // stored here (the model's view is read from the store); the loop's events skip it
      run.prompts.add(message);
      await run.store([row]);
      return [message];
    },
  };
}

/** Stops before a turn once the run has a stop or reaches the depth limit; starts the timer. */
function beforeTurn(run: RunContext): boolean {
  if (run.stop !== undefined) return false;
  const max = maxAutoLoopDepth(run.core.config.approval_policy);
  if (max !== undefined && run.depth >= max) {
    run.stopWith({ type: "auto_loop_limit" });
    return false;
  }
  startTimer(run);
  const state = run.state.type;
  // resuming a recoverable failure goes on with a model request (every call has its result)
  if (
    state === "OptimizingContext" ||
    state === "ToolAutoLoop" ||
    state === "ResearchingPlan" ||
    state === "Paused" ||
    state === "Failed"
  ) {
    const resumingCalls =
      state === "Paused" && run.core.lastMessage()?.body.message_type === "tool_request";
    // stored with the moves that follow it (transformContext, the response's start), in one write
    if (!resumingCalls) run.hold({ type: "PreparingLLMRequest" });
  }
  return true;
}

/**
 * The run's `branch` tool: while a fold works, the parent's iteration timer is stopped (the fold
 * has its own timeout, default 300 s, beyond the iteration's 30 s) and starts again after it.
 */
function pausingTimer(run: RunContext, runtime: FoldRuntime): AnyAgentTool {
  const branch = runtime.branchTool();
  // sibling folds may run at once (tool_execution: parallel): the clock starts again only
  // once the last of them has returned
  let open = 0;
  return {
    ...branch,
    execute: async (params, ctx) => {
      open++;
      clearTimeout(run.timer);
      try {
        return await branch.execute(params, ctx);
      } finally {
        open--;
        if (open === 0 && run.stop === undefined) startTimer(run);
      }
    },
  };
}

/** One auto-loop iteration may take `auto_loop_iteration_timeout_ms`; then the run is cut. */
function startTimer(run: RunContext): void {
  clearTimeout(run.timer);
  const timeoutMs = run.core.config.auto_loop_iteration_timeout_ms;
  run.timer = setTimeout(() => {
    // a call waiting for a person (a sub-agent's, nested-approvals.ts) is not cut by the clock:
    // the iteration gets its time again
    if (run.core.nestedApprovals.size > 0) return startTimer(run);
    if (run.stopWith({ type: "timed_out", timeoutMs })) run.controller.abort();
  }, timeoutMs);
}

async function transformContext(
  run: RunContext,
  view: (signal: AbortSignal, steered: boolean) => Promise<AgentMessage[]>,
  signal: AbortSignal,
): Promise<AgentMessage[]> {
  const messages = await view(signal, run.steering.steered);
  if (run.state.type === "PreparingLLMRequest") run.hold({ type: "ConnectingToLLM" });
  // stored while the request goes out (behind the loop); the first chunk's write follows them,
  // and a failed write aborts the request (RunContext.fail)
  run.storeHeldBehind();
  return messages;
}

/** The runtime's own text for a call of an unknown tool: a call the run did not offer gets it. */
export function notFoundText(toolName: string): string {
  return `Tool ${toolName} not found`;
}

/** The approval gate, answered from the approvals stored on the tool_request. */
async function approvalGate(
  run: RunContext,
  calls: readonly ToolCallContent[],
): Promise<ToolCallVerdict[]> {
  const deferAll = calls.map((c): ToolCallVerdict => ({ toolCallId: c.id, verdict: "defer" }));
  if (run.stop !== undefined) return deferAll;
  const found = run.core.findToolRequest(calls[0]?.id ?? "");
  if (!found) return deferAll;
  const approvals = new Map(found.calls.map((c) => [c.id, c]));
  for (const call of found.calls) run.round.set(call.id, { requestId: found.id, call });
  const verdicts = calls.map((c): ToolCallVerdict => {
    // checked before the stored approval: a call approved in act mode does not run after a
    // switch to plan mode took its tool away
    if (!run.offered.has(c.name))
      return { toolCallId: c.id, verdict: "deny", reason: notFoundText(c.name) };
    const stored = approvals.get(c.id);
    const verdict = verdictFromApproval(stored?.approval ?? "pending");
    // who decided, for the call's span (telemetry/): the person, else the policy or rule noted
    const source = {
      ...(stored?.decided_by ? { decidedBy: stored.decided_by } : {}),
      ...(!stored?.decided_by && stored?.approval_note !== undefined
        ? { rule: stored.approval_note }
        : {}),
    };
    if (verdict === "deny") {
      return {
        toolCallId: c.id,
        verdict,
        reason: deniedResultText(stored?.approval_note),
        ...source,
      };
    }
    if (verdict === "run") return { toolCallId: c.id, verdict, ...source };
    return { toolCallId: c.id, verdict };
  });
  const pending = calls.filter((_, i) => verdicts[i]?.verdict === "defer");
  // the loop runs the calls before the first deferred one now (loop.ts runToolRound)
  const first = calls.findIndex((_, i) => verdicts[i]?.verdict === "defer");
  const now = first < 0 ? calls : calls.slice(0, first);
  const running = now.filter((c) => verdicts[calls.indexOf(c)]?.verdict === "run");
  run.roundIndex = 0;
  run.roundTotal = running.filter((c) => !isPlanTool(c.name)).length;
  if (pending.length > 0) {
    const waiting: StateOf<"AwaitingToolApproval"> = {
      type: "AwaitingToolApproval",
      pending_requests: pending.map((c) => c.id),
      tool_names: pending.map((c) => c.name),
    };
    run.stopWith({ type: "awaiting_approval", waiting });
    await run.move(waiting);
    if (planning(run) && run.roundTotal > 0) {
      // the read-only calls before the held one run now (loop.ts runToolRound)
      await run.move({
        type: "ResearchingPlan",
        tool_names: running.filter((c) => !isPlanTool(c.name)).map((c) => c.name),
        tools_executed: run.toolsExecuted,
      });
    }
    return verdicts;
  }
  if (planning(run) && run.roundTotal > 0) {
    // plan mode: the read-only calls run in ResearchingPlan (never ExecutingTool)
    await run.move({
      type: "ResearchingPlan",
      tool_names: running.filter((c) => !isPlanTool(c.name)).map((c) => c.name),
      tools_executed: run.toolsExecuted,
    });
  }
  const plan = running.some((c) => c.name === PRESENT_PLAN);
  if (plan || running.some((c) => c.name === ASK_QUESTION)) {
    run.stopWith({ type: "awaiting_user" });
    if (plan) await run.move({ type: "ParsingPlan" });
  }
  return verdicts;
}

// ---- the end of a run ---------------------------------------------------------------------

/** Where the session rests once the loop has returned, from the run's one stop. */
async function finishRun(run: RunContext, stop: RunStop): Promise<void> {
  const core = run.core;
  switch (stop.type) {
    case "failed":
      // the operation ends with the error (the session's operation runner rests the session)
      return;
    case "timed_out": {
      const error = `Auto-loop iteration timed out after ${stop.timeoutMs} ms; partial results were kept.`;
      core.deps.logger.error("auto-loop iteration timed out", {
        session: core.id,
        timeout_ms: stop.timeoutMs,
      });
      await restIn(run, { type: "Failed", error, recoverable: true }, [
        core.errorEvent("timeout", error, true),
      ]);
      return;
    }
    case "interrupted":
      // RunContext.commit passes through Interrupting first
      await run.store(
        [run.notice("interrupted", "Interrupted by the user.")],
        [{ type: "Paused", reason: "interrupted" }],
      );
      return;
    case "auto_loop_limit":
      await pauseAtLimit(run);
      return;
    case "model_failed": {
      const { code, message } = stop.error;
      await restIn(run, { type: "Failed", error: message, recoverable: true }, [
        core.errorEvent(code, message, true),
      ]);
      return;
    }
    case "awaiting_approval":
    case "awaiting_user":
    case "completed":
      // a loop that stopped between rounds (its own execution limit) pauses like the depth limit
      if (
        stop.type === "completed" &&
        (core.state.type === "ToolAutoLoop" || core.state.type === "ResearchingPlan")
      ) {
        await pauseAtLimit(run);
        return;
      }
      // the gate's AwaitingToolApproval, a question's AwaitingUserAnswer: the session waits there
      if (!RESTING_STATES.has(core.state.type)) await restIn(run, { type: "Idle" }, []);
      return;
    default:
      return stop satisfies never;
  }
}

async function pauseAtLimit(run: RunContext): Promise<void> {
  const text = `Auto-loop stopped after ${run.depth} round${run.depth === 1 ? "" : "s"}.`;
  await run.store(
    [run.notice("auto_loop_limit", text, { depth: run.depth })],
    [{ type: "Paused", reason: "auto_loop_limit" }],
  );
}

/** Moves to `target`, or to Failed when the table does not allow it from where the run stopped. */
async function restIn(run: RunContext, target: ContextState, events: Change["events"]) {
  const core = run.core;
  if (core.machine.canTransition(target)) {
    await run.move(target, { events: events ?? [] });
    return;
  }
  const failed: ContextState = {
    type: "Failed",
    error: target.type === "Failed" ? target.error : `the run stopped in ${core.state.type}`,
    recoverable: true,
  };
  await run.commit({
    reset: failed,
    events: [core.contextUpdateEvent(failed, core.state), ...(events ?? [])],
  });
}
