import type { AgentMessage, Usage } from "../model/llm-messages.js";
import type { LoopTrace } from "../telemetry/spans.js";
import type { AgentEventSink } from "./event-sink.js";
import type { AgentContext, AgentLoopConfig, Logger } from "./types.js";

// The state one agent-loop run shares between loop.ts and the steps it calls
// (assistant-response.ts, optimization-step.ts). Its own module so those steps need not import
// the loop that calls them.

/** Everything one run shares; `context.messages` is the working history (optimization may replace it). */
export interface LoopRun {
  readonly context: AgentContext;
  readonly config: AgentLoopConfig;
  readonly sink: AgentEventSink;
  readonly signal: AbortSignal;
  readonly loopId: string;
  readonly logger: Logger;
  /** messages this run added (prompts, responses, tool results, steering, follow-ups) */
  readonly newMessages: AgentMessage[];
  usage: Usage;
  /** tool calls the approval gate deferred; set when the run ends waiting for decisions */
  pendingToolCalls?: string[];
  /** the run's invoke_agent span (telemetry/): its model requests and tool calls are children */
  readonly trace: LoopTrace;
}
