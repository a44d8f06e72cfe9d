import { OVERFLOW_TARGET } from "../../agent/optimization-step.js";
import { isContextOverflow } from "../../llm/errors.js";
import type { ContextState } from "../../model/states.js";
import { TELEMETRY_NAMES } from "../../telemetry/names.js";
import { inSpan } from "../../telemetry/spans.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import type { OptimizeBranchResult } from "../optimization/optimizer.js";
import type { RunContext, RunStop } from "./run-context.js";
import {
  optimizationUpdates,
  optimizationWrite,
  optimizeActiveBranch,
} from "./session-optimization.js";

// Recovery from a context overflow inside a session's run. The runtime's loop detects the
// provider's "prompt is too long" (llm/errors.ts classifies it) and calls `recover` once per
// response (AgentLoopConfig.recoverContextOverflow); the session answers with its own
// optimization (one system: the branch's strategies, summaries and records, as a manual
// optimize stores them, so the transcript shows the same divider), aimed below what the provider
// refused, and the loop sends the request once more. A second overflow, or one the optimization
// cannot shrink, ends the run as Failed with an error that says what was tried (`explain`).

/** The context_update metadata `reason` of an optimization made after a context overflow. */
export const CONTEXT_OVERFLOW_REASON = "context_overflow";

type Outcome =
  | { type: "none" }
  | { type: "unchanged" }
  | { type: "optimized"; result: OptimizeBranchResult };

export class OverflowRecovery {
  readonly #run: RunContext;
  readonly #setup: { systemPrompt: string; tools: readonly AnyAgentTool[] };
  #outcome: Outcome = { type: "none" };

  constructor(run: RunContext, setup: { systemPrompt: string; tools: readonly AnyAgentTool[] }) {
    this.#run = run;
    this.#setup = setup;
  }

  /**
   * Optimizes the active branch after the provider refused the request as too long: stores the
   * OptimizingContext move, the new summaries and the optimization record with a context_update
   * whose metadata says why (`reason: "context_overflow"`, `retrying: true`), and holds
   * PreparingLLMRequest for the request sent again. Resolves false when nothing could be made
   * smaller or the run is stopping; a storage failure fails the run.
   */
  recover(signal: AbortSignal): Promise<boolean> {
    // a span of its own, under the run's (telemetry/); the optimization it runs nests inside
    const names = TELEMETRY_NAMES.attributes;
    return inSpan(
      TELEMETRY_NAMES.spans.contextOverflowRecovery,
      { [names.conversationId]: this.#run.core.id },
      async (span) => {
        const recovered = await this.#recover(signal);
        if (span.isRecording()) span.setAttribute(names.contextRecovered, recovered);
        return recovered;
      },
    );
  }

  async #recover(signal: AbortSignal): Promise<boolean> {
    const run = this.#run;
    const core = run.core;
    try {
      // the loop awaited its sink, so its steps are stored; the writes behind it (the prompt's,
      // held moves, streamed chunks) are waited for here, so the optimization sees everything
      await run.storeHeld();
      if (run.stop !== undefined || signal.aborted) return false;
      const optimizing: ContextState = { type: "OptimizingContext" };
      await run.move(optimizing);
      if (core.state.type !== "OptimizingContext") return false;
      const step = await optimizeActiveBranch(core, {
        ...this.#setup,
        signal,
        // the provider counts differently from us: aim below what it refused, as the runtime's
        // own overflow optimization does
        shrinkTo: OVERFLOW_TARGET,
      });
      const result = step.stored.at(-1);
      if (result === undefined) {
        this.#outcome = { type: "unchanged" };
        return false;
      }
      await run.commit({
        write: optimizationWrite(step),
        events: optimizationUpdates(core, step, {
          reason: CONTEXT_OVERFLOW_REASON,
          retrying: true,
        }),
      });
      this.#outcome = { type: "optimized", result };
      run.hold({ type: "PreparingLLMRequest" });
      return !run.failed;
    } catch (error) {
      if (!signal.aborted) run.fail(error);
      return false;
    }
  }

  /**
   * Once the run's steps are stored: a model failure that is a context overflow the session
   * could not recover from becomes a `context_overflow` error saying what was tried; any other
   * stop is returned as it is.
   */
  explain(stop: RunStop): RunStop {
    if (stop.type !== "model_failed") return stop;
    const error = stop.error;
    const outcome = this.#outcome;
    if (outcome.type === "none") return stop;
    // after an optimization the retried request may fail for another reason: keep that one
    if (outcome.type === "optimized" && !isContextOverflow(undefined, error.message)) return stop;
    const said = `the provider said: ${error.message}`;
    const message =
      outcome.type === "optimized"
        ? `The conversation is still too long for the model after optimizing it from ${outcome.result.record.tokens_before} to ${outcome.result.record.tokens_after} tokens (${said}). Shorten it (fork from an earlier message) or use a model with a larger context window.`
        : `The conversation is too long for the model and optimizing it cannot make it smaller (${said}). Shorten it (fork from an earlier message) or use a model with a larger context window.`;
    return { type: "model_failed", error: { code: "context_overflow", message } };
  }
}
