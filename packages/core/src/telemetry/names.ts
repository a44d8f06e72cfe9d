// The names Arbor's telemetry emits: span names, attribute keys, event names and metric names, in
// one list so the docs (docs/observability-spans.md), the web app's exporter setup and the tests
// read the same words. The `gen_ai.*` names follow the OpenTelemetry semantic conventions for
// generative AI as published in semantic-conventions v1.45.0 (status Development: the
// "gen_ai_latest_experimental" names, e.g. gen_ai.provider.name rather than gen_ai.system).
// Arbor's own additions are `arbor.*`.

/** The semantic-conventions release whose GenAI names these are. */
export const GEN_AI_SEMCONV_VERSION = "1.45.0";

/** The instrumentation scope of every tracer and meter. */
export const INSTRUMENTATION_SCOPE = "@arbor/core";

export const TELEMETRY_NAMES = {
  /** span names: `{operation} {target}`, as the conventions name them */
  spans: {
    /** one agent loop run (a user's run, a continuation, a sub-agent, a fold, a candidate, a judge) */
    invokeAgent: "invoke_agent",
    /** an ask-N-ways group: its candidates and the judge are its children */
    invokeWorkflow: "invoke_workflow",
    /** one model request (one attempt: a retried request is a span per attempt) */
    chat: "chat",
    /** one tool call */
    executeTool: "execute_tool",
    /** the Context Manager's optimization of the model's view before a request */
    contextOptimize: "arbor.context.optimize",
    /** recovery from a context overflow reported by the provider */
    contextOverflowRecovery: "arbor.context.overflow_recovery",
    /** a merge of one branch into another */
    branchMerge: "arbor.branch.merge",
    /** an operation another instance forwarded to the one running the session (a decision) */
    forwardedOperation: "arbor.session.forwarded",
  },
  attributes: {
    operationName: "gen_ai.operation.name",
    providerName: "gen_ai.provider.name",
    agentName: "gen_ai.agent.name",
    agentId: "gen_ai.agent.id",
    conversationId: "gen_ai.conversation.id",
    workflowName: "gen_ai.workflow.name",
    requestModel: "gen_ai.request.model",
    requestMaxTokens: "gen_ai.request.max_tokens",
    requestTemperature: "gen_ai.request.temperature",
    responseModel: "gen_ai.response.model",
    responseFinishReasons: "gen_ai.response.finish_reasons",
    responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
    /** every prompt token, cached ones included (Arbor's usage.input excludes them) */
    usageInputTokens: "gen_ai.usage.input_tokens",
    usageOutputTokens: "gen_ai.usage.output_tokens",
    usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
    usageCacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
    toolName: "gen_ai.tool.name",
    toolCallId: "gen_ai.tool.call.id",
    toolType: "gen_ai.tool.type",
    tokenType: "gen_ai.token.type",
    errorType: "error.type",
    /** content: only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, redacted */
    inputMessages: "gen_ai.input.messages",
    outputMessages: "gen_ai.output.messages",
    systemInstructions: "gen_ai.system_instructions",
    toolCallArguments: "gen_ai.tool.call.arguments",
    toolCallResult: "gen_ai.tool.call.result",
    // Arbor's own
    loopId: "arbor.loop.id",
    parentLoopId: "arbor.loop.parent_id",
    /** how the loop started: run, continuation, rerun, branch, sub_agent, fold, candidate, judge */
    loopKind: "arbor.loop.kind",
    loopStatus: "arbor.loop.status",
    loopTurns: "arbor.loop.turns",
    /** tool calls the run left waiting for a decision (it ended there) */
    pendingToolCalls: "arbor.loop.pending_tool_calls",
    startedById: "arbor.started_by.id",
    startedByName: "arbor.started_by.name",
    parallelGroupId: "arbor.parallel.group_id",
    parallelSelectedLoopId: "arbor.parallel.selected_loop_id",
    parallelCandidates: "arbor.parallel.candidates",
    /** approved (a person), denied (a person or a rule), auto (a policy or rule), error */
    toolOutcome: "arbor.tool.outcome",
    approvalOutcome: "arbor.approval.outcome",
    approvalDeciderType: "arbor.approval.decided_by.type",
    approvalDeciderId: "arbor.approval.decided_by.id",
    approvalDeciderName: "arbor.approval.decided_by.name",
    /** the policy or rule that decided (approval_note), when no person did */
    approvalRule: "arbor.approval.rule",
    childLoopId: "arbor.tool.child_loop_id",
    retryAttempt: "arbor.retry.attempt",
    costUsd: "arbor.usage.cost_usd",
    contextReason: "arbor.context.reason",
    contextTokensBefore: "arbor.context.tokens_before",
    contextTokensAfter: "arbor.context.tokens_after",
    contextRecovered: "arbor.context.recovered",
    branchSource: "arbor.branch.source_id",
    branchTarget: "arbor.branch.target_id",
    branchStrategy: "arbor.branch.strategy",
    /** merged, needs_confirmation, conflicts or cancelled */
    branchMergeStatus: "arbor.branch.merge_status",
    /** decide or queue */
    forwardedKind: "arbor.forwarded.kind",
  },
  events: {
    /** on a run's span: it ended with calls waiting for a decision (attribute: their ids) */
    approvalWait: "arbor.approval.wait",
    /** on a run's span: an optimization of its history (tiers, tokens before and after) */
    compaction: "arbor.compaction",
  },
  metrics: {
    tokenUsage: "gen_ai.client.token.usage",
    operationDuration: "gen_ai.client.operation.duration",
    toolCalls: "arbor.tool.calls",
    toolDuration: "arbor.tool.duration",
    approvalsWaiting: "arbor.approvals.waiting",
    activeRuns: "arbor.runs.active",
  },
} as const;

/** Attributes that hold message content: absent unless capture is on (content.ts). */
export const CONTENT_ATTRIBUTES: readonly string[] = [
  TELEMETRY_NAMES.attributes.inputMessages,
  TELEMETRY_NAMES.attributes.outputMessages,
  TELEMETRY_NAMES.attributes.systemInstructions,
  TELEMETRY_NAMES.attributes.toolCallArguments,
  TELEMETRY_NAMES.attributes.toolCallResult,
];

/** How a loop came to run (arbor.loop.kind). */
export type LoopKind =
  | "run"
  | "continuation"
  | "rerun"
  | "branch"
  | "sub_agent"
  | "fold"
  | "candidate"
  | "judge";

/** A tool call's outcome (arbor.tool.outcome and the tool call metrics). */
export type ToolOutcome = "approved" | "denied" | "auto" | "error";
