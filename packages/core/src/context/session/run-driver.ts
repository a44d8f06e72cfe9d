import { runAgentLoop, runAgentLoopContinue } from "../../agent/loop.js";
import { effectiveConfigId, loopIdOf } from "../../agent/loop-id.js";
import type { AgentEvent, AgentLoopConfig } from "../../agent/types.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { AgentMessage } from "../../model/llm-messages.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { RunContext } from "./run-context.js";
import { handleLoopEvent, onDeltas, storesNothing } from "./run-events.js";
import { finishRun } from "./run-finish.js";
import { approvalGate, beforeTurn, transformContext } from "./run-hooks.js";
import { OverflowRecovery } from "./run-overflow.js";
import type { SessionCore } from "./session-core.js";
import { StorageFailure } from "./session-errors.js";

// One run of the runtime's agent loop inside a session operation. The driver is the loop's sink
// and hooks: it maps the loop's events to states, rows and session events (run-events.ts),
// steers the loop through its hooks (run-hooks.ts) and settles the session when the loop returns
// (run-finish.ts), persisting each step in order through one RunContext. It never
// re-implements the loop.

export interface RunInput {
  /** new prompts (runAgentLoop); undefined continues the history (runAgentLoopContinue) */
  prompts?: AgentMessage[];
  history: AgentMessage[];
  systemPrompt: string;
  tools: AnyAgentTool[];
  /** the optimized view of the active branch, as the model must see it now */
  view: (signal: AbortSignal) => Promise<AgentMessage[]>;
  /** a continuation's parent: the loop whose tool calls (or pause) this run continues */
  parentLoopId?: string;
  /** the write of the prompt's message, still in flight (see RunContext) */
  stored?: Promise<void>;
  signal?: AbortSignal;
}

export class RunDriver {
  readonly #core: SessionCore;
  #run: RunContext | undefined;

  constructor(core: SessionCore) {
    this.#core = core;
  }

  /**
   * Stops the run at once: a streaming answer is cut (kept incomplete), a running tool's signal
   * is aborted and its call ends as cancelled without waiting for it (bash kills its process
   * group), nothing further runs (issue #9 finding 8).
   */
  interrupt(): void {
    const run = this.#run;
    if (!run || run.interruptRequested) return;
    run.interruptRequested = true;
    run.controller.abort();
    void run.serial(async () => {
      if (run.core.machine.canTransition("Interrupting")) await run.move({ type: "Interrupting" });
    });
  }

  async run(input: RunInput): Promise<void> {
    const run = new RunContext(
      this.#core,
      input.tools.map((t) => t.name),
      input.stored,
    );
    this.#run = run;
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
      ...(input.parentLoopId !== undefined
        ? { parentLoopId: input.parentLoopId, continuationKind: { type: "default" as const } }
        : {}),
    };
    const overflow = new OverflowRecovery(run, input);
    const config = this.#loopConfig(run, input, overflow);
    const sink = { push: (event: AgentEvent) => this.#push(run, event) };
    try {
      if (config !== undefined) await this.#nameLoop(run, context, config);
      if (config === undefined) {
        // no model to call (a missing key): the run fails as a model call would (llmError)
      } else if (run.failure) {
        // the loop could not be numbered (a storage failure): nothing runs
      } else if (input.prompts !== undefined) {
        await runAgentLoop(input.prompts, context, config, sink, run.controller.signal);
      } else {
        await runAgentLoopContinue(context, config, sink, run.controller.signal);
      }
      await run.serial(() => run.storeHeld());
      await run.settle();
      overflow.explain();
      await finishRun(run);
    } finally {
      clearTimeout(run.timer);
      input.signal?.removeEventListener("abort", onAbort);
      // the loop record is in the store once the operation ends (listLoops right after it)
      await this.#core.deps.recorder?.flush();
    }
    if (run.failure) throw run.failure;
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

  /** The loop's config; undefined (with run.llmError set) when the session's model has no key. */
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
        ? sessionModelConfig(deps.model, config.model, deps.modelEnv)
        : deps.model;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger.error("the session's model cannot be used", {
        session: this.#core.id,
        error: message,
      });
      run.llmError = { code: "llm_error", message };
      return undefined;
    }
    const loop: AgentLoopConfig = {
      provider: deps.provider,
      model,
      thinkingLevel: config.model?.thinking_level ?? "off",
      // the session's optimization (transformContext) replaces the runtime's compaction, and on
      // a context overflow too (run-overflow.ts)
      contextConfig: null,
      recoverContextOverflow: (signal) => overflow.recover(signal),
      executionLimits: deps.executionLimits,
      retryConfig: deps.retryConfig,
      toolExecution: { type: "sequential" },
      logger: deps.logger,
      hooks: { beforeTurn: () => beforeTurn(run) },
      approveToolCalls: (calls) => approvalGate(run, calls),
      transformContext: (_messages, signal) => transformContext(run, input.view, signal),
    };
    if (config.model?.max_tokens !== undefined) loop.maxTokens = config.model.max_tokens;
    return loop;
  }

  #push(run: RunContext, event: AgentEvent): void {
    this.#core.deps.recorder?.onEvent(event);
    if (event.type === "agentStart") run.loopId = event.loopId;
    if (event.type === "messageUpdate") {
      // group commit: chunks that arrive while a write is in flight are stored together by one
      // queued task; it is queued when the first chunk of a batch arrives, so it keeps its place
      // before any later event on the chain
      run.pendingChunks.push(event.delta);
      if (run.pendingChunks.length === 1) {
        void run.serial(() => onDeltas(run, run.pendingChunks.splice(0)));
      }
      return;
    }
    if (!storesNothing(run, event)) void run.serial(() => handleLoopEvent(run, event));
  }
}
