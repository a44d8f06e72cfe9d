import { EventStream } from "../../agent/event-stream.js";
import type { Branch } from "../../model/branch.js";
import type { MergeDecision } from "../../model/merge-types.js";
import type { ContextMessage, MessageDelivery } from "../../model/message-types.js";
import type { AgentMode, SessionConfig } from "../../model/session-config.js";
import type { SessionEvent } from "../../protocol/events.js";
import type { ParallelMessageRequest } from "../../protocol/parallel.js";
import type { ApprovalDecision, MessagePayload } from "../../protocol/requests.js";
import type { ForwardedOperation } from "../../store/coordination.js";
import type { OptimizationView } from "../../store/types.js";
import { AfterOperation } from "./after-operation.js";
import {
  type BranchPatch,
  createBranchOp,
  deleteBranchOp,
  forkForEditOp,
  forkForRegenerateOp,
  type MergeInput,
  type MergeReport,
  mergeOp,
  resolveMergeOp,
  switchBranchOp,
  updateBranchOp,
} from "./branch-operations.js";
import type { Operation } from "./channel.js";
import {
  applyConfig,
  approvePlanOp,
  decideToolCallsOp,
  renameSession,
  type SessionConfigPatch,
} from "./config-operations.js";
import {
  type ForwardedAnswer,
  forwardedAnswer,
  InstanceForwarding,
} from "./instance-forwarding.js";
import { decideNested, decidesNested } from "./nested-decisions.js";
import { type ActsFor, byOf, type CoreRef, OperationRunner } from "./operation-runner.js";
import type { ParallelAskResult } from "./parallel-answers.js";
import type { ParallelChoice } from "./parallel-choice.js";
import { chooseParallelAnswerOp } from "./parallel-choice.js";
import type { RunResult } from "./run-driver.js";
import { SessionViews } from "./session-views.js";
import type { StoredSession } from "./stored-session.js";
import {
  answerOnForkOp,
  askParallelFromRest,
  type ForkContinuation,
  optimizeNowOp,
  resumeOp,
  sendOp,
} from "./turn-operations.js";

export type { ActsFor } from "./operation-runner.js";
export type { MessagesView, PayloadProblem } from "./session-views.js";

// Session: the one owner of a conversation's lifecycle. Callers use one method per
// operation; each returns an Operation: its events (with their store sequences) as an
// AsyncIterable, and its typed result. Nothing outside mutates the session.
//
// Concurrency: operations are queued per session and never interleave. A sendMessage while
// another operation runs waits its turn (interactive clients should interrupt first if they want
// the running one to stop). The operation starts at once, whether or not its events are read.
// Two calls are NOT queued: `interrupt()` acts on the running operation, and `events()` only reads.
//
// Errors end an operation with one `error` event (and a result that is not ok, with that error).
// Errors that change the state (a failed model call → Failed, a failing processor → rollback) are
// stored with that change; refusals that change nothing (invalid_request, invalid_transition) and
// storage failures (which could not be stored) have sequence 0.
//
// The class is a facade (docs/decisions/0067): each method names the operation and hands it to
// the part that owns it —
//   operation-runner.ts     the queue, the abort signal, the operator, errors → a resting state
//   after-operation.ts      the chores once an operation ended: the next queued message, the
//                           title, the optimization made ahead; storing a message sent meanwhile
//   instance-forwarding.ts  several instances only (deps.coordinator): the lease, forwarding to
//                           the instance that runs the session, its interrupt. Absent otherwise,
//                           so a single process never passes through it
//   turn-operations.ts      the bodies of send / resume / answer-on-fork / ask-N-ways / optimize
//   nested-decisions.ts     decisions on calls held inside the running operation
//   session-views.ts        the read side (SessionViews, which Session extends): state, messages,
//                           context usage, events, search, folds, a payload's problem

export class Session extends SessionViews {
  readonly #runner: OperationRunner;
  readonly #after: AfterOperation;
  /** several instances only (deps.coordinator); undefined in a single process */
  readonly #instances: InstanceForwarding | undefined;

  constructor(core: StoredSession, reload?: () => Promise<StoredSession | undefined>) {
    const ref: CoreRef = { core };
    super(ref);
    const coordinator = core.deps.coordinator;
    const reported = (error: unknown) => this.#runner.reportedError(error);
    this.#instances = coordinator
      ? new InstanceForwarding(ref, coordinator, reload, reported)
      : undefined;
    const instances = this.#instances;
    this.#runner = new OperationRunner(ref, {
      ...(instances ? { lease: () => instances.lease() } : {}),
      after: () => this.#after.run(),
    });
    this.#after = new AfterOperation(ref, this.#runner);
  }

  get #core(): StoredSession {
    return this.ref.core;
  }

  /**
   * Where a reconnecting client should replay from: just before the running operation's first
   * event (so it sees that whole operation again), or lastSequence when none runs.
   */
  get resumeFromSequence(): number {
    return this.#runner.operationFrom ?? this.#core.lastSequence;
  }
  /**
   * True once a delete has begun (SessionManager.delete): every operation started from then on is
   * refused before it is queued, and the web layer answers 409 (issue #9: a message posted during
   * a DELETE was answered 200 and then lost).
   */
  get deleting(): boolean {
    return this.#runner.deleting;
  }
  /** Marks the session as being deleted (false: the delete failed, the session is usable again). */
  setDeleting(deleting: boolean): void {
    this.#runner.deleting = deleting;
    if (deleting) this.#core.ahead?.controller.abort();
  }
  /**
   * resolves once every queued operation has finished, the runs queued messages start included,
   * and an optimization made ahead after the last answer is stored
   */
  async idle(): Promise<void> {
    do {
      await this.#runner.idle();
      await this.#after.ahead;
    } while (this.#runner.active > 0);
  }
  /** operations of this instance started and not finished (queued or running) */
  get operationsHere(): number {
    return this.#runner.active;
  }
  /**
   * Nothing runs, waits or listens here: no operation (queued or running), no optimization made
   * ahead still running, no open event stream, not being deleted, and the session rests in Idle.
   * The manager may then drop it from its cache (SessionDeps.idleSessionMs): it is read again from
   * the store on its next use, with nothing lost.
   */
  get atRest(): boolean {
    return (
      this.#runner.active === 0 &&
      !this.#runner.deleting &&
      this.#after.ahead === undefined &&
      this.#core.state.type === "Idle" &&
      this.#core.listenerCount === 0
    );
  }
  /**
   * The agent is working: an operation runs (or waits its turn), or the run waits for a tool
   * approval. A text message sent now is queued (sendMessage).
   */
  get working(): boolean {
    return this.#runner.active > 0 || this.#core.state.type === "AwaitingToolApproval";
  }

  // ---- operations -------------------------------------------------------------------------

  /**
   * `clientMetadata` is stored on the user's message (the workflow's tool_request) and returned
   * with it; it is never sent to the model.
   *
   * While the agent works (an operation runs, or the run waits for a tool approval) a `text`
   * message is not queued behind the operation: it is stored at once as `queued` and delivered by
   * the run (`delivery`, default steer; see message-queue.ts). Its stream then holds the `queued`
   * update only. Other payloads wait for the running operation to end, as before.
   */
  sendMessage(
    payload: MessagePayload,
    options: {
      signal?: AbortSignal;
      clientMetadata?: Record<string, unknown>;
      delivery?: MessageDelivery;
    } & ActsFor = {},
  ): Operation<RunResult> {
    const extra = options.clientMetadata ? { client_metadata: options.clientMetadata } : {};
    const delivery = options.delivery ?? "steer";
    const by = byOf(options);
    if (payload.type === "text" && this.working) {
      return this.#after.queueMessage(payload, delivery, extra, by);
    }
    const send = () =>
      this.#runner.operation((signal) => sendOp(this.#core, payload, extra, signal), options);
    if (payload.type !== "text" || !this.#runningElsewhere()) return send();
    const operation: ForwardedOperation = {
      kind: "queue",
      payload,
      delivery,
      ...extra,
      ...(by !== null ? { by } : {}),
    };
    return this.#forwardTo(operation, send);
  }

  /**
   * Records the user's decisions on pending tool calls (durable: they are stored on the
   * tool_request) and, once none is pending, continues the loop. `remember` on an approval adds
   * the tool to the white list (see approval-policy.ts `rememberTool`).
   */
  decideToolCalls(
    decisions: readonly ApprovalDecision[],
    options: ActsFor = {},
  ): Operation<RunResult> {
    const by = byOf(options);
    const nested = this.#core.nestedApprovals;
    if (decidesNested(nested, decisions)) return this.#decideNested(decisions, by);
    const decide = () =>
      this.#runner.operation((signal) => decideToolCallsOp(this.#core, decisions, signal), options);
    if (!this.#runningElsewhere()) return decide();
    const forwarded: ForwardedOperation = {
      kind: "decide",
      decisions: [...decisions],
      ...(by !== null ? { by } : {}),
    };
    return this.#forwardTo(forwarded, decide);
  }

  /**
   * A ForwardedOperation (store/coordination.ts) this instance was handed because it runs the
   * session: run as if it had come here, when it belongs to the running operation (the calls wait
   * here, the agent still works). Its events and outcome as the answer to send back; `handled`
   * false when it does not belong here (then it did not run).
   */
  async runForwarded(operation: ForwardedOperation): Promise<ForwardedAnswer> {
    const by = operation.by ?? null;
    let run: Operation<RunResult> | undefined;
    if (operation.kind === "decide") {
      if (decidesNested(this.#core.nestedApprovals, operation.decisions)) {
        run = this.#decideNested(operation.decisions, by);
      }
    } else if (this.working) {
      const extra = operation.client_metadata ? { client_metadata: operation.client_metadata } : {};
      run = this.#after.queueMessage(operation.payload, operation.delivery, extra, by);
    }
    if (run === undefined) return { handled: false, sequences: [], errors: [] };
    return forwardedAnswer(run);
  }

  /** Several instances: another instance may be running an operation in this session. */
  #runningElsewhere(): boolean {
    return this.#instances?.runningElsewhere(this.#runner.active) ?? false;
  }

  /** Hands `operation` to the instance running the session (instance-forwarding.ts). */
  #forwardTo(
    operation: ForwardedOperation,
    ordinary: () => Operation<RunResult>,
  ): Operation<RunResult> {
    return this.#instances ? this.#instances.forward(operation, ordinary) : ordinary();
  }

  /**
   * Decisions for calls that wait inside the running operation (nested-decisions.ts): handed over
   * at once, not queued behind the operation, which waits for them.
   */
  #decideNested(decisions: readonly ApprovalDecision[], by: ActsFor["by"]): Operation<RunResult> {
    return decideNested(this.#core, this.#core.nestedApprovals, decisions, by ?? null, (error) =>
      this.#runner.reportedError(error),
    );
  }

  /**
   * Ask N ways (issue #14, parallel-ask.ts): the text goes through the pipeline and is stored on
   * the active branch, then N candidates answer it at once and the request's strategy chooses.
   * The chosen answer continues the active branch; every other one is kept on a branch of its own.
   */
  askParallel(
    request: ParallelMessageRequest,
    options: { signal?: AbortSignal } & ActsFor = {},
  ): Operation<ParallelAskResult> {
    return this.#runner.operation(
      (signal) => askParallelFromRest(this.#core, request, signal),
      options,
    );
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
   * Several instances: nothing runs here, so the interrupt goes to the instance running it.
   */
  interrupt(): AsyncIterable<SessionEvent> {
    const instances = this.#instances;
    if (this.#runner.queued === 0 && instances !== undefined && !instances.holdsLease) {
      return instances.interrupt();
    }
    const channel = new EventStream<SessionEvent>(() => unsubscribe());
    const unsubscribe = this.#core.subscribe((event) => channel.push(event));
    if (this.#runner.queued === 0) {
      unsubscribe();
      channel.end();
      return channel;
    }
    this.#runner.abortRunning();
    void this.#runner.idle().then(() => {
      unsubscribe();
      channel.end();
    });
    return channel;
  }

  /**
   * Continues a paused run by hand (after an interrupt or the auto-loop limit), or one that failed
   * recoverably (a restart cut it off, a model call failed): the loop goes on from where it stood.
   */
  resume(options: ActsFor = {}): Operation<RunResult> {
    return this.#runner.operation((signal) => resumeOp(this.#core, signal), options);
  }

  /** Resolves with the session's new config. */
  switchMode(mode: AgentMode): Operation<SessionConfig> {
    return this.updateConfig({ agent_mode: mode });
  }

  /** Gives the session a new title (stored; the session list and the header show it). */
  rename(title: string): Operation<void> {
    return this.#runner.operation(() => renameSession(this.#core, title));
  }

  /** Changes the config at once and stores it; a mode change adds a mode_change notice. */
  updateConfig(patch: SessionConfigPatch): Operation<SessionConfig> {
    return this.#runner.operation(() => applyConfig(this.#core, patch));
  }

  /** "Approve plan and switch to Act": Act mode, then the user's approval, then the loop. */
  approvePlan(planMessageId: string, options: ActsFor = {}): Operation<RunResult> {
    return this.#runner.operation(
      (signal) => approvePlanOp(this.#core, planMessageId, signal),
      options,
    );
  }

  /** Forks the active branch after a message and makes the fork active; resolves with the fork. */
  createBranch(input: { from_message_id: string; name?: string }): Operation<Branch> {
    return this.#runner.operation(async () =>
      structuredClone(await createBranchOp(this.#core, input.from_message_id, input.name)),
    );
  }

  switchBranch(branchId: string): Operation<void> {
    return this.#runner.operation(() => switchBranchOp(this.#core, branchId));
  }

  /**
   * Renames a branch or sets / clears its own system prompt and pipeline (see updateBranchOp);
   * the other branches are untouched.
   */
  updateBranch(branchId: string, patch: BranchPatch): Operation<Branch> {
    return this.#runner.operation(() => updateBranchOp(this.#core, branchId, patch));
  }

  deleteBranch(branchId: string): Operation<void> {
    return this.#runner.operation(() => deleteBranchOp(this.#core, branchId));
  }

  /**
   * Ask N ways, after the verdict: takes another candidate's answer (parallel-choice.ts). The
   * active branch goes on with it; the answer chosen before moves to that candidate's branch.
   */
  chooseParallelAnswer(groupId: string, candidate: number): Operation<ParallelChoice> {
    return this.#runner.operation(() => chooseParallelAnswerOp(this.#core, groupId, candidate));
  }

  /**
   * Edits a text message by forking: a new branch with the edited text, then the model answers as
   * a `branch` continuation of the loop that answered the original message.
   */
  editAndResend(messageId: string, newText: string, options: ActsFor = {}): Operation<RunResult> {
    return this.#answerOnFork(
      () => forkForEditOp(this.#core, messageId, newText),
      { type: "branch", answered: () => messageId },
      options,
    );
  }

  /**
   * Regenerate: a new branch (made active) ending at the user's message that `messageId`
   * answers, and the model's new answer on it, a `rerun` continuation of the loop that answered
   * it first. The earlier answer stays on its own branch, so the two are versions of one place a
   * client can switch between.
   */
  regenerate(messageId: string, options: ActsFor = {}): Operation<RunResult> {
    return this.#answerOnFork(
      () => forkForRegenerateOp(this.#core, messageId),
      { type: "rerun", answered: (prompt) => prompt.id },
      options,
    );
  }

  #answerOnFork(
    fork: () => Promise<ContextMessage>,
    continuation: ForkContinuation,
    options: ActsFor,
  ): Operation<RunResult> {
    return this.#runner.operation(
      (signal) => answerOnForkOp(this.#core, fork, continuation, signal),
      options,
    );
  }

  merge(input: MergeInput): Operation<MergeReport> {
    return this.#runner.operation(() => mergeOp(this.#core, input));
  }

  resolveMerge(mergeId: string, decision: MergeDecision): Operation<MergeReport> {
    return this.#runner.operation(() => resolveMergeOp(this.#core, mergeId, decision));
  }

  /**
   * Optimizes the active branch now (even below the trigger; "Optimize now"); stored messages
   * never change. Resolves with whether the optimized view changed, and the stored record.
   */
  optimize(): Operation<{ changed: boolean; optimization: OptimizationView | null }> {
    return this.#runner.operation((signal) => optimizeNowOp(this.#core, signal));
  }
}
