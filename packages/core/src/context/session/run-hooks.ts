import type { ToolCallVerdict } from "../../agent/types.js";
import type { AgentMessage, ToolCallContent } from "../../model/llm-messages.js";
import { ASK_QUESTION, isPlanTool, PRESENT_PLAN } from "../plan-act.js";
import { DENIED_RESULT_TEXT, maxAutoLoopDepth, verdictFromApproval } from "./approval-policy.js";
import type { RunContext } from "./run-context.js";

// The loop hooks through which the session steers the runtime's agent loop: beforeTurn (stop on
// interrupt, failure, a plan/question round or the depth limit; start the iteration timer),
// transformContext (the optimized view) and approveToolCalls (the approval gate, answered from
// the approvals stored on the tool_request). Each waits for the run's serial chain first, so it
// decides on the stored state.

export async function beforeTurn(run: RunContext): Promise<boolean> {
  await run.drain();
  if (run.failure || run.interruptRequested || run.stopAfterRound !== undefined) return false;
  const max = maxAutoLoopDepth(run.core.config.approval_policy);
  if (max !== undefined && run.depth >= max) {
    run.limitReached = true;
    return false;
  }
  startTimer(run);
  const state = run.state.type;
  // resuming a recoverable failure goes on with a model request (every call has its result)
  if (
    state === "OptimizingContext" ||
    state === "ToolAutoLoop" ||
    state === "Paused" ||
    state === "Failed"
  ) {
    const resumingCalls =
      state === "Paused" && run.core.lastMessage()?.body.message_type === "tool_request";
    // stored with the moves that follow it (transformContext, the response's start), in one write
    if (!resumingCalls) run.hold({ type: "PreparingLLMRequest" });
  }
  return !run.failure;
}

/** One auto-loop iteration may take `auto_loop_iteration_timeout_ms`; then the run is cut. */
function startTimer(run: RunContext): void {
  clearTimeout(run.timer);
  run.timer = setTimeout(() => {
    run.timedOut = true;
    run.controller.abort();
  }, run.core.config.auto_loop_iteration_timeout_ms);
}

export async function transformContext(
  run: RunContext,
  view: (signal: AbortSignal) => Promise<AgentMessage[]>,
  signal: AbortSignal,
): Promise<AgentMessage[]> {
  await run.drain();
  const messages = await view(signal);
  // held like PreparingLLMRequest: the request does not wait for their write, which the chain
  // stores before any event of the response; a failed write aborts the request (RunContext.fail)
  if (run.state.type === "PreparingLLMRequest") run.hold({ type: "ConnectingToLLM" });
  return messages;
}

/** The runtime's own text for a call of an unknown tool: a call the run did not offer gets it. */
export function notFoundText(toolName: string): string {
  return `Tool ${toolName} not found`;
}

export async function approvalGate(
  run: RunContext,
  calls: readonly ToolCallContent[],
): Promise<ToolCallVerdict[]> {
  await run.drain();
  const deferAll = calls.map((c): ToolCallVerdict => ({ toolCallId: c.id, verdict: "defer" }));
  if (run.failure || run.interruptRequested) return deferAll;
  const found = run.core.findToolRequest(calls[0]?.id ?? "");
  if (!found) return deferAll;
  const approvals = new Map(found.calls.map((c) => [c.id, c]));
  for (const call of found.calls) run.round.set(call.id, { requestId: found.id, call });
  const verdicts = calls.map((c): ToolCallVerdict => {
    // checked before the stored approval: a call approved in act mode does not run after a
    // switch to plan mode took its tool away
    if (!run.offered.has(c.name))
      return { toolCallId: c.id, verdict: "deny", reason: notFoundText(c.name) };
    const verdict = verdictFromApproval(approvals.get(c.id)?.approval ?? "pending");
    if (verdict === "deny") return { toolCallId: c.id, verdict, reason: DENIED_RESULT_TEXT };
    return { toolCallId: c.id, verdict };
  });
  const pending = calls.filter((_, i) => verdicts[i]?.verdict === "defer");
  if (pending.length > 0) {
    await run.serial(() =>
      run.move({
        type: "AwaitingToolApproval",
        pending_requests: pending.map((c) => c.id),
        tool_names: pending.map((c) => c.name),
      }),
    );
    return verdicts;
  }
  const running = calls.filter((_, i) => verdicts[i]?.verdict === "run");
  run.roundIndex = 0;
  run.roundTotal = running.filter((c) => !isPlanTool(c.name)).length;
  const plan = running.some((c) => c.name === PRESENT_PLAN);
  if (plan || running.some((c) => c.name === ASK_QUESTION)) {
    run.stopAfterRound = plan ? "plan" : "question";
    if (plan) await run.serial(() => run.move({ type: "ParsingPlan" }));
  }
  return verdicts;
}
