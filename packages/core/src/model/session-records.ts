import type { PendingMerge } from "./merge-types.js";
import type { ApprovalStatus, ContextMessage, MessageStatus } from "./message-types.js";
import type { PersonRef } from "./person.js";
import type { SessionConfig } from "./session-config.js";
import type { ContextState } from "./states.js";
import type { CostedUsage } from "./usage-cost.js";

// The stored shapes of a session beyond its messages and branches: the session row, its summary
// in lists, its events, lifecycle updates of messages and optimized views. Every store persists
// them (store/types.ts holds the store interface), the wire sends them (protocol/).

export interface SessionRecord {
  id: string;
  title: string;
  config: SessionConfig;
  state: ContextState;
  active_branch_id: string;
  created_at: string;
  updated_at: string;
  /** merges waiting for the user's decision (absent: none) */
  pending_merges?: PendingMerge[];
}

export interface SessionSummary {
  id: string;
  title: string;
  state: ContextState;
  updated_at: string;
  message_count: number;
  /** tokens and their cost (meta.cost_usd) summed over the assistant messages and sub-agent
   * results, by the rule of usage-cost.ts: null when no part has a price, incomplete when one lacks it */
  usage: CostedUsage;
}

export interface StoredEvent {
  session_id: string;
  sequence: number;
  name: string;
  payload: unknown;
  created_at: string;
}

/** One call's decision: its status, why (note), and the person who made it (null: a policy). */
export interface ApprovalUpdate {
  approval: ApprovalStatus;
  approval_note?: string;
  decided_by?: PersonRef | null;
}

export interface MessageLifecycleUpdate {
  id: string;
  status?: MessageStatus;
  completed_at?: string;
  /** tool_call_id → new approval status (tool_request messages only) */
  approvals?: Record<string, ApprovalUpdate>;
  meta?: ContextMessage["meta"];
}

/** What one summary in an optimized view stands for. */
export interface OptimizationView {
  id: string;
  session_id: string;
  branch_id: string;
  created_at: string;
  strategy: string;
  tokens_before: number;
  tokens_after: number;
  messages_before: number;
  messages_after: number;
  /** summary message id → the ids of the messages it replaced */
  summaries: Array<{ summary_message_id: string; replaces: string[] }>;
  /** ids the optimized view dropped without a summary */
  dropped: string[];
}
