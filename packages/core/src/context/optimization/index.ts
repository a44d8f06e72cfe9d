// Context optimization: what the model sees of a branch (context-manager spec "Context
// Optimization for LLM"). The strategies' internals (units, batching) stay private.

export {
  DEFAULT_SUMMARY_TOKENS,
  ExtractiveSummarizer,
  extractiveSummary,
  type FactKind,
  factKind,
  factSentences,
} from "./extractive-summarizer.js";
export {
  type ImportanceScoringOptions,
  importanceScore,
  importanceScoringStrategy,
} from "./importance-scoring.js";
export { type IntelligentOptions, intelligentStrategy } from "./intelligent.js";
export { isSummary, toModelText } from "./model-view.js";
export { isMasked, MASK_PREFIX, maskNote } from "./observation-masking.js";
export {
  type OptimizationTier,
  type OptimizeBranchInput,
  type OptimizeBranchResult,
  optimizeBranch,
  strategyFor,
} from "./optimizer.js";
export { type RecentNOptions, recentNStrategy } from "./recent-n.js";
export {
  contextMessageTokens,
  countRequestTokens,
  needsOptimization,
  optimizationTarget,
  type RequestShape,
  type RequestTokens,
  toolDefinitionTokens,
} from "./request-tokens.js";
export type {
  Disposition,
  OptimizationStrategyImpl,
  Selection,
  StrategyInput,
} from "./selection.js";
export {
  LlmSummarizer,
  type LlmSummarizerOptions,
  SUMMARIZATION_SYSTEM_PROMPT,
  SUMMARY_REQUEST_PREFIX,
  SummarizationError,
  type SummarizeOptions,
  type Summarizer,
} from "./summarizer.js";
export { TOOL_RESULT_MAX_LINES, truncateToolResult } from "./tool-output-truncation.js";
export { expandSummary, viewFromRecords } from "./view-record.js";
