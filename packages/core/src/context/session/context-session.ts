import type { Branch } from "../../model/branch.js";
import type { MergeDecision, PendingMerge } from "../../model/merge-types.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { AgentMode, SessionConfig } from "../../model/session-config.js";
import type { ContextState } from "../../model/states.js";
import type { SessionEvent } from "../../protocol/events.js";
import type { ApprovalDecision, MessagePayload } from "../../protocol/requests.js";
import type { OptimizationView } from "../../store/types.js";
import {
  type ListWorkspaceFilesOptions,
  listWorkspaceFiles,
} from "../../tools/builtin/workspace-files.js";
import { BranchOpError } from "../branches/errors.js";
import type { TransitionRecord } from "../state-machine.js";
import {
  createBranchOp,
  deleteBranchOp,
  forkForEditOp,
  type MergeInput,
  mergeOp,
  resolveMergeOp,
  switchBranchOp,
} from "./branch-operations.js";
import { Channel, OperationQueue } from "./channel.js";
import {
  applyConfig,
  approvePlanOp,
  decideToolCallsOp,
  renameSession,
  type SessionConfigPatch,
} from "./config-operations.js";
import { replayEvents } from "./event-replay.js";
import { type MessageMatch, searchMessages } from "./message-search.js";
import {
  messageFromPayload,
  processMessage,
  respond,
  runWorkflow,
  turnSetup,
} from "./send-message.js";
import { RESTING_STATES, type SessionCore } from "./session-core.js";
import { OperationRejected, StorageFailure } from "./session-errors.js";
import {
  branchRecords,
  currentView,
  optimizationMetadata,
  optimizationWrite,
  optimizeActiveBranch,
} from "./session-optimization.js";

// ContextSession: the one owner of a conversation's lifecycle. Callers use one method per
// operation; each returns that operation's events (with their store sequences) as an
// AsyncIterable, and nothing outside mutates the session.
//
// Concurrency: operations are queued per session and never interleave. A sendMessage while
// another operation runs waits its turn (interactive clients should interrupt first if they want
// the running one to stop). The operation starts at once, whether or not its events are read.
// Two calls are NOT queued: `interrupt()` acts on the running operation, and `events()` only reads.
//
// Errors end an operation with one `error` event. Errors that change the state (a failed model
// call → Failed, a failing processor → rollback) are stored with that change; refusals that change
// nothing (invalid_request, invalid_transition) and storage failures (which could not be stored)
// have sequence 0.

export interface MessagesView {
  view: "full" | "optimized";
  messages: ContextMessage[];
  /** the branch's optimization records: what each summary replaced (for "show" in the UI) */
  optimizations: OptimizationView[];
}

export class ContextSession {
  readonly #core: SessionCore;
  readonly #queue = new OperationQueue();
  readonly #pendingMerges = new Map<string, PendingMerge>();
  #operationAbort: AbortController | undefined;
  /** set by SessionManager.delete before it waits: no operation is accepted any more */
  #deleting = false;
  /** the last sequence before the running operation's first event; undefined when none runs */
  #operationFrom: number | undefined;

  constructor(core: SessionCore) {
    this.#core = core;
  }

  get id(): string {
    return this.#core.id;
  }
  get title(): string {
    return this.#core.title;
  }
  get state(): ContextState {
    return this.#core.state;
  }
  get config(): SessionConfig {
    return structuredClone(this.#core.config);
  }
  get branches(): Branch[] {
    return structuredClone([...this.#core.branches.values()]);
  }
  get activeBranchId(): string {
    return this.#core.activeBranchId;
  }
  /** the state machine's transitions, oldest first */
  get transitions(): readonly TransitionRecord[] {
    return this.#core.machine.history;
  }
  get pendingMerges(): PendingMerge[] {
    return structuredClone([...this.#pendingMerges.values()]);
  }
  /** the newest stored event's sequence (0: none yet) */
  get lastSequence(): number {
    return this.#core.lastSequence;
  }
  /**
   * Where a reconnecting client should replay from: just before the running operation's first
   * event (so it sees that whole operation again), or lastSequence when none runs.
   */
  get resumeFromSequence(): number {
    return this.#operationFrom ?? this.#core.lastSequence;
  }
  /** The workspace's files for a picker (see listWorkspaceFiles); none without a workspace. */
  async listFiles(options: ListWorkspaceFilesOptions = {}): Promise<string[]> {
    const workspace = this.#core.workspace;
    return workspace ? listWorkspaceFiles(workspace.root, options) : [];
  }
  /**
   * True once a delete has begun (SessionManager.delete): every operation started from then on is
   * refused before it is queued, and the web layer answers 409 (issue #9: a message posted during
   * a DELETE was answered 200 and then lost).
   */
  get deleting(): boolean {
    return this.#deleting;
  }
  /** Marks the session as being deleted (false: the delete failed, the session is usable again). */
  setDeleting(deleting: boolean): void {
    this.#deleting = deleting;
  }
  /** resolves once every queued operation has finished */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  messages(options: { branchId?: string; view?: "full" | "optimized" } = {}): MessagesView {
    const branchId = options.branchId ?? this.#core.activeBranchId;
    const view = options.view ?? "full";
    return {
      view,
      messages:
        view === "full" ? this.#core.branchMessages(branchId) : currentView(this.#core, branchId),
      optimizations: structuredClone(branchRecords(this.#core, branchId)),
    };
  }

  /**
   * The stored events after `afterSequence`, then the live ones as they happen, with no gap and
   * no duplicate (an SSE reconnect with Last-Event-ID). Ends when the consumer stops (break).
   */
  events(afterSequence = 0): AsyncIterable<SessionEvent> {
    // past the end, the replay would skip every live event up to that sequence (issue #9)
    if (
      !Number.isSafeInteger(afterSequence) ||
      afterSequence < 0 ||
      afterSequence > this.#core.lastSequence
    ) {
      throw new RangeError(
        `afterSequence must be an integer from 0 to ${this.#core.lastSequence}, got ${afterSequence}`,
      );
    }
    return replayEvents(this.#core, afterSequence);
  }

  // ---- operations -------------------------------------------------------------------------

  /**
   * `clientMetadata` is stored on the user's message (the workflow's tool_request) and returned
   * with it; it is never sent to the model.
   */
  sendMessage(
    payload: MessagePayload,
    options: { signal?: AbortSignal; clientMetadata?: Record<string, unknown> } = {},
  ): AsyncIterable<SessionEvent> {
    const extra = options.clientMetadata ? { client_metadata: options.clientMetadata } : {};
    return this.#operation(async (signal) => {
      const core = this.#core;
      if (core.state.type === "AwaitingToolApproval") {
        throw new OperationRejected("invalid_transition", "decide the pending tool calls first");
      }
      if (!RESTING_STATES.has(core.state.type)) {
        throw new OperationRejected(
          "invalid_transition",
          `cannot send a message in ${core.state.type}`,
        );
      }
      switch (payload.type) {
        case "workflow": {
          await runWorkflow(core, payload, signal, extra);
          return;
        }
        case "tool_result":
          throw new OperationRejected(
            "invalid_request",
            "tool_result payloads answer client-side tools, which this session does not offer; use decideToolCalls",
          );
        case "text":
        case "file_reference": {
          const message = { ...messageFromPayload(core, payload), ...extra };
          const setup = await processMessage(core, message, { signal });
          if (!setup) return;
          await respond(core, setup, {
            prompt: message,
            signal,
          });
          return;
        }
        default:
          return payload satisfies never;
      }
    }, options.signal);
  }

  /**
   * Records the user's decisions on pending tool calls (durable: they are stored on the
   * tool_request) and, once none is pending, continues the loop. `remember` on an approval adds
   * the tool to the white list (see approval-policy.ts `rememberTool`).
   */
  decideToolCalls(decisions: readonly ApprovalDecision[]): AsyncIterable<SessionEvent> {
    return this.#operation((signal) => decideToolCallsOp(this.#core, decisions, signal));
  }

  /**
   * Interrupts the running operation at once: a running tool's signal is aborted and its call
   * ends as cancelled (an error result) without waiting for it, a streaming answer is cut (kept as
   * an incomplete message), nothing further runs; the state ends Paused{interrupted}. Before the
   * loop starts, the store write of the user's message is the boundary: interrupted while the
   * pipeline runs, the operation rolls back cleanly (state as before, message not stored, no
   * error); interrupted after the message was stored, it ends Paused{interrupted} with the
   * message kept, and `resume` sends it (see send-message.ts `processMessage`). Not queued.
   * Yields the events from now until the running operation has ended (none when idle).
   */
  interrupt(): AsyncIterable<SessionEvent> {
    const channel = new Channel<SessionEvent>(() => unsubscribe());
    const unsubscribe = this.#core.subscribe((event) => channel.push(event));
    if (this.#queue.size === 0) {
      unsubscribe();
      channel.end();
      return channel;
    }
    this.#operationAbort?.abort();
    void this.#queue.idle().then(() => {
      unsubscribe();
      channel.end();
    });
    return channel;
  }

  /**
   * Continues a paused run by hand (after an interrupt or the auto-loop limit), or one that failed
   * recoverably (a restart cut it off, a model call failed): the loop goes on from where it stood.
   */
  resume(): AsyncIterable<SessionEvent> {
    return this.#operation(async (signal) => {
      const core = this.#core;
      const state = core.state;
      if (state.type !== "Paused" && !(state.type === "Failed" && state.recoverable)) {
        throw new OperationRejected(
          "invalid_transition",
          state.type === "Failed"
            ? "the failure is not recoverable: send a new message"
            : `nothing is paused (state ${state.type})`,
        );
      }
      const last = core.lastMessage();
      if (state.type === "Failed" && last?.body.message_type === "tool_request") {
        // calls without results after a failure may have run in part: never run them again
        // blindly (recovery stores a result for every call it finds cut off)
        throw new OperationRejected(
          "invalid_transition",
          "the last tool calls have no results; send a new message instead",
        );
      }
      const finished =
        last === undefined || (last.role === "assistant" && last.body.message_type === "text");
      if (finished) {
        await core.commit({
          states: [{ type: "Idle" }],
          events: [core.update({ type: "Idle" }, core.state)],
        });
        return;
      }
      await respond(core, turnSetup(core), { signal });
    });
  }

  switchMode(mode: AgentMode): AsyncIterable<SessionEvent> {
    return this.updateConfig({ agent_mode: mode });
  }

  /** Gives the session a new title (stored; the session list and the header show it). */
  rename(title: string): AsyncIterable<SessionEvent> {
    return this.#operation(() => renameSession(this.#core, title));
  }

  /** The messages of every branch holding every word of `words` (searchWords), oldest first. */
  search(words: readonly string[]): MessageMatch[] {
    return searchMessages(this.#core.pool.values(), words);
  }

  /** Changes the config at once and stores it; a mode change adds a mode_change notice. */
  updateConfig(patch: SessionConfigPatch): AsyncIterable<SessionEvent> {
    return this.#operation(() => applyConfig(this.#core, patch));
  }

  /** "Approve plan and switch to Act": Act mode, then the user's approval, then the loop. */
  approvePlan(planMessageId: string): AsyncIterable<SessionEvent> {
    return this.#operation((signal) => approvePlanOp(this.#core, planMessageId, signal));
  }

  /** Forks the active branch after a message and makes the fork active. */
  createBranch(input: { from_message_id: string; name?: string }): AsyncIterable<SessionEvent> {
    return this.#operation(async () => {
      await createBranchOp(this.#core, input.from_message_id, input.name);
    });
  }

  switchBranch(branchId: string): AsyncIterable<SessionEvent> {
    return this.#operation(() => switchBranchOp(this.#core, branchId));
  }

  deleteBranch(branchId: string): AsyncIterable<SessionEvent> {
    return this.#operation(() => deleteBranchOp(this.#core, branchId));
  }

  /** Edits a text message by forking: a new branch with the edited text, then the model answers. */
  editAndResend(messageId: string, newText: string): AsyncIterable<SessionEvent> {
    return this.#operation(async (signal) => {
      const message = await forkForEditOp(this.#core, messageId, newText);
      const setup = await processMessage(this.#core, message, { stored: true, signal });
      if (!setup) return;
      await respond(this.#core, setup, {
        prompt: message,
        signal,
      });
    });
  }

  merge(input: MergeInput): AsyncIterable<SessionEvent> {
    return this.#operation(async () => {
      await mergeOp(this.#core, this.#pendingMerges, input);
    });
  }

  resolveMerge(mergeId: string, decision: MergeDecision): AsyncIterable<SessionEvent> {
    return this.#operation(async () => {
      await resolveMergeOp(this.#core, this.#pendingMerges, mergeId, decision);
    });
  }

  /** Optimizes the active branch now (even below the trigger); stored messages never change. */
  optimize(): AsyncIterable<SessionEvent> {
    return this.#operation(async (signal) => {
      const core = this.#core;
      if (core.state.type !== "Idle") {
        throw new OperationRejected("invalid_transition", `cannot optimize in ${core.state.type}`);
      }
      const optimizing: ContextState = { type: "OptimizingContext" };
      await core.commit({ states: [optimizing], events: [core.update(optimizing, core.state)] });
      const setup = turnSetup(core);
      const result = await optimizeActiveBranch(core, { ...setup, signal, force: true });
      await core.commit({
        states: [{ type: "Idle" }],
        write: result.changed ? optimizationWrite(result) : {},
        events: [
          core.update({ type: "Idle" }, optimizing, undefined, {
            changed: result.changed,
            ...optimizationMetadata(result),
          }),
        ],
      });
    });
  }

  // ---- the operation runner ---------------------------------------------------------------

  #operation(
    run: (signal: AbortSignal) => Promise<void>,
    callerSignal?: AbortSignal,
  ): AsyncIterable<SessionEvent> {
    const channel = new Channel<SessionEvent>();
    if (this.#deleting) {
      // checked when the operation is started, not when it runs: nothing is queued behind a delete
      channel.push({
        name: "error",
        sequence: 0,
        payload: {
          context_id: this.#core.id,
          code: "invalid_transition",
          message: `session ${this.#core.id} is being deleted`,
          recoverable: false,
        },
      });
      channel.end();
      return channel;
    }
    void this.#queue.enqueue(async () => {
      const unsubscribe = this.#core.subscribe((event) => channel.push(event));
      const abort = new AbortController();
      this.#operationAbort = abort;
      this.#operationFrom = this.#core.lastSequence;
      const onCallerAbort = (): void => abort.abort();
      callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
      if (callerSignal?.aborted) abort.abort();
      try {
        await run(abort.signal);
      } catch (error) {
        await this.#onOperationError(error);
      } finally {
        this.#operationAbort = undefined;
        this.#operationFrom = undefined;
        callerSignal?.removeEventListener("abort", onCallerAbort);
        unsubscribe();
        channel.end();
      }
    });
    return channel;
  }

  async #onOperationError(error: unknown): Promise<void> {
    const core = this.#core;
    if (error instanceof OperationRejected) {
      core.emitUnsequenced(core.errorBody(error.code, error.message, true));
    } else if (error instanceof BranchOpError) {
      core.emitUnsequenced(core.errorBody("invalid_request", error.message, true));
    } else if (error instanceof StorageFailure) {
      core.deps.logger.error("session storage failure", { session: core.id, error: error.message });
      core.emitUnsequenced(core.errorBody("storage", error.message, true));
    } else {
      const message = error instanceof Error ? error.message : String(error);
      core.deps.logger.error("session operation failed", { session: core.id, error: message });
      core.emitUnsequenced(core.errorBody("internal", message, false));
    }
    if (RESTING_STATES.has(core.state.type)) return;
    // an operation that stopped half-way: move to a resting state if the store lets us
    const failed: ContextState = {
      type: "Failed",
      error: error instanceof Error ? error.message : String(error),
      recoverable: true,
    };
    try {
      await core.commit({ reset: failed, events: [core.update(failed, core.state)] });
    } catch (settleError) {
      core.deps.logger.error("could not store the Failed state after an error", {
        session: core.id,
        error: String(settleError),
      });
    }
  }
}
