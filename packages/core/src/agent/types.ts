import type { ProviderError, StreamProvider } from "../llm/provider.js";
import type { CacheConfig, ModelConfig, ThinkingLevel } from "../model/llm-config.js";
import type {
  AgentMessage,
  AssistantMessage,
  Message,
  ToolCallContent,
  ToolResultMessage,
  Usage,
} from "../model/llm-messages.js";
import type { ContinuationKind } from "../model/loop-records.js";
import type { PersonRef } from "../model/person.js";
import type { LoopTraceOptions } from "../telemetry/spans.js";
import type { AnyAgentTool, ToolResult } from "../tools/tool.js";

// Agent-level types: events, configuration with the spec's defaults, hooks (REQ-007–017, 029,
// 180–195). Defaults live in the DEFAULT_* constants next to each type.

/** REQ-008 */
export type StreamDelta =
  | { type: "text"; delta: string }
  | { type: "thinking"; delta: string }
  | { type: "toolCall"; toolCallId: string; toolName: string; delta: string };

/** REQ-180; defined with the loop records it is stored in. */
export type { ContinuationKind };

/** REQ-181 */
export type TurnTrigger = "user" | "subAgent" | "continuation" | "branch";

/**
 * REQ-007 / REQ-192 / REQ-210: every event carries the loop it belongs to.
 * `retry` and `compaction` are Arbor's observability additions (4.5).
 */
export type AgentEvent =
  | {
      type: "agentStart";
      loopId: string;
      agentId: string;
      sessionId: string;
      parentLoopId?: string;
      continuationKind?: ContinuationKind;
      /** the person who started the run (AgentContext.startedBy) */
      startedBy?: PersonRef;
      /** W3C traceparent of the loop's invoke_agent span, when traces are recorded (telemetry/) */
      traceparent?: string;
      timestamp: number;
    }
  | {
      type: "agentEnd";
      loopId: string;
      messages: AgentMessage[];
      usage: Usage;
      timestamp: number;
      /** ids of tool calls the approval gate deferred; the run ended waiting for decisions */
      pendingToolCalls?: string[];
    }
  | { type: "turnStart"; loopId: string; turn: number; triggeredBy: TurnTrigger }
  | {
      type: "turnEnd";
      loopId: string;
      turn: number;
      message: AssistantMessage;
      toolResults: ToolResultMessage[];
    }
  | { type: "messageStart"; loopId: string; message: AgentMessage }
  | { type: "messageUpdate"; loopId: string; message: AssistantMessage; delta: StreamDelta }
  | { type: "messageEnd"; loopId: string; message: AgentMessage }
  | {
      type: "toolExecutionStart";
      loopId: string;
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
    }
  | {
      type: "toolExecutionUpdate";
      loopId: string;
      toolCallId: string;
      toolName: string;
      partialResult: ToolResult;
    }
  | {
      type: "toolExecutionEnd";
      loopId: string;
      toolCallId: string;
      toolName: string;
      result: ToolResult;
      isError: boolean;
      childLoopId?: string;
    }
  | { type: "progressMessage"; loopId: string; toolCallId: string; toolName: string; text: string }
  | { type: "inputRejected"; loopId: string; reason: string }
  | {
      type: "retry";
      loopId: string;
      attempt: number;
      maxRetries: number;
      delayMs: number;
      error: ProviderError;
    }
  | {
      type: "compaction";
      loopId: string;
      tokensBefore: number;
      tokensAfter: number;
      messagesBefore: number;
      messagesAfter: number;
      /** which tiers ran: 1 truncate tool outputs, 2 summarize old turns, 3 drop middle; "custom" for a strategy */
      tiers: Array<1 | 2 | 3 | "custom">;
      reason: "budget" | "overflow";
    }
  /**
   * REQ-198: agentLoopParallel's group. `loopId` is the group's own id
   * (`{sessionId}.parallel.{n}`), not one of its branches'.
   */
  | {
      type: "parallelLoopStart";
      loopId: string;
      sessionId: string;
      /** the branches' loop ids, in config order */
      loopIds: string[];
      timestamp: number;
    }
  | {
      type: "parallelLoopEnd";
      loopId: string;
      sessionId: string;
      selectedLoopId: string;
      selectedConfigIndex: number;
      /** what the evaluation itself spent (the judge's calls); zero for the other strategies */
      evaluationUsage: Usage;
      /** the model that spent `evaluationUsage` (the judge's), which prices it */
      evaluationModel?: string;
      /** why that branch (the strategy's or the judge's words) */
      reason: string;
      timestamp: number;
    };

export type AgentEventType = AgentEvent["type"];

/** REQ-017 */
export type QueueMode = "oneAtATime" | "all";

/**
 * How the calls of one assistant message run (tool-execution.ts `executionGroups`); their results
 * always go back in call order. parallelReadOnly: consecutive read-only calls (category "read")
 * run together, every other call alone.
 */
export type ToolExecutionStrategy =
  | { type: "parallel" }
  | { type: "sequential" }
  | { type: "batched"; size: number }
  | { type: "parallelReadOnly" };

/** REQ-162: pluggable token counting. The default counts with gpt-tokenizer. */
export interface TokenCounter {
  countText(text: string): number;
}

/** REQ-011 */
export interface ContextConfig {
  maxContextTokens: number;
  systemPromptTokens: number;
  keepRecent: number;
  keepFirst: number;
  toolOutputMaxLines: number;
}
export const DEFAULT_CONTEXT_CONFIG: Readonly<ContextConfig> = Object.freeze({
  maxContextTokens: 100_000,
  systemPromptTokens: 4_000,
  keepRecent: 10,
  keepFirst: 2,
  toolOutputMaxLines: 50,
});

/** REQ-012 */
export interface ExecutionLimits {
  maxTurns: number;
  maxTotalTokens: number;
  maxDurationMs: number;
}
export const DEFAULT_EXECUTION_LIMITS: Readonly<ExecutionLimits> = Object.freeze({
  maxTurns: 50,
  maxTotalTokens: 1_000_000,
  maxDurationMs: 600_000,
});

/** REQ-013 */
export interface RetryConfig {
  maxRetries: number;
  initialDelayMs: number;
  backoffMultiplier: number;
  maxDelayMs: number;
}
export const DEFAULT_RETRY_CONFIG: Readonly<RetryConfig> = Object.freeze({
  maxRetries: 3,
  initialDelayMs: 1_000,
  backoffMultiplier: 2,
  maxDelayMs: 30_000,
});

/** REQ-022 */
export type FilterResult =
  | { action: "pass" }
  | { action: "warn"; message: string }
  | { action: "reject"; reason: string };

export interface InputFilter {
  readonly name: string;
  filter(text: string): FilterResult;
}

/** REQ-023: replaces the built-in tiered cascade when set (REQ-146). */
export interface CompactionStrategy {
  readonly name: string;
  compact(
    messages: AgentMessage[],
    config: ContextConfig,
    signal: AbortSignal,
  ): AgentMessage[] | Promise<AgentMessage[]>;
}

/** Structured logging (4.5). Fields are plain JSON values; secrets must never be passed in. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Awaitable<T> = T | Promise<T>;

/**
 * REQ-029 / REQ-182–185: lifecycle hooks, firing in exactly this order:
 * beforeLoop → agentStart … beforeTurn → turnStart … beforeToolExecution → toolExecutionStart …
 * (beforeToolExecutionUpdate → toolExecutionUpdate → afterToolExecutionUpdate)* …
 * toolExecutionEnd → afterToolExecution … turnEnd → afterTurn … agentEnd → afterLoop.
 * A hook that throws is logged and treated as "proceed" (true); it never breaks the loop.
 */
export interface AgentHooks {
  /** return false: no agentStart; the loop emits agentEnd with no messages and returns */
  beforeLoop?: (context: AgentContext) => Awaitable<boolean>;
  afterLoop?: (newMessages: AgentMessage[], usage: Usage) => Awaitable<void>;
  /** return false: the run stops at once, without agentEnd (REQ-091) */
  beforeTurn?: (messages: AgentMessage[], turn: number) => Awaitable<boolean>;
  afterTurn?: (messages: AgentMessage[], usage: Usage) => Awaitable<void>;
  onError?: (message: string) => Awaitable<void>;
  /**
   * When the agent would end its answer (no tool calls, no follow-ups, not cancelled): messages
   * returned go on as the next turn's input (a Stop hook's instruction); none: the loop ends
   */
  beforeStop?: () => Awaitable<AgentMessage[]>;
  /**
   * return false: the tool is skipped with an error result; others in the batch are unaffected;
   * `{ block }`: the same, with `block` as the error result's text (a command hook's reason)
   */
  beforeToolExecution?: (call: {
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
  }) => Awaitable<boolean | { block: string }>;
  /**
   * After a tool succeeded, before its result is final: text returned is added to the result
   * the model gets (a PostToolUse hook's feedback). Not called for failed or skipped calls.
   */
  toolResultFeedback?: (
    call: { toolCallId: string; toolName: string; args: Record<string, unknown> },
    result: ToolResult,
  ) => Awaitable<string | undefined>;
  afterToolExecution?: (result: ToolResultMessage) => Awaitable<void>;
  /** return false: suppress this update event (the tool keeps running) */
  beforeToolExecutionUpdate?: (update: {
    toolCallId: string;
    toolName: string;
    partialResult: ToolResult;
  }) => boolean;
  afterToolExecutionUpdate?: (update: {
    toolCallId: string;
    toolName: string;
    partialResult: ToolResult;
  }) => void;
}

/**
 * The approval gate's answer for one tool call: run it, deny it (the model gets an error result
 * carrying `reason`), or defer it (the run ends and waits for a decision).
 */
export type ToolCallVerdict =
  | ({ toolCallId: string; verdict: "run" } & VerdictSource)
  | ({ toolCallId: string; verdict: "deny"; reason: string } & VerdictSource)
  | { toolCallId: string; verdict: "defer" };

/** Who made a run or deny verdict, for the call's span (telemetry/): a person, or a rule. */
export interface VerdictSource {
  /** the person who approved or denied the call; absent when a policy or rule decided */
  decidedBy?: PersonRef;
  /** the policy or rule that decided (the stored approval_note) */
  rule?: string;
}

/**
 * The approval gate: called once per assistant message with tool calls, before any of them runs.
 * A call without a verdict runs. If any call is deferred, only the calls before the first deferred
 * one run (so read-only work need not wait for a person, and no call runs before one it may
 * depend on); the turn ends with their results, the assistant message and those results stay last
 * in the history, and agentEnd lists `pendingToolCalls`. Decisions can be made later, in another
 * process: `agentLoopContinue` on a history that ends with an assistant message whose tool calls
 * are not all answered (only tool results after it) asks the gate again about the unanswered
 * calls and runs them; every result reaches the model in call order.
 */
export type ApproveToolCalls = (
  calls: readonly ToolCallContent[],
  info: { turn: number; message: AssistantMessage },
) => ToolCallVerdict[] | Promise<ToolCallVerdict[]>;

/** REQ-028 / REQ-190 */
export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AnyAgentTool[];
  agentId?: string;
  sessionId?: string;
  loopId?: string;
  parentLoopId?: string;
  continuationKind?: ContinuationKind;
  /** the person who started this run; recorded on the loop record (startedBy) */
  startedBy?: PersonRef;
  /**
   * Where the loop's invoke_agent span goes (telemetry/spans.ts): its kind and name, a stored
   * trace context to continue, links. The loop sets `trace.traceparent` when its span starts.
   */
  trace?: LoopTraceOptions;
}

/**
 * How one loop keeps what its model sees within the model's context window: the runtime's
 * optimization (contextConfig), or the caller's own view (transformContext) with its own recovery
 * from a context overflow. A session builds this for its run and for every child loop it starts
 * (context/session/loop-context.ts); a sub-agent tool and the fold runtime ask for it per loop.
 */
export type LoopContextHandling = Pick<
  AgentLoopConfig,
  "contextConfig" | "transformContext" | "recoverContextOverflow"
>;

/** What a child loop's request carries besides its messages (they count toward the window too). */
export interface ChildLoopSetup {
  systemPrompt: string;
  tools: readonly AnyAgentTool[];
}

/** REQ-029: every behavioural setting of one loop run. */
export interface AgentLoopConfig {
  provider: StreamProvider;
  model: ModelConfig;
  thinkingLevel?: ThinkingLevel;
  maxTokens?: number;
  temperature?: number;
  /** REQ-187: middle segment of loop ids; derived from provider + model when absent */
  configId?: string;
  getSteeringMessages?: () => AgentMessage[];
  getFollowUpMessages?: () => AgentMessage[];
  /** null disables optimization (REQ-060) */
  contextConfig?: ContextConfig | null;
  /**
   * The caller's own recovery from a context overflow (REQ-077), used in place of the runtime's
   * optimization when the provider reports that a request does not fit the model's window: called
   * at most once per response. Resolve true when the context was made smaller: the request is
   * then rebuilt (transformContext) and sent once more; false (or a throw, logged) lets the
   * response fail with the provider's error. A second overflow fails the response.
   */
  recoverContextOverflow?: (signal: AbortSignal) => Awaitable<boolean>;
  compactionStrategy?: CompactionStrategy;
  tokenCounter?: TokenCounter;
  executionLimits?: ExecutionLimits | null;
  cacheConfig?: CacheConfig;
  toolExecution?: ToolExecutionStrategy;
  retryConfig?: RetryConfig;
  inputFilters?: InputFilter[];
  /** REQ-145: preprocess the agent history before each model call */
  transformContext?: (messages: AgentMessage[], signal: AbortSignal) => Awaitable<AgentMessage[]>;
  /** REQ-145 / REQ-044: turn history into model messages; default drops extension messages */
  convertToLlm?: (messages: AgentMessage[]) => Message[];
  hooks?: AgentHooks;
  /** the approval gate (see ApproveToolCalls); absent: every call runs */
  approveToolCalls?: ApproveToolCalls;
  /** REQ-193: trigger of the first turn of an origin call (default "user") */
  firstTurnTrigger?: TurnTrigger;
  logger?: Logger;
}
