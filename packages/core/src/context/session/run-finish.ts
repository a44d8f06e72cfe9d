import type { ContextState } from "../../model/states.js";
import type { RunContext } from "./run-context.js";
import { type Change, RESTING_STATES } from "./session-core.js";
import { OperationRejected, StorageFailure } from "./session-errors.js";

// The end of a run: where the session rests once the agent loop has returned. In order of
// precedence: a timed-out iteration → Failed{recoverable} with a timeout error; an interrupt →
// Interrupting → Paused{interrupted} with a notice; the depth limit (or a loop that stopped
// between rounds) → Paused{auto_loop_limit} with a notice; a failed model call → Failed with its
// error; otherwise Idle (unless the run already rests, e.g. AwaitingToolApproval).

export async function finishRun(run: RunContext): Promise<void> {
  if (run.failure instanceof StorageFailure) return;
  if (run.failure instanceof OperationRejected) return;
  const core = run.core;
  const state = core.state;
  if (run.timedOut) {
    const ms = core.config.auto_loop_iteration_timeout_ms;
    const error = `Auto-loop iteration timed out after ${ms} ms; partial results were kept.`;
    core.deps.logger.error("auto-loop iteration timed out", { session: core.id, timeout_ms: ms });
    await settle(run, { type: "Failed", error, recoverable: true }, [
      core.errorBody("timeout", error, true),
    ]);
    return;
  }
  if (run.interruptRequested) {
    if (core.machine.canTransition("Interrupting")) await run.move({ type: "Interrupting" });
    await run.store(
      [run.notice("interrupted", "Interrupted by the user.")],
      [{ type: "Paused", reason: "interrupted" }],
    );
    return;
  }
  if (run.limitReached || state.type === "ToolAutoLoop") {
    const text = `Auto-loop stopped after ${run.depth} round${run.depth === 1 ? "" : "s"}.`;
    await run.store(
      [run.notice("auto_loop_limit", text, { depth: run.depth })],
      [{ type: "Paused", reason: "auto_loop_limit" }],
    );
    return;
  }
  if (run.llmError) {
    const { code, message } = run.llmError;
    await settle(run, { type: "Failed", error: message, recoverable: true }, [
      core.errorBody(code, message, true),
    ]);
    return;
  }
  if (RESTING_STATES.has(state.type)) return;
  await settle(run, { type: "Idle" }, []);
}

/** Moves to `target`, or to Failed when the table does not allow it from where the run stopped. */
async function settle(run: RunContext, target: ContextState, events: Change["events"]) {
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
  await core.commit({
    reset: failed,
    events: [core.update(failed, core.state), ...(events ?? [])],
  });
}
