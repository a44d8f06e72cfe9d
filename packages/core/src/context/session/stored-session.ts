import { AnthropicTokenCounts } from "../../llm/anthropic-token-count.js";
import { budgetedProvider } from "../../llm/token-budget.js";
import type { Branch } from "../../model/branch.js";
import type { PendingMerge } from "../../model/merge-types.js";
import type { ContextMessage, ToolCallRequest } from "../../model/message-types.js";
import type { PersonRef } from "../../model/person.js";
import type { AgentRole, SessionConfig } from "../../model/session-config.js";
import type { ContextState } from "../../model/states.js";
import type {
  ContentDelta,
  ContentFinal,
  ContextUpdate,
  ErrorEvent,
  MessageUpdate,
  SessionEvent,
  SessionEventBody,
} from "../../protocol/events.js";
import type {
  LoadedSession,
  OptimizationView,
  SessionWrite,
  StoredEvent,
} from "../../store/types.js";
import { type ToolRegistry, toToolRegistry } from "../../tools/registry.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { Workspace } from "../../tools/workspace.js";
import { MessagePool } from "../message-pool.js";
import type { OptimizeBranchResult } from "../optimization/optimizer.js";
import { TokenCalibration } from "../optimization/token-calibration.js";
import { planModeToolPredicate } from "../plan-act.js";
import { StateMachine } from "../state-machine.js";
import { NestedApprovals } from "./nested-approvals.js";
import type { ResolvedDeps } from "./session-deps.js";
import { extendedRegistry } from "./session-extensions.js";

// The session's in-memory mirror of what is stored, and the ONLY way it changes: `commit` writes
// a change through `store.write` (state + events + messages + branch changes in one atomic write)
// and applies it in memory only after the write succeeded, then hands the stored events (with
// their sequences) to the listeners. A failed write changes nothing here (StorageFailure).

export interface Change {
  /** the states to pass through, in order (usually one); validated as a chain before writing */
  states?: ContextState[];
  /** bypass the transition table (recovery, rollback to a state the table cannot reach) */
  reset?: ContextState;
  write?: Omit<SessionWrite, "events" | "session"> & {
    session?: Omit<NonNullable<SessionWrite["session"]>, "state">;
  };
  events?: SessionEventBody[];
}

/** An optimization started after an answer, while the user reads it (Session.#optimizeAhead). */
export interface AheadOptimization {
  branchId: string;
  /** the branch's records when it started: another optimization since makes it stale */
  records: number;
  /** the branch's message ids when it started: they must still begin the branch */
  messageIds: readonly string[];
  controller: AbortController;
  result: Promise<OptimizeBranchResult | undefined>;
  /** set once `result` has settled */
  settled: boolean;
}

export type EventListener = (event: SessionEvent) => void;

/** Stable, resting states: an operation may start from these and ends in one of them. */
export const RESTING_STATES: ReadonlySet<ContextState["type"]> = new Set([
  "Idle",
  "Failed",
  "Paused",
  "AwaitingToolApproval",
  "AwaitingUserAnswer",
]);

export class StoredSession {
  readonly id: string;
  readonly deps: ResolvedDeps;
  title: string;
  config: SessionConfig;
  activeBranchId: string;
  /** merges waiting for the user's decision, by merge id (stored with the session row) */
  readonly pendingMerges = new Map<string, PendingMerge>();
  readonly pool: MessagePool;
  readonly branches = new Map<string, Branch>();
  readonly views: OptimizationView[];
  readonly machine: StateMachine;
  /** the session's tool registry (built-ins and MCP tools; rebuilt when the config changes) */
  toolRegistry: ToolRegistry;
  workspace: Workspace | undefined;
  /** the newest stored event's sequence (0: none); kept current by `commit` */
  lastSequence = 0;
  /** an optimization started after the last answer, for the next request (session-optimization) */
  ahead: AheadOptimization | undefined;
  /** whose tools the model gets in Act mode: the session's own role, else the app's default */
  get role(): AgentRole {
    return this.config.agent_role ?? this.deps.role;
  }

  /** the session's token estimate held against the provider's figures (token-calibration.ts) */
  readonly tokens = new TokenCalibration();
  /** the provider's exact counts, cached per message (session-token-count.ts) */
  readonly exactCounts = new AnthropicTokenCounts();
  /** the tool calls that wait for a person inside the running operation (a candidate's, a
   * fold's): Session.decideToolCalls hands their decisions over at once (nested-approvals.ts) */
  readonly nestedApprovals = new NestedApprovals();
  /**
   * The person the running operation acts for (Session's `by` option): who decides the calls it
   * decides, who starts the runs it starts (the loop record's `startedBy`) and whose token budget
   * its model requests count against. null: nobody named one (an internal chore, an old caller).
   * Operations run one at a time, so it is set when one starts and cleared when it ends.
   */
  operator: PersonRef | null = null;
  /** the state a write in flight moves to (see `projectedState`) */
  #inFlight: ContextState | undefined;
  /** settles when the last write asked for has been stored (or failed); see `commit` */
  #writing: Promise<void> = Promise.resolve();
  #pendingWrites = 0;
  readonly #listeners = new Set<EventListener>();

  constructor(loaded: LoadedSession, deps: ResolvedDeps) {
    this.id = loaded.session.id;
    // every model request of this session (its runs, sub-agents, folds, candidates, judges,
    // summaries) goes through deps.provider: with budgets, through the operator's budget
    const budget = deps.tokenBudget;
    this.deps =
      budget === undefined
        ? deps
        : {
            ...deps,
            provider: budgetedProvider(deps.provider, () => this.operator, budget, deps.logger),
          };
    this.title = loaded.session.title;
    this.config = loaded.session.config;
    this.activeBranchId = loaded.session.active_branch_id;
    for (const merge of loaded.session.pending_merges ?? []) {
      this.pendingMerges.set(merge.merge_id, merge);
    }
    this.pool = MessagePool.from(loaded.messages);
    for (const branch of loaded.branches) this.branches.set(branch.id, branch);
    this.views = [...loaded.optimization_views];
    this.toolRegistry = extendedRegistry(this, toToolRegistry(deps.tools(this.config)));
    this.workspace = this.config.workspace ? new Workspace(this.config.workspace) : undefined;
    this.machine = this.#newMachine(loaded.session.state);
  }

  #newMachine(initial: ContextState): StateMachine {
    return new StateMachine({
      mode: () => this.config.agent_mode,
      isPlanModeTool: (name) => planModeToolPredicate(this.tools)(name),
      initial,
      now: () => this.deps.now().getTime(),
    });
  }

  /** the tools the session has now (MCP tools come and go with their servers) */
  get tools(): readonly AnyAgentTool[] {
    return this.toolRegistry.list();
  }

  get state(): ContextState {
    return this.machine.current;
  }

  /**
   * The state once the write in flight is stored: a run that starts while the user's message is
   * still being written (send-message.ts) plans its moves from there. Equal to `state` otherwise.
   */
  get projectedState(): ContextState {
    return this.#inFlight ?? this.machine.current;
  }

  nowIso(): string {
    return this.deps.now().toISOString();
  }

  newId(): string {
    return this.deps.newId();
  }

  activeBranch(): Branch {
    const branch = this.branches.get(this.activeBranchId);
    if (!branch)
      throw new OperationRejected("internal", `active branch ${this.activeBranchId} is missing`);
    return branch;
  }

  /** A branch's messages in order; ids missing from the pool (corrupt data) are skipped and logged. */
  branchMessages(branchId = this.activeBranchId): ContextMessage[] {
    const branch = this.branches.get(branchId);
    if (!branch)
      throw new OperationRejected("invalid_request", `branch ${branchId} does not exist`);
    const out: ContextMessage[] = [];
    for (const id of branch.message_ids) {
      const message = this.pool.get(id);
      if (message) out.push(message);
      else
        this.deps.logger.warn("branch names a message missing from the pool", {
          branch: branchId,
          message: id,
        });
    }
    return out;
  }

  lastMessage(): ContextMessage | undefined {
    const id = this.activeBranch().message_ids.at(-1);
    return id === undefined ? undefined : this.pool.get(id);
  }

  /** The tool_request on the active branch (searched from the end) that holds call `callId`. */
  findToolRequest(callId: string): { id: string; calls: ToolCallRequest[] } | undefined {
    const ids = this.activeBranch().message_ids;
    for (let i = ids.length - 1; i >= 0; i--) {
      const message = this.pool.get(ids[i] as string);
      if (message?.body.message_type !== "tool_request") continue;
      if (message.body.calls.some((c) => c.id === callId)) {
        return { id: message.id, calls: message.body.calls };
      }
    }
    return undefined;
  }

  /** how many listeners follow this session's events (an open stream each) */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** An event that could not be stored (a storage failure) or is not worth storing: sequence 0. */
  emitUnsequenced(body: SessionEventBody): void {
    this.#emit(withSequence(body, 0));
  }

  errorEvent(code: ErrorEvent["code"], message: string, recoverable: boolean): SessionEventBody {
    return { name: "error", payload: { context_id: this.id, code, message, recoverable } };
  }

  /** A context_update event: the session moved to (or is in) `current`, with what changed. */
  contextUpdateEvent(
    current: ContextState,
    previous: ContextState | undefined,
    messageUpdate?: MessageUpdate,
    metadata: Record<string, unknown> = {},
  ): SessionEventBody {
    const payload: ContextUpdate = {
      context_id: this.id,
      current_state: current,
      timestamp: this.nowIso(),
      metadata,
    };
    if (previous !== undefined) payload.previous_state = previous;
    if (messageUpdate !== undefined) payload.message_update = messageUpdate;
    return { name: "context_update", payload };
  }

  contentDeltaEvent(
    messageId: string,
    delta: string,
    channel: "text" | "thinking",
  ): SessionEventBody {
    const payload: ContentDelta = {
      context_id: this.id,
      message_id: messageId,
      sequence: 0,
      delta,
      channel,
      is_final: false,
    };
    return { name: "content_delta", payload };
  }

  contentFinalEvent(messageId: string): SessionEventBody {
    const payload: ContentFinal = {
      context_id: this.id,
      message_id: messageId,
      sequence: 0,
      is_final: true,
    };
    return { name: "content_final", payload };
  }

  /** created + completed updates for a new message (status `complete` or the message's own). */
  messageEvents(
    message: ContextMessage,
    branchId: string,
    state: ContextState,
    options: { announced?: boolean } = {},
  ): SessionEventBody[] {
    const status = this.contextUpdateEvent(state, undefined, {
      kind: "status_changed",
      message_id: message.id,
      status: message.status,
    });
    const completed = this.contextUpdateEvent(state, undefined, {
      kind: "completed",
      message_id: message.id,
    });
    // a streamed answer was announced when its stream began: now its final status
    if (options.announced) {
      return message.status === "complete" ? [status, completed] : [status];
    }
    const created = this.contextUpdateEvent(state, undefined, {
      kind: "created",
      message_id: message.id,
      message_type: message.body.message_type,
      role: message.role,
      branch_id: branchId,
    });
    return [created, message.status === "complete" ? completed : status];
  }

  /** A streamed answer's first events: `created` (as text, on the active branch), streaming. */
  announceEvents(messageId: string, state: ContextState): SessionEventBody[] {
    return [
      this.contextUpdateEvent(state, undefined, {
        kind: "created",
        message_id: messageId,
        message_type: "text",
        role: "assistant",
        branch_id: this.activeBranchId,
      }),
      this.contextUpdateEvent(state, undefined, {
        kind: "status_changed",
        message_id: messageId,
        status: "streaming",
      }),
    ];
  }

  /** Whether `states` can be walked from the (projected) state (table, invariants, mode). */
  checkChain(states: readonly ContextState[]): string | undefined {
    const probe = this.#newMachine(this.projectedState);
    for (const next of states) {
      const result = probe.transition(next);
      if (!result.ok) return result.error.message;
    }
    return undefined;
  }

  /**
   * Writes `change` atomically, then applies it in memory and emits its events. Throws
   * OperationRejected("invalid_transition") before writing when the state chain is not allowed,
   * and StorageFailure when the store refuses the write (nothing applied then).
   */
  async commit(change: Change): Promise<SessionEvent[]> {
    const states = change.states ?? [];
    if (change.reset === undefined && states.length > 0) {
      const problem = this.checkChain(states);
      if (problem) throw new OperationRejected("invalid_transition", problem);
    }
    const finalState = change.reset ?? states.at(-1);
    const bodies = change.events ?? [];
    const write: SessionWrite = { ...change.write, events: bodies };
    if (finalState !== undefined || change.write?.session !== undefined) {
      write.session = { ...change.write?.session, ...(finalState ? { state: finalState } : {}) };
    }
    // Writes are stored and applied one at a time, in the order they were asked for: a write from
    // outside the running operation (a message queued while the agent works, message-queue.ts)
    // must not interleave with the run's, or listeners would see sequences out of order.
    const previous = this.#writing;
    let done = (): void => undefined;
    this.#writing = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#pendingWrites++;
    if (finalState !== undefined) this.#inFlight = finalState;
    let stored: StoredEvent[];
    try {
      await previous;
      // several instances: refused if another instance stored events since this view was read
      // (the lease makes that a bug, not a race; the store guards it anyway)
      if (this.deps.coordinator !== undefined) write.expected_last_sequence = this.lastSequence;
      stored = (await this.deps.store.write(this.id, write)).events;
    } catch (error) {
      throw new StorageFailure(error);
    } finally {
      if (--this.#pendingWrites === 0) this.#inFlight = undefined;
      done();
    }
    this.#apply(change);
    for (const event of stored) this.lastSequence = Math.max(this.lastSequence, event.sequence);
    // other instances' watchers read the new events from the database (stored-events.ts)
    if (stored.length > 0) this.deps.coordinator?.notifyEvents(this.id, this.lastSequence, stored);
    const events = bodies.map((body, i) => withSequence(body, stored[i]?.sequence ?? 0));
    for (const event of events) this.#emit(event);
    return events;
  }

  #apply(change: Change): void {
    const write = change.write ?? {};
    for (const message of write.messages ?? []) this.pool.add(message);
    for (const update of write.message_updates ?? []) this.pool.updateLifecycle(update);
    for (const branch of write.branches ?? [])
      this.branches.set(branch.id, structuredClone(branch));
    for (const append of write.branch_appends ?? []) {
      const branch = this.branches.get(append.branch_id);
      if (branch) {
        branch.message_ids.push(...append.message_ids);
        branch.updated_at = this.nowIso();
      }
    }
    for (const id of write.deleted_branch_ids ?? []) this.branches.delete(id);
    this.views.push(...(write.optimization_views ?? []));
    const session = write.session;
    if (session?.title !== undefined) this.title = session.title;
    if (session?.active_branch_id !== undefined) this.activeBranchId = session.active_branch_id;
    if (session?.pending_merges !== undefined) {
      this.pendingMerges.clear();
      for (const merge of session.pending_merges) this.pendingMerges.set(merge.merge_id, merge);
    }
    if (session?.config !== undefined) {
      this.config = session.config;
      this.toolRegistry = extendedRegistry(this, toToolRegistry(this.deps.tools(this.config)));
      this.workspace = this.config.workspace ? new Workspace(this.config.workspace) : undefined;
    }
    if (change.reset !== undefined) this.machine.reset(change.reset);
    else for (const next of change.states ?? []) this.machine.transition(next);
  }

  #emit(event: SessionEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.deps.logger.error("session event listener failed", { error: String(error) });
      }
    }
  }
}

/** The stored form of an event body: deltas and finals carry their sequence in the payload too. */
export function withSequence(body: SessionEventBody, sequence: number): SessionEvent {
  switch (body.name) {
    case "content_delta":
      return { name: body.name, payload: { ...body.payload, sequence }, sequence };
    case "content_final":
      return { name: body.name, payload: { ...body.payload, sequence }, sequence };
    case "context_update":
    case "error":
    case "fold_started":
    case "fold_budget_warning":
    case "fold_returned":
    case "fold_tool":
    case "tool_progress":
    case "parallel_started":
    case "candidate_delta":
    case "candidate_tool":
    case "candidate_finished":
    case "parallel_verdict":
    case "subagent_update":
      return { ...body, sequence };
    default:
      return body satisfies never;
  }
}

// ---- why an operation stopped early (the operation runner turns each into one `error` event) ----

export type ErrorCode = ErrorEvent["code"];

/** store.write failed: nothing of that write was applied; the in-memory state is what is stored. */
export class StorageFailure extends Error {
  constructor(cause: unknown) {
    super(`storage failure: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StorageFailure";
  }
}

/** A request the session refuses before changing anything (bad input, wrong state). */
export class OperationRejected extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "OperationRejected";
    this.code = code;
  }
}
