// The Session: one owner of a conversation's lifecycle (ContextSession), and the SessionManager
// that creates, loads, recovers and caches sessions over a store.
export * from "./approval-policy.js";
export type { MergeInput, MergeReport } from "./branch-operations.js";
export { Channel, OperationQueue } from "./channel.js";
export { PLAN_APPROVED_TEXT, type SessionConfigPatch } from "./config-operations.js";
export * from "./context-session.js";
export * from "./message-search.js";
export { INTERRUPTED_BY_RESTART, type RecoveryReport, recoverSession } from "./recovery.js";
export type { SessionDeps } from "./session-deps.js";
export { OperationRejected, StorageFailure } from "./session-errors.js";
export * from "./session-manager.js";
export { parseStoredEvent } from "./stored-events.js";
export * from "./to-agent-messages.js";
export * from "./workflows.js";
