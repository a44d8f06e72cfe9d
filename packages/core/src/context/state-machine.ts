import type { AgentMode } from "../model/session-config.js";
import type { ContextState, ContextStateType } from "../model/states.js";

// The session's state machine (context-manager spec "Fine-Grained State Machine", plan-act
// "State transitions respect mode"). The state object is all there is: no flag beside it says
// "streaming" or "waiting". Every move goes through `transition`, which checks the table below,
// the state's own invariants and the current agent mode; a rejected move is returned as a value and
// never applied.

/**
 * Allowed next states, per state. Read it with the flow of one message in mind:
 *
 * Idle → ProcessingUserMessage → (ResolvingFileReferences →) EnhancingSystemPrompt →
 * OptimizingContext → PreparingLLMRequest → ConnectingToLLM → AwaitingLLMFirstChunk →
 * StreamingLLMResponse (→ itself with new counts) → ProcessingLLMResponse → then either Idle
 * (plain answer), ParsingPlan (plan mode), AwaitingUserAnswer (ask_question), or ParsingToolCalls
 * → AwaitingToolApproval | ExecutingTool (→ itself for the next call or attempt) →
 * CollectingToolResults → ProcessingToolResults → ToolAutoLoop → (OptimizingContext →)
 * PreparingLLMRequest → … again.
 *
 * Beside it: the user interrupts most active states (Interrupting → Paused{interrupted}, or Idle
 * when nothing is left to resume); the auto-loop limit pauses (Paused{auto_loop_limit}); resume
 * leaves Paused for wherever the loop stood. While a pipeline runs, a failing processor rolls back
 * to Idle (the state before processing). SwitchingBranch, Merging and a manual OptimizingContext
 * start from Idle and return to it. Failed is reachable from every state except Idle and Failed;
 * from Failed the user retries (ProcessingUserMessage), dismisses (Idle), or resumes a recoverable
 * failure where the loop stood.
 */
export const STATE_TRANSITIONS: Readonly<Record<ContextStateType, readonly ContextStateType[]>> = {
  Idle: ["ProcessingUserMessage", "OptimizingContext", "SwitchingBranch", "Merging"],
  // → ParsingToolCalls (ResearchingPlan in plan mode): a workflow payload is the user's own tool
  // call (workflows.ts)
  ProcessingUserMessage: [
    "ResolvingFileReferences",
    "EnhancingSystemPrompt",
    "ParsingToolCalls",
    "ResearchingPlan",
    "Idle",
    "Failed",
  ],
  // → itself: the count of references still to resolve goes down
  ResolvingFileReferences: ["ResolvingFileReferences", "EnhancingSystemPrompt", "Idle", "Failed"],
  EnhancingSystemPrompt: ["OptimizingContext", "Idle", "Failed"],
  // → Idle: a manual optimize finished, or a pipeline rolled back
  OptimizingContext: ["PreparingLLMRequest", "Idle", "Interrupting", "Failed"],
  PreparingLLMRequest: ["ConnectingToLLM", "Interrupting", "Failed"],
  // → OptimizingContext: the provider refused the request as too long; the session optimizes
  // the branch and sends it once more (run-overflow.ts)
  ConnectingToLLM: ["AwaitingLLMFirstChunk", "OptimizingContext", "Interrupting", "Failed"],
  // → ProcessingLLMResponse: the stream ended without any content chunk
  AwaitingLLMFirstChunk: [
    "StreamingLLMResponse",
    "OptimizingContext",
    "ProcessingLLMResponse",
    "Interrupting",
    "Failed",
  ],
  StreamingLLMResponse: ["StreamingLLMResponse", "ProcessingLLMResponse", "Interrupting", "Failed"],
  // plan mode goes from here to ResearchingPlan (read-only calls), ParsingPlan (present_plan),
  // AwaitingUserAnswer or AwaitingToolApproval (a read-only call held for a person), never
  // through ParsingToolCalls
  ProcessingLLMResponse: [
    "Idle",
    "ParsingToolCalls",
    "ResearchingPlan",
    "AwaitingToolApproval",
    "ParsingPlan",
    "AwaitingUserAnswer",
    "Interrupting",
    "Failed",
  ],
  // → ProcessingToolResults: the policy denied every call; → ParsingPlan / AwaitingUserAnswer:
  // the calls were present_plan / ask_question, which become messages rather than executions
  ParsingToolCalls: [
    "AwaitingToolApproval",
    "ExecutingTool",
    "ProcessingToolResults",
    "ParsingPlan",
    "AwaitingUserAnswer",
    "Interrupting",
    "Failed",
  ],
  // → itself: some of the pending calls were decided; → ProcessingToolResults: all denied;
  // → Idle: the user cancelled the request
  AwaitingToolApproval: [
    "AwaitingToolApproval",
    "ExecutingTool",
    "ResearchingPlan",
    "ProcessingToolResults",
    "Idle",
    "Failed",
  ],
  // → itself: the next call of the round, or another attempt; → AwaitingToolApproval: the
  // auto-approved calls ran first and the rest of the round needs the user
  ExecutingTool: [
    "ExecutingTool",
    "AwaitingToolApproval",
    "CollectingToolResults",
    "Interrupting",
    "Failed",
  ],
  // → AwaitingUserAnswer: the round also held an ask_question call
  CollectingToolResults: ["ProcessingToolResults", "AwaitingUserAnswer", "Interrupting", "Failed"],
  ProcessingToolResults: ["ToolAutoLoop", "Paused", "Interrupting", "Failed"],
  // → Paused: the depth limit was reached (Paused{auto_loop_limit})
  ToolAutoLoop: ["OptimizingContext", "PreparingLLMRequest", "Paused", "Interrupting", "Failed"],
  // plan mode's tool round: → itself as the round's calls finish; → AwaitingToolApproval: the
  // calls before a held one ran; → ParsingPlan / AwaitingUserAnswer: the round also held
  // present_plan / ask_question; → the next model request
  ResearchingPlan: [
    "ResearchingPlan",
    "AwaitingToolApproval",
    "ParsingPlan",
    "AwaitingUserAnswer",
    "OptimizingContext",
    "PreparingLLMRequest",
    "Paused",
    "Interrupting",
    "Failed",
  ],
  ParsingPlan: ["Idle", "AwaitingUserAnswer", "Failed"],
  // the answer arrives as a user message; → Idle: the user dismissed the question
  AwaitingUserAnswer: ["ProcessingUserMessage", "Idle", "Failed"],
  // a running tool is cancelled at once; → Idle: there is nothing to resume (e.g. cut-off stream)
  Interrupting: ["Paused", "Idle", "Failed"],
  // resume: back to where the loop stood, or on by hand with a new user message
  Paused: [
    "ProcessingUserMessage",
    "ToolAutoLoop",
    "OptimizingContext",
    "PreparingLLMRequest",
    "AwaitingToolApproval",
    "ExecutingTool",
    "ResearchingPlan",
    "Idle",
    "Failed",
  ],
  SwitchingBranch: ["Idle", "Failed"],
  Merging: ["Idle", "Failed"],
  // → PreparingLLMRequest: resume of a recoverable failure (a crash, a failed model call); every
  // call then has its result (recovery.ts), so the loop goes on with a model request
  Failed: ["Idle", "ProcessingUserMessage", "PreparingLLMRequest"],
};

/**
 * The tool execution states (context-manager "Tool execution state granularity", the auto-loop):
 * plan mode never enters them (plan-act "State transitions respect mode"); its read-only calls
 * run in ResearchingPlan. AwaitingToolApproval stays open to plan mode for its read-only calls:
 * a person's approval is never skipped, and the mode rule below admits only plan-mode tools.
 */
export const TOOL_EXECUTION_STATES: ReadonlySet<ContextStateType> = new Set([
  "ParsingToolCalls",
  "ExecutingTool",
  "CollectingToolResults",
  "ProcessingToolResults",
  "ToolAutoLoop",
]);

/** Why a transition was refused. */
export type TransitionError =
  | { kind: "not_allowed"; from: ContextStateType; to: ContextStateType; message: string }
  | { kind: "forbidden_in_mode"; mode: AgentMode; to: ContextStateType; message: string }
  | { kind: "invalid_state"; to: ContextStateType; message: string };

export type TransitionResult =
  | { ok: true; previous: ContextState }
  | { ok: false; error: TransitionError };

export interface TransitionRecord {
  from: ContextState;
  to: ContextState;
  /** ms since the epoch, from the machine's clock */
  at: number;
  /** "reset" marks a recovery jump that bypassed the table */
  kind: "transition" | "reset";
}

export type TransitionListener = (record: TransitionRecord) => void;

export interface StateMachineOptions {
  /** read on every check, so a mode switch takes effect at the very next transition */
  mode: () => AgentMode;
  /**
   * Whether a tool may run in plan mode. Plan mode refuses ExecutingTool and AwaitingToolApproval
   * for any other tool. Unknown names must answer false. See `planModeToolPredicate` in
   * plan-act.ts, which admits read-category tools plus present_plan and ask_question.
   */
  isPlanModeTool: (toolName: string) => boolean;
  initial?: ContextState;
  /** history keeps the most recent this many records (1000) */
  historyLimit?: number;
  now?: () => number;
  /**
   * A listener that throws does not undo the transition or stop the other listeners; its error
   * goes here (default: console.error).
   */
  onListenerError?: (error: unknown, record: TransitionRecord) => void;
}

const DEFAULT_HISTORY_LIMIT = 1000;

/**
 * A state's own invariants (1-based tool index within its round, non-negative counts, a
 * non-empty approval request). Returns what is wrong, or undefined.
 */
export function stateInvariantViolation(state: ContextState): string | undefined {
  switch (state.type) {
    case "StreamingLLMResponse":
      return state.chunks < 0 || state.chars < 0 ? "chunks and chars must be >= 0" : undefined;
    case "ExecutingTool":
      if (state.attempt < 1) return "attempt must be >= 1";
      if (state.total < 1 || state.index < 1 || state.index > state.total)
        return `index ${state.index} must lie within 1..total (${state.total})`;
      return undefined;
    case "AwaitingToolApproval":
      return state.pending_requests.length === 0
        ? "an approval needs at least one pending request"
        : undefined;
    case "ToolAutoLoop":
      return state.depth < 1 || state.tools_executed < 0
        ? "depth must be >= 1 and tools_executed >= 0"
        : undefined;
    case "ResearchingPlan":
      return state.tools_executed < 0 ? "tools_executed must be >= 0" : undefined;
    case "ResolvingFileReferences":
      return state.count < 0 ? "count must be >= 0" : undefined;
    case "Idle":
    case "ProcessingUserMessage":
    case "EnhancingSystemPrompt":
    case "OptimizingContext":
    case "PreparingLLMRequest":
    case "ConnectingToLLM":
    case "AwaitingLLMFirstChunk":
    case "ProcessingLLMResponse":
    case "ParsingToolCalls":
    case "CollectingToolResults":
    case "ProcessingToolResults":
    case "ParsingPlan":
    case "AwaitingUserAnswer":
    case "Interrupting":
    case "Paused":
    case "SwitchingBranch":
    case "Merging":
    case "Failed":
      return undefined;
    default:
      return state satisfies never;
  }
}

export class StateMachine {
  private state: ContextState;
  private readonly records: TransitionRecord[] = [];
  private readonly listeners = new Set<TransitionListener>();
  private readonly historyLimit: number;
  private readonly now: () => number;
  private readonly options: StateMachineOptions;

  constructor(options: StateMachineOptions) {
    this.options = options;
    this.state = options.initial ?? { type: "Idle" };
    this.historyLimit = Math.max(1, options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
    this.now = options.now ?? Date.now;
  }

  get current(): ContextState {
    return this.state;
  }

  /** The most recent transitions, oldest first (a copy; at most `historyLimit`). */
  get history(): readonly TransitionRecord[] {
    const start = Math.max(0, this.records.length - this.historyLimit);
    return this.records.slice(start);
  }

  /** Subscribes to applied transitions (and resets); returns the unsubscribe function. */
  onTransition(listener: TransitionListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Whether `next` would be accepted now. With only a type, the table and the mode rule for
   * ParsingPlan are checked; with a full state also its invariants and plan mode's tool rule.
   */
  canTransition(next: ContextStateType | ContextState): boolean {
    return this.check(next) === undefined;
  }

  /** Applies `next` if allowed, then notifies listeners. A refused move changes nothing. */
  transition(next: ContextState): TransitionResult {
    const error = this.check(next);
    if (error) return { ok: false, error };
    const previous = this.state;
    this.apply(previous, next, "transition");
    return { ok: true, previous };
  }

  /**
   * Recovery only: jumps to `to` without consulting the table (crash recovery moving a reloaded
   * session to Idle or Failed, or a rollback after a failed operation the table cannot express).
   * The jump is recorded in history with kind "reset" and listeners are notified. Normal flow
   * must use `transition`.
   */
  reset(to: ContextState): ContextState {
    const previous = this.state;
    this.apply(previous, to, "reset");
    return previous;
  }

  private check(next: ContextStateType | ContextState): TransitionError | undefined {
    const from = this.state.type;
    const to = typeof next === "string" ? next : next.type;
    if (!STATE_TRANSITIONS[from].includes(to)) {
      return { kind: "not_allowed", from, to, message: `${from} cannot move to ${to}` };
    }
    if (typeof next !== "string") {
      const violation = stateInvariantViolation(next);
      if (violation) return { kind: "invalid_state", to, message: `${to}: ${violation}` };
    }
    return this.modeError(next);
  }

  private modeError(next: ContextStateType | ContextState): TransitionError | undefined {
    const mode = this.options.mode();
    const to = typeof next === "string" ? next : next.type;
    if (to === "ParsingPlan" && mode !== "plan") {
      return {
        kind: "forbidden_in_mode",
        mode,
        to,
        message: "ParsingPlan is only valid in plan mode",
      };
    }
    if (to === "ResearchingPlan" && mode !== "plan") {
      return {
        kind: "forbidden_in_mode",
        mode,
        to,
        message: "ResearchingPlan is only valid in plan mode",
      };
    }
    if (mode === "plan" && TOOL_EXECUTION_STATES.has(to)) {
      return {
        kind: "forbidden_in_mode",
        mode,
        to,
        message: `plan mode never enters ${to}: its read-only calls run in ResearchingPlan`,
      };
    }
    if (mode !== "plan" || typeof next === "string") return undefined;
    const names =
      next.type === "ExecutingTool"
        ? [next.tool_name]
        : next.type === "AwaitingToolApproval"
          ? next.tool_names
          : [];
    const refused = names.filter((name) => !this.options.isPlanModeTool(name));
    if (refused.length === 0) return undefined;
    return {
      kind: "forbidden_in_mode",
      mode,
      to,
      message: `plan mode does not run ${refused.join(", ")}: only read-only tools may run while planning`,
    };
  }

  private apply(from: ContextState, to: ContextState, kind: TransitionRecord["kind"]): void {
    this.state = to;
    const record: TransitionRecord = { from, to, at: this.now(), kind };
    this.records.push(record);
    // trim in batches so that pushing stays amortised O(1)
    if (this.records.length >= this.historyLimit * 2) {
      this.records.splice(0, this.records.length - this.historyLimit);
    }
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch (error) {
        (this.options.onListenerError ?? defaultListenerError)(error, record);
      }
    }
  }
}

function defaultListenerError(error: unknown, record: TransitionRecord): void {
  console.error(`state listener failed on ${record.from.type} → ${record.to.type}`, error);
}
