import type { ContextState } from "@arbor/core/browser";
import { plural } from "./format.js";

// What the state line says for each fine-grained state. Exhaustive: a new state in core fails the
// typecheck here until it has words.

export function stateLabel(state: ContextState): string {
  switch (state.type) {
    case "Idle":
      return "Ready";
    case "ProcessingUserMessage":
      return "Processing your message…";
    case "ResolvingFileReferences":
      return `Reading ${plural(state.count, "file")}…`;
    case "EnhancingSystemPrompt":
      return "Preparing the system prompt…";
    case "OptimizingContext":
      return "Optimizing history…";
    case "PreparingLLMRequest":
      return "Preparing the request…";
    case "ConnectingToLLM":
      return "Connecting…";
    case "AwaitingLLMFirstChunk":
      return "Waiting for the first token…";
    case "StreamingLLMResponse":
      return `Streaming · ${plural(state.chunks, "chunk")}`;
    case "ProcessingLLMResponse":
      return "Processing the response…";
    case "ParsingToolCalls":
      return "Reading tool calls…";
    case "AwaitingToolApproval":
      return "Waiting for your approval";
    case "ExecutingTool": {
      const base = `Executing tool ${state.index}/${state.total}: ${state.tool_name}`;
      return state.attempt > 1 ? `${base} (attempt ${state.attempt})` : base;
    }
    case "CollectingToolResults":
      return "Collecting tool results…";
    case "ProcessingToolResults":
      return "Processing tool results…";
    case "ToolAutoLoop": {
      const base = `Auto-processing · round ${state.depth} · ${plural(state.tools_executed, "tool")}`;
      return state.tool_names.length > 0 ? `${base}: ${state.tool_names.join(", ")}` : base;
    }
    case "ResearchingPlan":
      return state.tool_names.length > 0
        ? `Researching the plan: ${state.tool_names.join(", ")}`
        : `Researching the plan · ${plural(state.tools_executed, "tool")}`;
    case "ParsingPlan":
      return "Drafting the plan…";
    case "AwaitingUserAnswer":
      return "Waiting for your answer";
    case "Interrupting":
      return "Stopping…";
    case "Paused":
      switch (state.reason) {
        case "interrupted":
          return "Paused";
        case "auto_loop_limit":
          return "Paused · auto-loop limit reached";
        default:
          return unreachable(state.reason);
      }
    case "SwitchingBranch":
      return "Switching branch…";
    case "Merging":
      return `Merging (${state.strategy.replace("_", "-")})…`;
    case "Failed":
      return `Failed: ${state.error}`;
    default:
      return unreachable(state);
  }
}

/**
 * The state in a word or a few, for places beside which the page says more: a failure is
 * "Failed" (its error has one place of its own, the chat's bar above the composer: issue #27).
 */
export function shortStateLabel(state: ContextState): string {
  return state.type === "Failed" ? "Failed" : stateLabel(state);
}

/** How the state line looks: working (spinner), waiting on the user, stopped, failed, or idle. */
export type StateTone = "idle" | "working" | "waiting" | "paused" | "failed";

export function stateTone(state: ContextState): StateTone {
  switch (state.type) {
    case "Idle":
      return "idle";
    case "AwaitingToolApproval":
    case "AwaitingUserAnswer":
      return "waiting";
    case "Paused":
      return "paused";
    case "Failed":
      return "failed";
    case "ProcessingUserMessage":
    case "ResolvingFileReferences":
    case "EnhancingSystemPrompt":
    case "OptimizingContext":
    case "PreparingLLMRequest":
    case "ConnectingToLLM":
    case "AwaitingLLMFirstChunk":
    case "StreamingLLMResponse":
    case "ProcessingLLMResponse":
    case "ParsingToolCalls":
    case "ExecutingTool":
    case "CollectingToolResults":
    case "ProcessingToolResults":
    case "ToolAutoLoop":
    case "ResearchingPlan":
    case "ParsingPlan":
    case "Interrupting":
    case "SwitchingBranch":
    case "Merging":
      return "working";
    default:
      return unreachable(state);
  }
}

/** True while the session does work the user can stop (the composer shows Stop, Esc interrupts). */
export function isRunning(state: ContextState): boolean {
  return stateTone(state) === "working" && state.type !== "Interrupting";
}

export function unreachable(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
