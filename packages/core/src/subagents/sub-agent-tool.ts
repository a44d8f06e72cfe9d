import { z } from "zod";
import { runAgentLoop } from "../agent/loop.js";
import {
  type AgentContext,
  type AgentEvent,
  type AgentHooks,
  type AgentLoopConfig,
  type ApproveToolCalls,
  type ChildLoopSetup,
  DEFAULT_EXECUTION_LIMITS,
  type LoopContextHandling,
} from "../agent/types.js";
import type { StreamProvider } from "../llm/provider.js";
import { childAbortController } from "../model/cancellation.js";
import type { ModelConfig, ThinkingLevel } from "../model/llm-config.js";
import {
  type AgentMessage,
  type AssistantMessage,
  combineUsage,
  emptyUsage,
  messageText,
  type Usage,
  userMessage,
} from "../model/llm-messages.js";
import {
  type AgentTool,
  type AnyAgentTool,
  type ToolContext,
  ToolError,
  type ToolOrigin,
  type ToolResult,
} from "../tools/tool.js";

// The sub-agent tool (REQ-141, REQ-148–151, REQ-163, REQ-194–195): a tool whose call runs a
// child agent loop with its own system prompt, tools, model and turn limit, starting from the
// call's `task` alone (never the parent's conversation). It is the same mechanism the fold
// runtime uses for its child loops (fold-runtime.ts): `runAgentLoop` with a child of the call's
// abort signal, so the parent's cancellation reaches the child's model request and tools at
// once. While it runs, the child's text streams as the call's tool updates and its tool calls
// and progress as the call's progress messages (REQ-150); its final text is the result
// (REQ-149), its usage rides on the result (`ToolResult.usage`) so a session can add it to its
// own, and the result names the child loop (REQ-194).
//
// Error policy (REQ-163): a child that ends without text answers with a fallback text that says
// why (its model failed with <message>, or it produced no text); the call is not an error, so
// the child's usage and loop id are kept. A cancelled parent ends the call as cancelled.

export const DEFAULT_SUB_AGENT_MAX_TURNS = 10;
export const NO_TEXT_OUTPUT = "(sub-agent produced no text output)";

export const SubAgentParams = z.object({
  task: z
    .string()
    .describe(
      "The complete task for the sub-agent. It sees only this text, not the conversation: " +
        "include every detail it needs.",
    ),
});

/** How a sub-agent's run ended. */
export type SubAgentStatus = "completed" | "turn_limit" | "failed";

/** The `details` of a sub-agent call's updates (`kind`) and of its result (`kind: "ended"`). */
export type SubAgentDetails =
  | { type: "subagent"; kind: "started"; agent: string; loop_id: string }
  | { type: "subagent"; kind: "text"; agent: string; loop_id: string; delta: string }
  | {
      type: "subagent";
      kind: "ended";
      agent: string;
      loop_id: string;
      status: SubAgentStatus;
      turns: number;
      usage: Usage;
      /** the child's model id (prices its usage) */
      model: string;
    };

export function isSubAgentDetails(details: unknown): details is SubAgentDetails {
  return (
    typeof details === "object" &&
    details !== null &&
    (details as { type?: unknown }).type === "subagent"
  );
}

export interface SubAgentOptions {
  /** the tool's name, as the model calls it */
  name: string;
  description: string;
  label?: string;
  provider: StreamProvider;
  /** a function is asked at each call (a session's model may change); a throw fails the call */
  model: ModelConfig | (() => ModelConfig);
  systemPrompt?: string | (() => string);
  /** the child's tools; a function is asked at each call (the parent's tools may change) */
  tools?: readonly AnyAgentTool[] | (() => readonly AnyAgentTool[]);
  /** REQ-148: the child's turn limit (default 10) */
  maxTurns?: number;
  thinkingLevel?: ThinkingLevel | (() => ThinkingLevel | undefined);
  /**
   * The parent's loop config the child inherits from (retry, limits other than turns, logger,
   * token counting). Provider, model, thinking, turns and the approval gate are the sub-agent's
   * own; steering, follow-ups, input filters and hooks are never inherited (REQ-148).
   */
  base?: Partial<AgentLoopConfig> | (() => Partial<AgentLoopConfig>);
  /**
   * How the child keeps its context within the model's window, asked at each call with the
   * child's system prompt and tools (a session: its own optimization and overflow recovery,
   * context/session/loop-context.ts); it replaces `base`'s contextConfig. Absent: `base`'s.
   */
  context?: (setup: ChildLoopSetup) => LoopContextHandling;
  /**
   * the child's own hooks, asked at each call (a session's command hooks: PreToolUse and
   * PostToolUse on the child's calls, SubagentStop); never the parent's
   */
  hooks?: () => AgentHooks;
  /**
   * the approval gate for the child's tool calls; absent: every call runs. During a call it is
   * also told which call runs the child (`parent`), so a gate may wait for a person
   */
  approveToolCalls?: SubAgentGate;
  /** REQ-195: the parent loop; default the loop running the call (ToolContext.loopId) */
  parentLoopId?: string;
  agentId?: string;
  sessionId?: string;
  /** names the child loop (a session numbers them from its store); default: the loop's own */
  loopId?: (config: AgentLoopConfig) => string | Promise<string>;
  /** every event of the child loop (storage, the recorder's loop tree); awaited */
  onLoopEvent?: (event: AgentEvent) => void | PromiseLike<void>;
  category?: AgentTool["category"];
  origin?: ToolOrigin;
}

/** The sub-agent call a child's gate is asked in: the parent's call, the child loop, its signal. */
export interface SubAgentCallContext {
  /** the parent's sub-agent call */
  toolCallId: string;
  /** the child loop */
  loopId: string;
  /** aborted when the call is cancelled (the parent interrupted) */
  signal: AbortSignal;
}

/** A child's approval gate; any ApproveToolCalls is one (it ignores `parent`). */
export type SubAgentGate = (
  calls: Parameters<ApproveToolCalls>[0],
  info: Parameters<ApproveToolCalls>[1] & { parent?: SubAgentCallContext },
) => ReturnType<ApproveToolCalls>;

/** REQ-151: a sub-agent tool, configured through its options or the builder methods. */
export class SubAgentTool implements AgentTool<typeof SubAgentParams, SubAgentDetails> {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly parameters = SubAgentParams;
  readonly category: AgentTool["category"];
  readonly origin?: ToolOrigin;
  #options: SubAgentOptions;

  constructor(options: SubAgentOptions) {
    this.#options = { ...options };
    this.name = options.name;
    this.label = options.label ?? `Sub-agent ${options.name}`;
    this.description = options.description;
    this.category = options.category ?? "other";
    if (options.origin !== undefined) this.origin = options.origin;
  }

  /** The options the tool runs with (a copy). */
  get options(): Readonly<SubAgentOptions> {
    return { ...this.#options };
  }

  withSystemPrompt(systemPrompt: string): this {
    this.#options.systemPrompt = systemPrompt;
    return this;
  }

  withTools(tools: readonly AnyAgentTool[] | (() => readonly AnyAgentTool[])): this {
    this.#options.tools = tools;
    return this;
  }

  withMaxTurns(maxTurns: number): this {
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      throw new RangeError(`maxTurns must be a positive integer, got ${maxTurns}`);
    }
    this.#options.maxTurns = maxTurns;
    return this;
  }

  withThinking(level: ThinkingLevel): this {
    this.#options.thinkingLevel = level;
    return this;
  }

  withParentLoopId(loopId: string): this {
    this.#options.parentLoopId = loopId;
    return this;
  }

  /** The child loop's config (exposed for tests and the bench's direct run). */
  childConfig(): AgentLoopConfig {
    const o = this.#options;
    const base = (typeof o.base === "function" ? o.base() : o.base) ?? {};
    const thinking = typeof o.thinkingLevel === "function" ? o.thinkingLevel() : o.thinkingLevel;
    const limits = base.executionLimits ?? DEFAULT_EXECUTION_LIMITS;
    const config: AgentLoopConfig = {
      provider: o.provider,
      model: typeof o.model === "function" ? o.model() : o.model,
      executionLimits: { ...limits, maxTurns: o.maxTurns ?? DEFAULT_SUB_AGENT_MAX_TURNS },
      firstTurnTrigger: "subAgent",
    };
    if (thinking !== undefined) config.thinkingLevel = thinking;
    if (o.approveToolCalls !== undefined) config.approveToolCalls = o.approveToolCalls;
    if (base.maxTokens !== undefined) config.maxTokens = base.maxTokens;
    if (base.retryConfig !== undefined) config.retryConfig = base.retryConfig;
    if (base.contextConfig !== undefined) config.contextConfig = base.contextConfig;
    if (base.tokenCounter !== undefined) config.tokenCounter = base.tokenCounter;
    if (base.toolExecution !== undefined) config.toolExecution = base.toolExecution;
    if (base.cacheConfig !== undefined) config.cacheConfig = base.cacheConfig;
    if (base.logger !== undefined) config.logger = base.logger;
    if (o.hooks !== undefined) config.hooks = o.hooks();
    return config;
  }

  /** The child's tools now. */
  childTools(): AnyAgentTool[] {
    const tools = this.#options.tools;
    if (tools === undefined) return [];
    return [...(typeof tools === "function" ? tools() : tools)];
  }

  async execute(
    params: z.output<typeof SubAgentParams>,
    ctx: ToolContext,
  ): Promise<ToolResult<SubAgentDetails>> {
    const task = params.task.trim();
    if (task === "") throw ToolError.invalidArgs("task must not be empty");
    const o = this.#options;
    let config: AgentLoopConfig;
    try {
      config = this.childConfig();
    } catch (error) {
      throw ToolError.failed(
        `The sub-agent's model cannot be used: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const parentLoopId = o.parentLoopId ?? ctx.loopId;
    const context: AgentContext = {
      systemPrompt:
        (typeof o.systemPrompt === "function" ? o.systemPrompt() : o.systemPrompt) ?? "",
      messages: [],
      tools: this.childTools(),
      ...(o.agentId !== undefined ? { agentId: o.agentId } : {}),
      ...(o.sessionId !== undefined ? { sessionId: o.sessionId } : {}),
      ...(parentLoopId !== undefined ? { parentLoopId } : {}),
      // its span nests under the call's execute_tool span (the active context while it runs)
      trace: { kind: "sub_agent", agentName: this.name },
    };
    if (o.context !== undefined) {
      const handling = o.context({ systemPrompt: context.systemPrompt, tools: context.tools });
      config.contextConfig = handling.contextConfig ?? null;
      if (handling.transformContext) config.transformContext = handling.transformContext;
      if (handling.recoverContextOverflow)
        config.recoverContextOverflow = handling.recoverContextOverflow;
    }
    if (o.loopId) context.loopId = await o.loopId(config);
    // the fold runtime's mechanism: a child of the call's signal (REQ-141)
    const controller = childAbortController(ctx.signal);
    const agent = this.name;
    let loopId = context.loopId ?? "";
    let usage = emptyUsage();
    let spent = emptyUsage();
    let turns = 0;
    const gate = o.approveToolCalls;
    if (gate !== undefined) {
      config.approveToolCalls = (calls, info) =>
        gate(calls, {
          ...info,
          parent: { toolCallId: ctx.toolCallId, loopId, signal: controller.signal },
        });
    }
    const sink = {
      push: (event: AgentEvent): void | PromiseLike<void> => {
        switch (event.type) {
          case "agentStart":
            loopId = event.loopId;
            ctx.onUpdate({
              content: [],
              details: { type: "subagent", kind: "started", agent, loop_id: loopId },
            });
            break;
          case "messageUpdate":
            if (event.delta.type === "text") {
              const delta = event.delta.delta;
              ctx.onUpdate({
                content: [{ type: "text", text: delta }],
                details: { type: "subagent", kind: "text", agent, loop_id: loopId, delta },
              });
            }
            break;
          case "toolExecutionStart":
            ctx.onProgress(`${event.toolName} ${argsPreview(event.args)}`.trim());
            break;
          case "progressMessage":
            ctx.onProgress(`${event.toolName}: ${event.text}`);
            break;
          case "messageEnd":
            // a running total: a cancelled call keeps it (tool-execution.ts), so the session
            // counts the child's responses even when the call ends without its result
            if (event.message.role === "assistant") {
              spent = combineUsage(spent, event.message.usage);
              ctx.onUsage?.({ usage: spent, model: config.model.model, childLoopId: loopId });
            }
            break;
          case "turnEnd":
            turns = event.turn + 1;
            break;
          case "agentEnd":
            usage = event.usage;
            break;
          default:
            break;
        }
        return o.onLoopEvent?.(event);
      },
    };
    let messages: AgentMessage[];
    try {
      messages = await runAgentLoop([userMessage(task)], context, config, sink, controller.signal);
    } finally {
      controller.dispose();
    }
    if (ctx.signal.aborted) throw ToolError.cancelled("The sub-agent was cancelled.");
    const text = extractFinalText(messages);
    const failure = lastFailure(messages);
    const limited = turns >= (o.maxTurns ?? DEFAULT_SUB_AGENT_MAX_TURNS) && hitLimit(messages);
    const status: SubAgentStatus =
      failure !== undefined ? "failed" : limited ? "turn_limit" : "completed";
    const resultText =
      text !== NO_TEXT_OUTPUT || failure === undefined
        ? text
        : `(sub-agent failed: ${failure.errorMessage ?? "the model request failed"})`;
    return {
      content: [{ type: "text", text: resultText }],
      details: {
        type: "subagent",
        kind: "ended",
        agent,
        loop_id: loopId,
        status,
        turns,
        usage,
        model: config.model.model,
      },
      childLoopId: loopId,
      usage,
      model: config.model.model,
    };
  }
}

/**
 * REQ-149: the text of the last assistant message that has text blocks, joined; the fallback
 * NO_TEXT_OUTPUT when none has (an all-tool-call answer, an empty run).
 */
export function extractFinalText(messages: readonly AgentMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== "assistant") continue;
    const texts = message.content.flatMap((b) =>
      b.type === "text" && b.text !== "" ? [b.text] : [],
    );
    if (texts.length > 0) return texts.join("\n");
  }
  return NO_TEXT_OUTPUT;
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "assistant") return message;
  }
  return undefined;
}

function lastFailure(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  const last = lastAssistant(messages);
  return last?.stopReason === "error" ? last : undefined;
}

/** The loop's own note that a limit stopped it ends the history (loop.ts). */
function hitLimit(messages: readonly AgentMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== "user") return false;
  return messageText(last).startsWith("[Agent stopped:");
}

function argsPreview(args: Record<string, unknown>): string {
  const json = JSON.stringify(args);
  return json.length > 120 ? `${json.slice(0, 119)}…` : json;
}
