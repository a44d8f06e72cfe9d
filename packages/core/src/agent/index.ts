export * from "./agent.js";
export * from "./context-tracker.js";
export * from "./evaluation.js";
export * from "./event-sink.js";
export * from "./event-stream.js";
export * from "./execution-limits.js";
export { silentLogger } from "./hook-calls.js";
export * from "./judge.js";
export * from "./loop.js";
export * from "./loop-id.js";
export type { LoopRun } from "./loop-run.js";
export { findPairingProblem, type MessageBlock, segmentBlocks } from "./message-blocks.js";
export * from "./optimization.js";
export {
  dropMiddle,
  summarizeOldTurns,
  TOOL_OUTPUT_MAX_LINE_CHARS,
  truncateText,
  truncateToolOutputs,
} from "./optimization-tiers.js";
export * from "./parallel.js";
export * from "./retry.js";
export * from "./token-count.js";
export {
  executeSingleTool,
  executeToolCalls,
  executionGroups,
  strategyForMode,
  type ToolExecutionEnv,
  type ToolExecutionOutcome,
} from "./tool-execution.js";
export * from "./types.js";
