// The Session: one owner of a conversation's lifecycle (Session), and the SessionManager
// that creates, loads, recovers and caches sessions over a store.
export * from "./approval-policy.js";
export type { BranchPatch, MergeInput, MergeReport } from "./branch-operations.js";
export {
  type Operation,
  type OperationError,
  OperationQueue,
  type OperationResult,
} from "./channel.js";
export { PLAN_APPROVED_TEXT, type SessionConfigPatch } from "./config-operations.js";
export * from "./message-search.js";
export type { ParallelAskResult } from "./parallel-answers.js";
export type { ParallelChoice } from "./parallel-choice.js";
export type { ParallelRequestProblem } from "./parallel-config.js";
export { INTERRUPTED_BY_RESTART, type RecoveryReport, recoverSession } from "./recovery.js";
export type { RunStop } from "./run-context.js";
export type { RunResult } from "./run-driver.js";
export * from "./session.js";
export { DEFAULT_IDLE_SESSION_MS, type SessionDeps } from "./session-deps.js";
export { toolNameOwner } from "./session-extensions.js";
export * from "./session-manager.js";
export { parseStoredEvent } from "./stored-events.js";
export { OperationRejected, StorageFailure } from "./stored-session.js";
export * from "./to-agent-messages.js";
export * from "./workflows.js";
