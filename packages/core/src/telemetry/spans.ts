import {
  type Attributes,
  type Context,
  context,
  type Link,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { costOfUsage } from "../llm/pricing.js";
import type { AssistantMessage, Message, ToolCallContent, Usage } from "../model/llm-messages.js";
import type { PersonRef } from "../model/person.js";
import type { ToolResult } from "../tools/tool.js";
import { capturingContent, contentAttribute } from "./content.js";
import { finishReason, semconvMessage, semconvMessages } from "./messages.js";
import { recordActiveRun, recordModelRequest, recordToolCall } from "./metrics.js";
import {
  INSTRUMENTATION_SCOPE,
  type LoopKind,
  TELEMETRY_NAMES,
  type ToolOutcome,
} from "./names.js";
import { contextFromTraceparent, formatTraceparent, parseTraceparent } from "./trace-context.js";

// The spans of one agent loop: `invoke_agent` for the run, `chat` per model request, and
// `execute_tool` per tool call, parented explicitly (never through whatever context happens to
// be active mid-stream). Children a tool starts (a sub-agent, a fold) find the call's span as the
// active context: the tool runs inside `ToolTrace.run`. With no SDK registered the tracer hands
// out non-recording spans and every method here returns before building an attribute; nothing
// is done per streamed delta in any case (the first chunk is noted once per request). With an SDK,
// the work is per loop, request and call only: the tracer is looked up once per registered
// provider, and whether content is captured is read once per loop (bench/otel-overhead.bench.ts).

const S = TELEMETRY_NAMES.spans;
const A = TELEMETRY_NAMES.attributes;
const E = TELEMETRY_NAMES.events;

let cachedTracer: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * Core's tracer, from whichever provider is registered now: looked up again only when another
 * one is registered (the API's own getTracer builds a key and asks the provider each time).
 */
function tracer(): Tracer {
  const global = trace.getTracerProvider();
  const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  if (cachedTracer?.provider !== provider) {
    cachedTracer = { provider, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) };
  }
  return cachedTracer.tracer;
}

/** How a loop's span is placed and named; AgentContext.trace carries it into the loop. */
export interface LoopTraceOptions {
  kind?: LoopKind;
  /** gen_ai.agent.name (default the agent id) */
  agentName?: string;
  /**
   * W3C traceparent of the span to continue: a continuation of a run stored earlier, maybe by
   * another instance. Absent: the active context (the tool call that started a child loop).
   */
  parent?: string;
  /** traceparents of spans this loop's span links to (the judge → the candidates) */
  links?: readonly string[];
  /** set by the loop when its span starts: that span's traceparent (absent when not recorded) */
  traceparent?: string;
}

export interface LoopStart {
  loopId: string;
  agentId: string;
  sessionId: string;
  parentLoopId?: string;
  kind: LoopKind;
  startedBy?: PersonRef;
  provider: string;
  model: string;
  options?: LoopTraceOptions;
}

/** What the approval gate decided for a call, and who decided (telemetry only). */
export interface ToolDecision {
  outcome: "approved" | "denied" | "auto";
  /** the person who approved or denied it; absent when a policy or rule decided */
  decidedBy?: PersonRef;
  /** the policy or rule that decided (approval_note), when no person did */
  rule?: string;
}

/** The span of one agent loop; `start` never throws and costs next to nothing without an SDK. */
export class LoopTrace {
  readonly #span: Span;
  readonly #context: Context;
  readonly #recording: boolean;
  readonly #provider: string;
  /** content attributes on this loop's spans (the variable, read once when the loop starts) */
  readonly #content: boolean;
  /** W3C traceparent of this loop's span; undefined when it is not recorded */
  readonly traceparent: string | undefined;

  private constructor(span: Span, parent: Context, provider: string) {
    this.#span = span;
    this.#recording = span.isRecording();
    this.#context = trace.setSpan(parent, span);
    this.#provider = provider;
    this.#content = this.#recording && capturingContent();
    this.traceparent = this.#recording ? formatTraceparent(span.spanContext()) : undefined;
  }

  static start(info: LoopStart): LoopTrace {
    const options = info.options ?? {};
    const parent =
      options.parent !== undefined
        ? contextFromTraceparent(options.parent, context.active())
        : context.active();
    const agentName = options.agentName ?? info.agentId;
    const links: Link[] = [];
    for (const link of options.links ?? []) {
      const spanContext = parseTraceparent(link);
      if (spanContext !== undefined) links.push({ context: spanContext });
    }
    const span = tracer().startSpan(
      `${S.invokeAgent} ${agentName}`,
      { kind: SpanKind.INTERNAL, ...(links.length > 0 ? { links } : {}) },
      parent,
    );
    const loop = new LoopTrace(span, parent, info.provider);
    recordActiveRun(1);
    if (!loop.#recording) return loop;
    const attributes: Attributes = {
      [A.operationName]: S.invokeAgent,
      [A.agentName]: agentName,
      [A.agentId]: info.agentId,
      [A.conversationId]: info.sessionId,
      [A.providerName]: info.provider,
      [A.requestModel]: info.model,
      [A.loopId]: info.loopId,
      [A.loopKind]: info.kind,
    };
    if (info.parentLoopId !== undefined) attributes[A.parentLoopId] = info.parentLoopId;
    if (info.startedBy !== undefined) {
      attributes[A.startedById] = info.startedBy.id;
      attributes[A.startedByName] = info.startedBy.name;
    }
    span.setAttributes(attributes);
    return loop;
  }

  /** The context children of this loop start in (the active context while a tool of it runs). */
  get context(): Context {
    return this.#context;
  }

  /**
   * Runs `fn` (the loop's body) with this loop's span active: what the loop's hooks and context
   * handling do (the Context Manager's optimization, an overflow recovery) nests under it.
   */
  within<T>(fn: () => T): T {
    return context.with(this.#context, fn);
  }

  /** A model request of this loop (one attempt); `messages` are only read when content is captured. */
  chat(request: {
    model: string;
    systemPrompt: string;
    messages: readonly Message[];
    maxTokens?: number;
    temperature?: number;
    attempt: number;
  }): ChatTrace {
    const span = tracer().startSpan(
      `chat ${request.model}`,
      { kind: SpanKind.CLIENT },
      this.#context,
    );
    const chat = new ChatTrace(span, this.#provider, request.model, this.#content);
    if (!chat.recording) return chat;
    const attributes: Attributes = {
      [A.operationName]: "chat",
      [A.providerName]: this.#provider,
      [A.requestModel]: request.model,
    };
    if (request.maxTokens !== undefined) attributes[A.requestMaxTokens] = request.maxTokens;
    if (request.temperature !== undefined) attributes[A.requestTemperature] = request.temperature;
    if (request.attempt > 0) attributes[A.retryAttempt] = request.attempt;
    if (this.#content) {
      attributes[A.systemInstructions] = contentAttribute([
        { type: "text", content: request.systemPrompt },
      ]);
      attributes[A.inputMessages] = contentAttribute(semconvMessages(request.messages));
    }
    span.setAttributes(attributes);
    return chat;
  }

  /** A tool call of this loop; the span starts now (after the gate's decision). */
  tool(call: ToolCallContent, decision: ToolDecision): ToolTrace {
    const span = tracer().startSpan(
      `${S.executeTool} ${call.name}`,
      { kind: SpanKind.INTERNAL },
      this.#context,
    );
    const recording = span.isRecording();
    const tool = new ToolTrace(
      span,
      trace.setSpan(this.#context, span),
      call.name,
      decision,
      recording && this.#content,
    );
    if (!recording) return tool;
    const attributes: Attributes = {
      [A.operationName]: S.executeTool,
      [A.toolName]: call.name,
      [A.toolCallId]: call.id,
      [A.toolType]: "function",
      [A.approvalOutcome]: decision.outcome,
    };
    if (decision.decidedBy !== undefined) {
      attributes[A.approvalDeciderType] = "person";
      attributes[A.approvalDeciderId] = decision.decidedBy.id;
      attributes[A.approvalDeciderName] = decision.decidedBy.name;
    } else {
      attributes[A.approvalDeciderType] = "policy";
      if (decision.rule !== undefined) attributes[A.approvalRule] = decision.rule;
    }
    if (this.#content) attributes[A.toolCallArguments] = contentAttribute(call.arguments);
    span.setAttributes(attributes);
    return tool;
  }

  /** The history was optimized (the runtime's tiers): an event on the run's span. */
  compaction(info: { reason: string; tokensBefore: number; tokensAfter: number }): void {
    if (!this.#recording) return;
    this.#span.addEvent(E.compaction, {
      [A.contextReason]: info.reason,
      [A.contextTokensBefore]: info.tokensBefore,
      [A.contextTokensAfter]: info.tokensAfter,
    });
  }

  /** Ends the span. `pendingToolCalls`: the run ended waiting for decisions on these calls. */
  end(outcome: {
    usage: Usage;
    turns: number;
    pendingToolCalls?: readonly string[];
    error?: string;
    lastMessage?: AssistantMessage;
  }): void {
    recordActiveRun(-1);
    const pending = outcome.pendingToolCalls?.length ?? 0;
    if (this.#recording) {
      const span = this.#span;
      const status = outcome.error !== undefined ? "error" : pending > 0 ? "waiting" : "completed";
      span.setAttributes({
        ...usageAttributes(outcome.usage),
        [A.loopTurns]: outcome.turns,
        [A.loopStatus]: status,
      });
      if (pending > 0) {
        span.setAttribute(A.pendingToolCalls, [...(outcome.pendingToolCalls ?? [])]);
        span.addEvent(E.approvalWait, {
          [A.pendingToolCalls]: [...(outcome.pendingToolCalls ?? [])],
        });
      }
      const last = outcome.lastMessage;
      if (last !== undefined) {
        span.setAttribute(A.responseFinishReasons, [finishReason(last.stopReason)]);
        if (this.#content && last.stopReason !== "error") {
          span.setAttribute(A.outputMessages, contentAttribute([semconvMessage(last)]));
        }
      }
      if (outcome.error !== undefined) {
        span.setAttribute(A.errorType, "loop_failed");
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
      } else if (last?.stopReason === "error") {
        span.setAttribute(A.errorType, "model_error");
        span.setStatus({ code: SpanStatusCode.ERROR, message: last.errorMessage ?? "error" });
      }
    }
    this.#span.end();
  }
}

/** One model request. `firstChunk` is called at most once; nothing is done per delta. */
export class ChatTrace {
  readonly #span: Span;
  readonly #provider: string;
  readonly #model: string;
  readonly #content: boolean;
  readonly #started = performance.now();
  #firstChunkMs: number | undefined;
  /** whether the span is recorded (an SDK is registered and sampled it) */
  readonly recording: boolean;

  constructor(span: Span, provider: string, model: string, content = false) {
    this.#span = span;
    this.#provider = provider;
    this.#model = model;
    this.recording = span.isRecording();
    this.#content = this.recording && content;
  }

  /** The first chunk of the response arrived. */
  firstChunk(): void {
    if (this.#firstChunkMs === undefined) this.#firstChunkMs = performance.now() - this.#started;
  }

  /** The request succeeded with `message`. */
  done(message: AssistantMessage): void {
    const seconds = (performance.now() - this.#started) / 1000;
    recordModelRequest(
      { provider: this.#provider, requestModel: this.#model, responseModel: message.model },
      seconds,
      message.usage,
    );
    const span = this.#span;
    if (this.recording) {
      const attributes: Attributes = {
        ...usageAttributes(message.usage),
        [A.responseModel]: message.model,
        [A.responseFinishReasons]: [finishReason(message.stopReason)],
      };
      if (this.#firstChunkMs !== undefined) {
        attributes[A.responseTimeToFirstChunk] = this.#firstChunkMs / 1000;
      }
      const cost = costOfUsage(message.usage, message.model);
      if (cost !== undefined) attributes[A.costUsd] = cost;
      if (this.#content) {
        attributes[A.outputMessages] = contentAttribute([semconvMessage(message)]);
      }
      span.setAttributes(attributes);
    }
    span.end();
  }

  /** The request failed (`kind`: the provider error's kind, error.type). */
  failed(kind: string, message: string, usage?: Usage): void {
    const seconds = (performance.now() - this.#started) / 1000;
    recordModelRequest(
      { provider: this.#provider, requestModel: this.#model, errorType: kind },
      seconds,
      undefined,
    );
    const span = this.#span;
    if (this.recording) {
      span.setAttribute(A.errorType, kind);
      if (usage !== undefined) span.setAttributes(usageAttributes(usage));
      if (this.#firstChunkMs !== undefined) {
        span.setAttribute(A.responseTimeToFirstChunk, this.#firstChunkMs / 1000);
      }
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    span.end();
  }
}

/** One tool call: the tool runs inside `run`, so children it starts nest under this span. */
export class ToolTrace {
  readonly #span: Span;
  readonly #context: Context;
  readonly #name: string;
  readonly #decision: ToolDecision;
  readonly #content: boolean;
  readonly #started = performance.now();

  constructor(span: Span, ctx: Context, name: string, decision: ToolDecision, content = false) {
    this.#span = span;
    this.#context = ctx;
    this.#name = name;
    this.#decision = decision;
    this.#content = content;
  }

  /** Runs `fn` with this call's span active (a sub-agent's or a fold's loop becomes its child). */
  run<T>(fn: () => T): T {
    return context.with(this.#context, fn);
  }

  /**
   * The call ended. `errorType`: why it failed (a ToolError kind, "denied", "blocked"), absent
   * when it succeeded.
   */
  end(result: ToolResult, errorType: string | undefined): void {
    const outcome: ToolOutcome =
      this.#decision.outcome === "denied"
        ? "denied"
        : errorType !== undefined
          ? "error"
          : this.#decision.outcome;
    recordToolCall(this.#name, outcome, (performance.now() - this.#started) / 1000);
    const span = this.#span;
    if (span.isRecording()) {
      span.setAttribute(A.toolOutcome, outcome);
      if (result.childLoopId !== undefined) span.setAttribute(A.childLoopId, result.childLoopId);
      if (this.#content) {
        span.setAttribute(
          A.toolCallResult,
          contentAttribute(
            result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n"),
          ),
        );
      }
      if (errorType !== undefined) {
        span.setAttribute(A.errorType, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    span.end();
  }
}

/** The conventions' usage attributes (input counts every prompt token, cached ones too). */
export function usageAttributes(usage: Usage): Attributes {
  return {
    [A.usageInputTokens]: usage.input + usage.cacheRead + usage.cacheWrite,
    [A.usageOutputTokens]: usage.output,
    [A.usageCacheReadInputTokens]: usage.cacheRead,
    [A.usageCacheCreationInputTokens]: usage.cacheWrite,
  };
}

/**
 * A span of its own around `fn` (the Context Manager's optimization, overflow recovery, a merge),
 * a child of the active context. `fn` may add attributes through the span it is given; a throw
 * marks the span failed and is rethrown.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind: SpanKind.INTERNAL }, async (span) => {
    if (span.isRecording()) span.setAttributes(attributes);
    try {
      return await fn(span);
    } catch (error) {
      if (span.isRecording()) {
        span.setAttribute(A.errorType, error instanceof Error ? error.name : "error");
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
      }
      throw error;
    } finally {
      span.end();
    }
  });
}
