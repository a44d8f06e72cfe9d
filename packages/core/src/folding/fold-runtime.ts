import type { z } from "zod";
import { runAgentLoop } from "../agent/loop.js";
import { estimateTextTokens } from "../agent/token-count.js";
import type {
  AgentEvent,
  AgentLoopConfig,
  ChildLoopSetup,
  LoopContextHandling,
  ToolCallVerdict,
} from "../agent/types.js";
import { childAbortController } from "../model/cancellation.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  type ToolCallContent,
  userMessage,
} from "../model/llm-messages.js";
import type { FoldingSettings } from "../model/session-config.js";
import type { SessionEventBody } from "../protocol/events.js";
import { type AnyAgentTool, defineTool, ToolError, type ToolResult } from "../tools/tool.js";
import {
  budgetWarningText,
  FOLD_MEMORY_SHARE,
  type FoldForcedReason,
  FoldLedger,
  forcedReturnHeader,
} from "./ledger.js";
import type { FoldMemorySource } from "./memory.js";
import { BranchParams, ReturnParams } from "./params.js";

// The fold runtime (issue #13): `branch` starts a fold, a child loop whose context is the
// session's system prompt, a note of what the fold is for, injected memories and its prompt,
// never the parent's conversation; `return` ends it. The parent's `branch` call completes with
// the fold's (scrubbed) return message, so the fold's steps never enter the parent's context.
// Each fold's budget is metered on the usage its model requests report (input + output; a local
// count when none) and on the tool output entering it: at 80% a warning goes into its next
// request, at 100% (or on timeout, cancellation, or its parent returning) it is forced to return
// a partial summary.

export interface FoldRecord {
  id: string;
  parentId?: string;
  depth: number;
  description: string;
  prompt: string;
  budget: number;
  used: number;
  timeoutSeconds: number;
  /** the parent's `branch` call */
  toolCallId?: string;
  status: "running" | "returned" | "forced";
  forcedReason?: FoldForcedReason;
  /** the scrubbed message the parent received */
  result?: string;
  loopId?: string;
  injectedMemoryIds: string[];
  warned: boolean;
  /** every message of the fold's loop: stored and viewable, never in the parent's context */
  steps: AgentMessage[];
  startedAt: number;
  endedAt?: number;
}

/** Events for the UI, as the session streams them (protocol/events.ts). */
export type FoldEvent = Extract<
  SessionEventBody,
  { name: "fold_started" | "fold_budget_warning" | "fold_returned" }
>;

export interface FoldMemory {
  id: string;
  text: string;
}

/** Per-workspace fold memories (folding/memory.ts: `FoldMemoryFile`, BM25 over descriptions). */
export type FoldMemoryStore = FoldMemorySource;

/** What the runtime needs from its session. */
export interface FoldHost {
  sessionId: string;
  agentId?: string;
  systemPrompt: string;
  /** the parent's tools (with their approval gate in `loopConfig`); `branch`/`return` are added */
  tools: AnyAgentTool[];
  /** the parent's loop config: provider, model, approval gate, limits */
  loopConfig: AgentLoopConfig;
  /**
   * How each fold keeps its context within the model's window, asked per fold with its system
   * prompt and tools (a session: its own optimization and overflow recovery). Absent: the
   * fold's budget alone (no optimization), as `loopConfig`'s transformContext shapes the view.
   */
  context?: (setup: ChildLoopSetup) => LoopContextHandling;
  /**
   * The fold's approval gate, when it differs from the parent's: it knows the fold and gets the
   * fold's signal (aborted when the fold is forced back). A call it holds for a person may wait:
   * the fold's timeout is paused while the gate decides.
   */
  approve?: (
    calls: readonly ToolCallContent[],
    fold: FoldRecord,
    signal: AbortSignal,
  ) => ToolCallVerdict[] | Promise<ToolCallVerdict[]>;
  /** secret scrubbing of every return message (folding/scrub.ts: scrubSecrets) */
  scrub: (text: string) => string | Promise<string>;
  /** the session's summarizer; absent or failing: extractive from the fold's last steps */
  summarize?: (steps: AgentMessage[], signal: AbortSignal) => Promise<string>;
  memories?: FoldMemoryStore;
  /** the fold loop's events (storage, the recorder's loop tree) */
  onLoopEvent?: (event: AgentEvent) => void | PromiseLike<void>;
  /**
   * The fold loop's run returned `messages`. A fold stops its loop between turns once it has
   * returned (beforeTurn), and such a loop emits no agentEnd (REQ-091): the recorder closes it
   * from here (LoopRecorder.returned).
   */
  onLoopReturned?: (loopId: string, messages: readonly AgentMessage[]) => void;
  onFoldEvent?: (event: FoldEvent) => void;
  countTokens?: (text: string) => number;
  settings?: Partial<FoldingSettings>;
  now?: () => number;
  /** fold ids (unique in the session: a session makes a runtime per run); `fold-<n>` by default */
  newFoldId?: () => string;
  /** the fold loop's id (a session numbers it under its parent's loop); the loop's own otherwise */
  newLoopId?: (fold: FoldRecord) => string;
}

export interface FoldResultDetails {
  fold_id: string;
  forced: boolean;
  reason: FoldForcedReason | null;
  tokens_used: number;
  budget: number;
  injected_memory_ids: string[];
}

interface OpenFold {
  record: FoldRecord;
  abort: (reason: FoldForcedReason) => void;
  /** the fold's timeout stops counting while a call waits for a person, and goes on after */
  pauseTimeout: () => void;
  resumeTimeout: () => void;
  children: Set<string>;
  returned?: { message: string; remember: boolean };
  pendingWarning?: string;
}

export class FoldRuntime {
  readonly settings: FoldingSettings;
  readonly #host: FoldHost;
  readonly #folds = new Map<string, FoldRecord>();
  readonly #open = new Map<string, OpenFold>();
  readonly #running = new Set<Promise<unknown>>();
  /** limits, budgets and open/closed state (folding/ledger.ts); this class runs the loops */
  readonly #ledger: FoldLedger;

  constructor(host: FoldHost) {
    this.#host = host;
    this.#ledger = new FoldLedger({
      ...(host.settings ? { config: host.settings } : {}),
      ...(host.now ? { now: host.now } : {}),
      ...(host.newFoldId ? { newId: host.newFoldId } : {}),
    });
    this.settings = this.#ledger.config;
  }

  /** Every fold of the session, in start order. */
  folds(): FoldRecord[] {
    return [...this.#folds.values()];
  }

  fold(id: string): FoldRecord | undefined {
    return this.#folds.get(id);
  }

  /** The number of folds still running. */
  get openCount(): number {
    return this.#open.size;
  }

  /** The parent's `branch` tool (depth 1 folds). */
  branchTool(): AnyAgentTool {
    return this.#branchTool(undefined);
  }

  /**
   * Resolves once no fold runs: a cancelled parent's loop ends without waiting for its tool
   * calls, and its folds end (forced) a moment later.
   */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /** Forces every open fold to return (the parent was cancelled or the session closes). */
  cancelAll(reason: FoldForcedReason = "cancelled"): void {
    for (const open of this.#open.values()) open.abort(reason);
  }

  #count(text: string): number {
    return (this.#host.countTokens ?? estimateTextTokens)(text);
  }

  #branchTool(parent: OpenFold | undefined): AnyAgentTool {
    return defineTool({
      name: "branch",
      label: "Fold",
      description:
        "Start a fold: a sub-task worked in its own context that sees only `prompt`, not this " +
        "conversation. Call `return` inside it; this call's result is the fold's return message.",
      parameters: BranchParams,
      category: "other",
      execute: (params, ctx) => {
        const run = this.#runFold(parent, params, ctx.signal, ctx.toolCallId);
        this.#running.add(run);
        void run.then(
          () => this.#running.delete(run),
          () => this.#running.delete(run),
        );
        return run;
      },
    });
  }

  #returnTool(open: OpenFold): AnyAgentTool {
    return defineTool({
      name: "return",
      label: "Return from fold",
      description:
        "End this fold: `message` (short: what you found) becomes the result of the branch call. " +
        "`remember: true` keeps it as a lesson for later folds.",
      parameters: ReturnParams,
      category: "other",
      execute: async (params) => {
        if (open.returned === undefined) {
          open.returned = {
            message: params.message,
            remember: params.remember ?? this.settings.remember_by_default,
          };
        }
        // children still open are forced back with a partial summary
        for (const childId of open.children) this.#open.get(childId)?.abort("parent_returned");
        return { content: [{ type: "text", text: "Returned to the parent." }] };
      },
    });
  }

  async #runFold(
    parent: OpenFold | undefined,
    params: z.output<typeof BranchParams>,
    signal: AbortSignal,
    toolCallId?: string,
  ): Promise<ToolResult<FoldResultDetails>> {
    const opened = this.#ledger.open({
      description: params.description,
      ...(params.budget !== undefined ? { budget: params.budget } : {}),
      ...(params.timeout_seconds !== undefined ? { timeoutSeconds: params.timeout_seconds } : {}),
      ...(parent ? { parentId: parent.record.id } : {}),
    });
    if (!opened.ok) {
      const { code, message } = opened.refusal;
      throw code === "budget" || code === "timeout"
        ? ToolError.invalidArgs(message)
        : ToolError.failed(message);
    }
    const { id, depth, budget, timeoutSeconds, startedAt } = opened.fold;
    const now = this.#host.now ?? Date.now;
    const record: FoldRecord = {
      id,
      ...(parent ? { parentId: parent.record.id } : {}),
      depth,
      description: params.description,
      prompt: params.prompt,
      budget,
      used: 0,
      timeoutSeconds,
      ...(toolCallId !== undefined ? { toolCallId } : {}),
      status: "running",
      injectedMemoryIds: [],
      warned: false,
      steps: [],
      startedAt,
    };
    const controller = childAbortController(signal);
    // the timeout counts wall time except while the fold's gate waits (for a person)
    let left = timeoutSeconds * 1000;
    let armedAt = Date.now();
    let paused = 0;
    const arm = (): ReturnType<typeof setTimeout> =>
      setTimeout(() => open.abort("timeout"), Math.max(0, left));
    let timer = arm();
    const open: OpenFold = {
      record,
      children: new Set(),
      abort: (reason) => {
        if (record.status !== "running" || record.forcedReason !== undefined) return;
        record.forcedReason = reason;
        controller.abort(reason);
        for (const childId of open.children) this.#open.get(childId)?.abort(reason);
      },
      pauseTimeout: () => {
        if (paused++ > 0) return;
        clearTimeout(timer);
        left -= Date.now() - armedAt;
      },
      resumeTimeout: () => {
        if (--paused > 0) return;
        // a fold that ended meanwhile is not timed again
        if (record.status !== "running" || record.forcedReason !== undefined) return;
        armedAt = Date.now();
        timer = arm();
      },
    };
    this.#folds.set(record.id, record);
    this.#open.set(record.id, open);
    parent?.children.add(record.id);
    const onParentAbort = (): void => open.abort("cancelled");
    if (signal.aborted) onParentAbort();
    else signal.addEventListener("abort", onParentAbort, { once: true });
    try {
      const memories = await this.#selectMemories(params.description, budget);
      record.injectedMemoryIds = memories.map((m) => m.id);
      const first = userMessage(foldPrompt(params.description, params.prompt, memories));
      const context = {
        systemPrompt: this.#host.systemPrompt,
        messages: [] as AgentMessage[],
        tools: [
          ...this.#host.tools.filter((t) => t.name !== "branch" && t.name !== "return"),
          this.#branchTool(open),
          this.#returnTool(open),
        ],
        agentId: this.#host.agentId ?? "arbor",
        sessionId: this.#host.sessionId,
        ...(this.#host.newLoopId ? { loopId: this.#host.newLoopId(record) } : {}),
        // its span nests under the `branch` call's execute_tool span (the active context)
        trace: { kind: "fold" as const, agentName: "fold" },
      };
      const config = this.#foldConfig(open, controller.signal, context);
      let loopId: string | undefined;
      const sink = {
        push: (event: AgentEvent): void | PromiseLike<void> => {
          if (event.type === "agentStart") loopId = event.loopId;
          if (event.type === "agentStart" && record.loopId === undefined) {
            record.loopId = event.loopId;
            this.#emit({
              name: "fold_started",
              payload: {
                context_id: this.#host.sessionId,
                fold_id: record.id,
                parent_fold_id: record.parentId ?? null,
                depth,
                description: record.description,
                budget,
                timeout_seconds: timeoutSeconds,
                injected_memory_ids: record.injectedMemoryIds,
                loop_id: event.loopId,
                ...(record.toolCallId !== undefined ? { tool_call_id: record.toolCallId } : {}),
              },
            });
          }
          this.#meter(open, event);
          return this.#host.onLoopEvent?.(event);
        },
      };
      const messages = await runAgentLoop([first], context, config, sink, controller.signal);
      if (loopId !== undefined) this.#host.onLoopReturned?.(loopId, messages);
      record.steps = messages;
      return await this.#finish(open, signal);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onParentAbort);
      controller.dispose();
      this.#open.delete(record.id);
      parent?.children.delete(record.id);
      // a fold that ended without a result (a throw above) is forced
      if (record.status === "running") {
        record.status = "forced";
        record.forcedReason ??= "crash";
        record.endedAt = now();
        this.#ledger.close(record.id, record.forcedReason);
      }
    }
  }

  #foldConfig(open: OpenFold, signal: AbortSignal, setup: ChildLoopSetup): AgentLoopConfig {
    const base = this.#host.loopConfig;
    const approve = this.#host.approve;
    const own = this.#host.context?.(setup);
    const view = own !== undefined ? own.transformContext : base.transformContext;
    return {
      ...base,
      ...(approve !== undefined
        ? {
            approveToolCalls: async (calls: readonly ToolCallContent[]) => {
              open.pauseTimeout();
              try {
                return await approve(calls, open.record, signal);
              } finally {
                open.resumeTimeout();
              }
            },
          }
        : {}),
      // the fold's own budget replaces the runtime's optimization; the host's context handling
      // (a session's optimization) keeps what the fold's model sees within its window
      contextConfig: null,
      ...(own?.recoverContextOverflow !== undefined
        ? { recoverContextOverflow: own.recoverContextOverflow }
        : {}),
      hooks: {
        ...base.hooks,
        // the parent's Stop hook is the parent's: a fold ends when it returns
        beforeStop: undefined,
        beforeTurn: async (messages, turn) => {
          if (open.returned !== undefined || open.record.forcedReason !== undefined) return false;
          return (await base.hooks?.beforeTurn?.(messages, turn)) ?? true;
        },
      },
      transformContext: async (messages, signal) => {
        const seen = view ? await view(messages, signal) : messages;
        if (open.pendingWarning === undefined) return seen;
        // injected into every following request of the fold, from the 80% mark on
        return [...seen, userMessage(open.pendingWarning)];
      },
    };
  }

  /** Counts a model request's reported usage and tool output entering the fold. */
  #meter(open: OpenFold, event: AgentEvent): void {
    const record = open.record;
    let tokens = 0;
    if (event.type === "messageEnd" && event.message.role === "assistant") {
      const message = event.message as AssistantMessage;
      const reported = message.usage.input + message.usage.output;
      tokens = reported > 0 ? reported : this.#count(messageText(message));
      record.steps.push(message);
    } else if (event.type === "toolExecutionEnd" && event.toolName !== "return") {
      tokens = this.#count(resultText(event.result));
    } else if (event.type === "messageEnd") {
      record.steps.push(event.message);
      return;
    } else {
      return;
    }
    const outcome = this.#ledger.meter(record.id, tokens);
    record.used = outcome.used;
    if (outcome.warningCrossed) {
      record.warned = true;
      this.#emit({
        name: "fold_budget_warning",
        payload: {
          context_id: this.#host.sessionId,
          fold_id: record.id,
          tokens_used: outcome.used,
          budget: outcome.budget,
          tokens_left: outcome.left,
        },
      });
    }
    if (outcome.state !== "within") open.pendingWarning = budgetWarningText(outcome.left);
    if (outcome.state === "exhausted" && open.returned === undefined) open.abort("budget");
  }

  async #finish(open: OpenFold, parentSignal: AbortSignal): Promise<ToolResult<FoldResultDetails>> {
    const record = open.record;
    const now = this.#host.now ?? Date.now;
    let message: string;
    let forced: FoldForcedReason | undefined;
    if (open.returned !== undefined) {
      message = open.returned.message;
    } else {
      forced = record.forcedReason ?? "budget";
      record.forcedReason = forced;
      const partial = await this.#partialSummary(record, parentSignal);
      message = `${forcedReturnHeader(forced, record.used, record.budget)} Partial result:\n${partial}`;
    }
    const scrubbed = await this.#host.scrub(message);
    record.result = scrubbed;
    record.status = forced ? "forced" : "returned";
    record.endedAt = now();
    this.#ledger.close(record.id, forced);
    if (open.returned?.remember && this.#host.memories) {
      try {
        await this.#host.memories.remember(record.description, scrubbed);
      } catch {
        // a memory that cannot be kept does not fail the fold
      }
    }
    this.#emit({
      name: "fold_returned",
      payload: {
        context_id: this.#host.sessionId,
        fold_id: record.id,
        forced: forced !== undefined,
        reason: forced ?? null,
        tokens_used: record.used,
        budget: record.budget,
        message: scrubbed,
      },
    });
    return {
      content: [{ type: "text", text: scrubbed }],
      details: {
        fold_id: record.id,
        forced: forced !== undefined,
        reason: forced ?? null,
        tokens_used: record.used,
        budget: record.budget,
        injected_memory_ids: record.injectedMemoryIds,
      },
      ...(record.loopId !== undefined ? { childLoopId: record.loopId } : {}),
    };
  }

  async #partialSummary(record: FoldRecord, parentSignal: AbortSignal): Promise<string> {
    const summarize = this.#host.summarize;
    if (summarize && !parentSignal.aborted) {
      try {
        const text = await summarize(record.steps, parentSignal);
        if (text.trim() !== "") return text;
      } catch {
        // extractive below
      }
    }
    return foldExtractiveSummary(record.steps, this.#count.bind(this));
  }

  async #selectMemories(description: string, budget: number): Promise<FoldMemory[]> {
    const store = this.#host.memories;
    if (!store) return [];
    return await store.recall(description, Math.floor(FOLD_MEMORY_SHARE * budget));
  }

  #emit(event: FoldEvent): void {
    this.#host.onFoldEvent?.(event);
  }
}

/** The fold's first message: what it is for, the injected memories, its prompt. */
export function foldPrompt(description: string, prompt: string, memories: FoldMemory[]): string {
  const parts = [
    `You are working in a fold: a sub-task with its own context and token budget. Purpose: ${description}. ` +
      "When done, call `return` with a short message of what you found.",
  ];
  if (memories.length > 0)
    parts.push(`Lessons from earlier folds:\n${memories.map((m) => `- ${m.text}`).join("\n")}`);
  parts.push(prompt);
  return parts.join("\n\n");
}

function resultText(result: ToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** The extractive fallback: the fold's last steps' text, newest last, within ~400 tokens. */
export function foldExtractiveSummary(
  steps: AgentMessage[],
  count: (text: string) => number,
  limit = 400,
): string {
  const picked: string[] = [];
  let used = 0;
  for (let i = steps.length - 1; i >= 1 && used < limit; i--) {
    const step = steps[i];
    if (step === undefined) continue;
    let text = messageText(step).trim();
    if (step.role === "toolResult") text = `(${step.toolName}) ${text}`;
    if (text === "") continue;
    const cost = count(text);
    if (used + cost > limit) text = `${text.slice(0, Math.max(0, (limit - used) * 4))}…`;
    picked.unshift(text);
    used += Math.min(cost, limit - used);
  }
  return picked.length > 0 ? picked.join("\n") : "(the fold produced nothing before it ended)";
}
