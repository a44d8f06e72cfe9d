import { EventStream } from "../../agent/event-stream.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import { costOfUsage } from "../../llm/pricing.js";
import type { Branch } from "../../model/branch.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { MergeDecision, PendingMerge } from "../../model/merge-types.js";
import type { ContextMessage, MessageDelivery, MessageType } from "../../model/message-types.js";
import { type PersonRef, personRef } from "../../model/person.js";
import type { AgentMode, SessionConfig } from "../../model/session-config.js";
import type { ContextState } from "../../model/states.js";
import { withUsageCost } from "../../model/usage-cost.js";
import type { SessionEvent, SessionEventBody } from "../../protocol/events.js";
import type { ContextUsage } from "../../protocol/http-responses.js";
import type { ParallelMessageRequest } from "../../protocol/parallel.js";
import type { ApprovalDecision, MessagePayload } from "../../protocol/requests.js";
import {
  busyElsewhereMessage,
  encodeSessionControl,
  type ForwardedOperation,
  MAX_CONTROL_BYTES,
  type SessionControl,
  type SessionCoordinator,
} from "../../store/coordination.js";
import type { MessageLifecycleUpdate, OptimizationView } from "../../store/types.js";
import { activeTraceparent } from "../../telemetry/trace-context.js";
import {
  type ListWorkspaceFilesOptions,
  listWorkspaceFiles,
} from "../../tools/builtin/workspace-files.js";
import { toolDefinition } from "../../tools/tool.js";
import { BranchOpError } from "../branches/errors.js";
import { countRequestTokens, optimizationTarget } from "../optimization/request-tokens.js";
import { modelTitle, shortTitle } from "../session-title.js";
import type { TransitionRecord } from "../state-machine.js";
import { MAX_INSTRUCTION_CHARS, type WorkspaceInstructions } from "../workspace-instructions.js";
import { type RememberedSettings, rememberApproval } from "./approval-policy.js";
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
import {
  type Operation,
  OperationChannel,
  type OperationError,
  OperationQueue,
  type OperationResult,
} from "./channel.js";
import {
  applyConfig,
  approvePlanOp,
  decideToolCallsOp,
  renameSession,
  type SessionConfigPatch,
} from "./config-operations.js";
import { asQueued, queuedMessages, storeQueued } from "./message-queue.js";
import { type MessageMatch, searchMessages } from "./message-search.js";
import type { NestedApprovals } from "./nested-approvals.js";
import type { ParallelAskResult } from "./parallel-answers.js";
import { askParallelOp } from "./parallel-ask.js";
import { chooseParallelAnswerOp, type ParallelChoice } from "./parallel-choice.js";
import { type ParallelRequestProblem, parallelRequestProblem } from "./parallel-config.js";
import { recoverSession } from "./recovery.js";
import type { RunResult } from "./run-driver.js";
import {
  answeringLoopId,
  instructionsFor,
  mcpPromptMessagesOf,
  mcpResourceMessage,
  messageFromPayload,
  processMessage,
  respond,
  runWorkflow,
  storePlainMessages,
  turnSetup,
} from "./send-message.js";
import { type FoldView, listFolds } from "./session-folds.js";
import {
  branchRecords,
  currentView,
  optimizationMetadata,
  optimizationUpdates,
  optimizationWrite,
  optimizeActiveBranch,
  startAhead,
  takeAhead,
} from "./session-optimization.js";
import { followEvents, parseStoredEvent, replayEvents } from "./stored-events.js";
import {
  OperationRejected,
  RESTING_STATES,
  StorageFailure,
  type StoredSession,
} from "./stored-session.js";

// Session: the one owner of a conversation's lifecycle. Callers use one method per
// operation; each returns an Operation: its events (with their store sequences) as an
// AsyncIterable, and its typed result. Nothing outside mutates the session.
//
// Concurrency: operations are queued per session and never interleave. A sendMessage while
// another operation runs waits its turn (interactive clients should interrupt first if they want
// the running one to stop). The operation starts at once, whether or not its events are read.
// Two calls are NOT queued: `interrupt()` acts on the running operation, and `events()` only reads.
//
// Errors end an operation with one `error` event (and a result that is not ok, with that error). Errors that change the state (a failed model
// call → Failed, a failing processor → rollback) are stored with that change; refusals that change
// nothing (invalid_request, invalid_transition) and storage failures (which could not be stored)
// have sequence 0.

/** How long forwarded decisions wait for the owning instance's answer (Session.#decideElsewhere). */
const FORWARD_ANSWER_MS = 3000;

export interface MessagesView {
  view: "full" | "optimized";
  messages: ContextMessage[];
  /** messages sent while the agent worked, not delivered yet, oldest first (message-queue.ts) */
  queued: ContextMessage[];
  /** the branch's optimization records: what each summary replaced (for "show" in the UI) */
  optimizations: OptimizationView[];
}

/**
 * Whom an operation acts for: the person who sends, decides, resumes … (the web app's actor).
 * Recorded as the `decided_by` of the calls it decides and the `startedBy` of the runs it starts;
 * their token budget (SessionDeps.tokenBudget) bounds its model requests. Absent: nobody.
 */
export interface ActsFor {
  by?: PersonRef | null | undefined;
}

function byOf(options: ActsFor): PersonRef | null {
  return options.by ? personRef(options.by) : null;
}

export class Session {
  #core: StoredSession;
  /** reads the session again from the store, without recovery (several instances: see #lease) */
  readonly #reload: (() => Promise<StoredSession | undefined>) | undefined;
  readonly #queue = new OperationQueue();
  #operationAbort: AbortController | undefined;
  /** set by SessionManager.delete before it waits: no operation is accepted any more */
  #deleting = false;
  /** the model was asked for a title (or will not be: offline model, renamed by the user) */
  #titled = false;
  /** a delivery found the queue's head refused or interrupted: no run starts by itself until a
   * new message is queued (see #deliverQueuedIfIdle) */
  #queueHeld = false;
  /**
   * who sent each queued message (by id): the person a run that delivers it acts for. Steered
   * messages are delivered inside a run someone else started; their entries go with the session.
   */
  readonly #queuedBy = new Map<string, PersonRef>();
  /** operations started and not finished (queued or running) */
  #active = 0;
  /** the last sequence before the running operation's first event; undefined when none runs */
  #operationFrom: number | undefined;
  /** an optimization made ahead, until it is stored or dropped (see #optimizeAhead) */
  #ahead: Promise<void> | undefined;

  constructor(core: StoredSession, reload?: () => Promise<StoredSession | undefined>) {
    this.#core = core;
    this.#reload = reload;
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
    return structuredClone([...this.#core.pendingMerges.values()]);
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
   * The workspace instructions the next request would use (AGENTS.md, CLAUDE.md,
   * .arbor/instructions.md; see workspace-instructions.ts), read now; none without a workspace.
   */
  workspaceInstructions(): WorkspaceInstructions {
    return instructionsFor(this.#core) ?? { text: "", files: [], max_chars: MAX_INSTRUCTION_CHARS };
  }
  /**
   * True once a delete has begun (SessionManager.delete): every operation started from then on is
   * refused before it is queued, and the web layer answers 409 (issue #9: a message posted during
   * a DELETE was answered 200 and then lost).
   */
  get deleting(): boolean {
    return this.#deleting;
  }
  /**
   * The server is shutting down (SessionManager.drain sets it for every session of the manager at
   * once): operations started from now on are refused like during a delete, but the running one
   * goes on and nothing is aborted.
   */
  get #draining(): boolean {
    return this.#core.deps.lifecycle.draining;
  }
  /** Marks the session as being deleted (false: the delete failed, the session is usable again). */
  setDeleting(deleting: boolean): void {
    this.#deleting = deleting;
    if (deleting) this.#core.ahead?.controller.abort();
  }
  /**
   * resolves once every queued operation has finished, the runs queued messages start included,
   * and an optimization made ahead after the last answer is stored
   */
  async idle(): Promise<void> {
    do {
      await this.#queue.idle();
      await this.#ahead;
    } while (this.#active > 0);
  }
  /** operations of this instance started and not finished (queued or running) */
  get operationsHere(): number {
    return this.#active;
  }
  /** calls held for a person inside the running operation (a fold's, a sub-agent's, a candidate's) */
  get heldNestedCalls(): number {
    return this.#core.nestedApprovals.size;
  }
  /**
   * The agent is working: an operation runs (or waits its turn), or the run waits for a tool
   * approval. A text message sent now is queued (sendMessage).
   */
  get working(): boolean {
    return this.#active > 0 || this.#core.state.type === "AwaitingToolApproval";
  }

  /**
   * What the active branch's next request would use (issue #15, the usage meter): the fixed part
   * (system prompt and tool definitions) and the optimized view's messages, counted as the
   * optimizer counts them (in the provider's tokens once it has counted: counted_by), with the
   * window's trigger and target.
   */
  contextUsage(): ContextUsage {
    const core = this.#core;
    const setup = turnSetup(core);
    const tokens = countRequestTokens({
      systemPrompt: setup.systemPrompt,
      tools: setup.tools.map(toolDefinition),
      messages: currentView(core),
    });
    const window = core.config.model?.context_window ?? core.deps.model().contextWindow ?? 100_000;
    const { optimization } = core.config;
    // in the provider's tokens where it has told us (token-calibration.ts)
    const scale = (n: number) => core.tokens.scale(n);
    const systemPrompt = scale(tokens.systemPrompt);
    const tools = scale(tokens.tools);
    const messages = scale(tokens.messages);
    return {
      system_prompt: systemPrompt,
      tools,
      fixed: systemPrompt + tools,
      messages,
      total: systemPrompt + tools + messages,
      counted_by: core.tokens.source,
      context_window: window,
      trigger: Math.floor(optimization.trigger_ratio * window),
      target: optimizationTarget(optimization, window),
    };
  }

  /**
   * A branch's messages in order: every one (`full`) or what the model sees (`optimized`); with
   * `types`, only messages of those types ("Retrieving messages by type"), still in order.
   */
  messages(
    options: {
      branchId?: string;
      view?: "full" | "optimized";
      types?: readonly MessageType[];
    } = {},
  ): MessagesView {
    const branchId = options.branchId ?? this.#core.activeBranchId;
    const view = options.view ?? "full";
    const listed =
      view === "full" ? this.#core.branchMessages(branchId) : currentView(this.#core, branchId);
    const types = options.types === undefined ? undefined : new Set(options.types);
    const chosen =
      types === undefined ? listed : listed.filter((m) => types.has(m.body.message_type));
    return {
      view,
      // rows stored before the cost sat beside the tokens get it now (meta.cost_usd, else the
      // price: model/usage-cost.ts); the store keeps the rows as written
      messages: chosen.map((message) => {
        if (message.meta === undefined) return message;
        const meta = withUsageCost(message.meta, costOfUsage);
        return meta === message.meta ? message : { ...message, meta };
      }),
      queued: queuedMessages(this.#core),
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
    const core = this.#core;
    const coordinator = core.deps.coordinator;
    // several instances: the session may run elsewhere, so the watcher follows the database
    if (coordinator) {
      return followEvents(core.deps.store, coordinator, core.id, afterSequence, (error) => ({
        ...core.errorEvent("storage", `cannot read events: ${String(error)}`, true),
        sequence: 0,
      }));
    }
    return replayEvents(core, afterSequence);
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
      return this.#queueMessage(payload, delivery, extra, by);
    }
    const elsewhere = payload.type === "text" ? this.#runningElsewhere() : undefined;
    if (payload.type === "text" && elsewhere !== undefined) {
      const operation: ForwardedOperation = {
        kind: "queue",
        payload,
        delivery,
        ...extra,
        ...(by !== null ? { by } : {}),
      };
      return this.#forward(elsewhere, operation, () => this.#send(payload, options, extra));
    }
    return this.#send(payload, options, extra);
  }

  #send(
    payload: MessagePayload,
    options: { signal?: AbortSignal } & ActsFor,
    extra: Pick<ContextMessage, "client_metadata">,
  ): Operation<RunResult> {
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
        case "workflow":
          return runWorkflow(core, payload, signal, extra);
        case "mcp_prompt": {
          // each of the prompt's messages is its own; the last one is sent like a text message
          const expanded = await mcpPromptMessagesOf(core, payload);
          const last = expanded.at(-1) as ContextMessage;
          if (last.role !== "user") {
            await storePlainMessages(
              core,
              expanded.map((m, i) => (i === expanded.length - 1 ? { ...m, ...extra } : m)),
            );
            return { type: "not_run", reason: "finished" };
          }
          await storePlainMessages(core, expanded.slice(0, -1));
          const message = { ...last, ...extra };
          const setup = await processMessage(core, message, { signal });
          if (!setup) return { type: "not_run", reason: "rolled_back" };
          return respond(core, setup, { prompt: message, signal });
        }
        case "text":
        case "file_reference":
        case "attachment":
        case "mcp_resource": {
          const built =
            payload.type === "mcp_resource"
              ? await mcpResourceMessage(core, payload, signal)
              : messageFromPayload(core, payload);
          const message = { ...built, ...extra };
          const setup = await processMessage(core, message, { signal });
          if (!setup) return { type: "not_run", reason: "rolled_back" };
          return respond(core, setup, { prompt: message, signal });
        }
        default:
          return payload satisfies never;
      }
    }, options);
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
    const id = (d: ApprovalDecision) => d.tool_call_id;
    if (decisions.some((d) => nested.holds(id(d)) || nested.decidedAs(id(d)) !== undefined)) {
      return this.#decideNested(nested, decisions, by);
    }
    const asOperation = () =>
      this.#operation((signal) => decideToolCallsOp(this.#core, decisions, signal), options);
    const elsewhere = this.#runningElsewhere();
    if (elsewhere === undefined) return asOperation();
    const forwarded: ForwardedOperation = {
      kind: "decide",
      decisions: [...decisions],
      ...(by !== null ? { by } : {}),
    };
    return this.#forward(elsewhere, forwarded, asOperation);
  }

  /**
   * Several instances: the coordinator when another instance may be running an operation in this
   * session (none runs here, and the session as last read is not at rest); undefined otherwise.
   */
  #runningElsewhere(): SessionCoordinator | undefined {
    const coordinator = this.#core.deps.coordinator;
    if (coordinator === undefined || this.#active > 0 || coordinator.holds(this.id)) {
      return undefined;
    }
    return RESTING_STATES.has(this.#core.state.type) ? undefined : coordinator;
  }

  /**
   * A ForwardedOperation (store/coordination.ts) this instance was handed because it runs the
   * session: run as if it had come here, when it belongs to the running operation (the calls wait
   * here, the agent still works). Its events and outcome as the answer to send back; `handled`
   * false when it does not belong here (then it did not run).
   */
  async runForwarded(
    operation: ForwardedOperation,
  ): Promise<Omit<Extract<SessionControl, { type: "answer" }>, "type" | "request_id">> {
    const nested = this.#core.nestedApprovals;
    let run: Operation<RunResult> | undefined;
    if (operation.kind === "decide") {
      const id = (d: ApprovalDecision) => d.tool_call_id;
      if (
        operation.decisions.some(
          (d) => nested.holds(id(d)) || nested.decidedAs(id(d)) !== undefined,
        )
      ) {
        run = this.#decideNested(nested, operation.decisions, operation.by ?? null);
      }
    } else if (this.working) {
      const extra = operation.client_metadata ? { client_metadata: operation.client_metadata } : {};
      run = this.#queueMessage(operation.payload, operation.delivery, extra, operation.by ?? null);
    }
    if (run === undefined) return { handled: false, sequences: [], errors: [] };
    const sequences: number[] = [];
    const errors: OperationError[] = [];
    for await (const event of run) {
      if (event.sequence > 0) sequences.push(event.sequence);
      else if (event.name === "error") {
        const { context_id: _id, ...reported } = event.payload;
        errors.push(reported);
      }
    }
    const result = await run.result;
    return { handled: true, sequences, errors, ...(result.ok ? {} : { error: result.error }) };
  }

  /**
   * Several instances: `operation` belongs inside the operation another instance runs (which
   * holds the lease), so it goes there as a control message; the instance running the session
   * runs it (runForwarded), stores its events and answers. This stream then gives those stored
   * events and the errors it reported. When nobody runs the session (an owner died), when the
   * other instance does not take it (it does not belong to its run any more), when it does not
   * answer within FORWARD_ANSWER_MS, or when the message is too long to travel, `ordinary` runs
   * instead: an operation here, refused with 409 while another instance runs the session, and
   * recovering the session when its owner is gone.
   */
  #forward(
    coordinator: SessionCoordinator,
    operation: ForwardedOperation,
    ordinary: () => Operation<RunResult>,
  ): Operation<RunResult> {
    const channel = new OperationChannel<RunResult>();
    const core = this.#core;
    const id = core.id;
    const requestId = core.newId();
    const traceparent = activeTraceparent();
    const control: SessionControl = {
      type: "forward",
      request_id: requestId,
      operation,
      ...(traceparent !== undefined ? { traceparent } : {}),
    };
    const pipe = async (running: Operation<RunResult>): Promise<void> => {
      for await (const event of running) channel.push(event);
      channel.finish(await running.result);
    };
    void (async () => {
      if (new TextEncoder().encode(encodeSessionControl(control)).length > MAX_CONTROL_BYTES) {
        return pipe(ordinary());
      }
      if (await coordinator.tryLease(id)) {
        // nobody runs it: its owner died mid-operation, and the ordinary way recovers it
        await coordinator.release(id);
        return pipe(ordinary());
      }
      const answer = await new Promise<Extract<SessionControl, { type: "answer" }> | undefined>(
        (resolve) => {
          const timer = setTimeout(() => {
            stop();
            resolve(undefined);
          }, FORWARD_ANSWER_MS);
          const stop = coordinator.onControl((sessionId, message) => {
            if (sessionId !== id || message.type !== "answer") return;
            if (message.request_id !== requestId) return;
            clearTimeout(timer);
            stop();
            resolve(message);
          });
          coordinator.sendControl(id, control);
        },
      );
      if (answer === undefined || !answer.handled) return pipe(ordinary());
      // only the answer's own events: read from the first to the last of them
      const wanted = new Set(answer.sequences);
      const first = Math.min(...answer.sequences);
      const span = Math.max(...answer.sequences) - first + 1;
      const rows = wanted.size > 0 ? await core.deps.store.readEvents(id, first - 1, span) : [];
      for (const row of rows) {
        if (!wanted.has(row.sequence)) continue;
        const event = parseStoredEvent(row);
        if (event) channel.push(event);
      }
      for (const reported of answer.errors) {
        channel.push({ name: "error", sequence: 0, payload: { context_id: id, ...reported } });
      }
      const reason = operation.kind === "queue" ? "queued" : "nested_decision";
      channel.finish(
        answer.error === undefined
          ? { ok: true, value: { type: "not_run", reason } }
          : { ok: false, error: answer.error },
      );
    })().catch((error: unknown) => {
      const reported = this.#reportedError(error);
      channel.push({ name: "error", sequence: 0, payload: { context_id: id, ...reported } });
      channel.finish({ ok: false, error: reported });
    });
    return channel;
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
    return this.#operation(async (signal) => {
      const core = this.#core;
      if (!RESTING_STATES.has(core.state.type) || core.state.type === "AwaitingToolApproval") {
        throw new OperationRejected(
          "invalid_transition",
          `cannot ask several ways in ${core.state.type}`,
        );
      }
      const extra = request.client_metadata ? { client_metadata: request.client_metadata } : {};
      const message = { ...messageFromPayload(core, request.payload), ...extra };
      return await askParallelOp(core, request, message, signal);
    }, options);
  }

  /** A candidate or judge model the request names that cannot be used (no key), before storing. */
  parallelProblem(
    request: Pick<ParallelMessageRequest, "candidates" | "judge">,
  ): ParallelRequestProblem | undefined {
    return parallelRequestProblem(this.#core, request);
  }

  /**
   * Decisions for calls that wait inside the running operation (an ask-N-ways candidate's, a
   * fold's: nested-approvals.ts): handed over at once, not queued behind the operation, which
   * waits for them. Each decision stores its call's event (candidate_tool, fold_tool) and, for a
   * fold, the approval on its stored tool_request; `remember` adds the tool to the white list.
   * A call decided before is refused (it runs at most once); calls named here that wait nowhere
   * are refused too; the others are still decided.
   */
  #decideNested(
    nested: NestedApprovals,
    decisions: readonly ApprovalDecision[],
    by: PersonRef | null,
  ): Operation<RunResult> {
    const channel = new OperationChannel<RunResult>();
    const core = this.#core;
    void (async () => {
      const events: SessionEventBody[] = [];
      const updates: MessageLifecycleUpdate[] = [];
      const refused: string[] = [];
      const claimed: ApprovalDecision[] = [];
      const stored: Promise<void>[] = [];
      let remembered: RememberedSettings = {
        approval_policy: core.config.approval_policy,
        allow_rules: core.config.allow_rules,
      };
      for (const d of decisions) {
        const before = nested.decidedAs(d.tool_call_id);
        if (before !== undefined) {
          refused.push(`tool call ${d.tool_call_id} was already ${before}`);
          continue;
        }
        // a nested call's arguments are not at hand: bash remembers nothing, a rule is refused
        const outcome =
          d.decision === "approve"
            ? rememberApproval(
                remembered,
                { name: nested.toolNameOf(d.tool_call_id) ?? "", arguments: undefined },
                d,
              )
            : ({ ok: true, settings: remembered } as const);
        if (!outcome.ok) {
          refused.push(`tool call ${d.tool_call_id}: ${outcome.error}`);
          continue;
        }
        const call = nested.claim(d.tool_call_id, d.decision);
        if (call === undefined) {
          refused.push(`tool call ${d.tool_call_id} is not waiting for approval`);
          continue;
        }
        claimed.push(d);
        const status = d.decision === "approve" ? "approved" : "denied";
        remembered = outcome.settings;
        events.push(call.decisionEvent(status, by));
        const update = call.rowUpdate?.(status, by, d.decision === "deny" ? d.reason : undefined);
        if (update !== undefined) updates.push(update);
        if (call.stored !== undefined) stored.push(call.stored());
      }
      let result: OperationResult<RunResult> = {
        ok: true,
        value: { type: "not_run", reason: "nested_decision" },
      };
      try {
        // the calls' own rows and events first; the decisions are stored before the calls go on
        await Promise.all(stored);
        const changed =
          remembered.approval_policy !== core.config.approval_policy ||
          remembered.allow_rules !== core.config.allow_rules;
        const write = {
          ...(updates.length > 0 ? { message_updates: updates } : {}),
          ...(changed ? { session: { config: { ...core.config, ...remembered } } } : {}),
        };
        const hasWrite = updates.length > 0 || changed;
        for (const event of await core.commit({ events, ...(hasWrite ? { write } : {}) })) {
          channel.push(event);
        }
        for (const d of claimed) {
          nested.decide(
            d.tool_call_id,
            d.decision,
            d.decision === "deny" ? d.reason : undefined,
            by,
          );
        }
      } catch (error) {
        for (const d of claimed) nested.release(d.tool_call_id);
        const reported = this.#reportedError(error);
        channel.push({ name: "error", sequence: 0, payload: { context_id: core.id, ...reported } });
        result = { ok: false, error: reported };
      }
      if (refused.length > 0 && result.ok) {
        const message = refused.join("; ");
        channel.push({
          name: "error",
          sequence: 0,
          payload: { context_id: core.id, code: "invalid_request", message, recoverable: true },
        });
        if (claimed.length === 0) {
          result = { ok: false, error: { code: "invalid_request", message, recoverable: true } };
        }
      }
      channel.finish(result);
    })();
    return channel;
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
    const coordinator = this.#core.deps.coordinator;
    if (this.#queue.size === 0 && coordinator !== undefined && !coordinator.holds(this.id)) {
      return this.#interruptElsewhere(coordinator);
    }
    const channel = new EventStream<SessionEvent>(() => unsubscribe());
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
  resume(options: ActsFor = {}): Operation<RunResult> {
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
          events: [core.contextUpdateEvent({ type: "Idle" }, core.state)],
        });
        return { type: "not_run", reason: "finished" };
      }
      return respond(core, turnSetup(core), { signal });
    }, options);
  }

  /** Resolves with the session's new config. */
  switchMode(mode: AgentMode): Operation<SessionConfig> {
    return this.updateConfig({ agent_mode: mode });
  }

  /** Gives the session a new title (stored; the session list and the header show it). */
  rename(title: string): Operation<void> {
    return this.#operation(() => renameSession(this.#core, title));
  }

  /** The messages of every branch holding every word of `words` (searchWords), oldest first. */
  search(words: readonly string[]): MessageMatch[] {
    return searchMessages(this.#core.pool.values(), words);
  }

  /** The session's folds (context folding), with their steps, in start order. */
  folds(): Promise<FoldView[]> {
    return listFolds(this.#core);
  }

  /** Changes the config at once and stores it; a mode change adds a mode_change notice. */
  updateConfig(patch: SessionConfigPatch): Operation<SessionConfig> {
    return this.#operation(() => applyConfig(this.#core, patch));
  }

  /** "Approve plan and switch to Act": Act mode, then the user's approval, then the loop. */
  approvePlan(planMessageId: string, options: ActsFor = {}): Operation<RunResult> {
    return this.#operation((signal) => approvePlanOp(this.#core, planMessageId, signal), options);
  }

  /** Forks the active branch after a message and makes the fork active; resolves with the fork. */
  createBranch(input: { from_message_id: string; name?: string }): Operation<Branch> {
    return this.#operation(async () =>
      structuredClone(await createBranchOp(this.#core, input.from_message_id, input.name)),
    );
  }

  switchBranch(branchId: string): Operation<void> {
    return this.#operation(() => switchBranchOp(this.#core, branchId));
  }

  /**
   * Renames a branch or sets / clears its own system prompt and pipeline (see updateBranchOp);
   * the other branches are untouched.
   */
  updateBranch(branchId: string, patch: BranchPatch): Operation<Branch> {
    return this.#operation(() => updateBranchOp(this.#core, branchId, patch));
  }

  deleteBranch(branchId: string): Operation<void> {
    return this.#operation(() => deleteBranchOp(this.#core, branchId));
  }

  /**
   * Ask N ways, after the verdict: takes another candidate's answer (parallel-choice.ts). The
   * active branch goes on with it; the answer chosen before moves to that candidate's branch.
   */
  chooseParallelAnswer(groupId: string, candidate: number): Operation<ParallelChoice> {
    return this.#operation(() => chooseParallelAnswerOp(this.#core, groupId, candidate));
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

  /**
   * Forks (the fork ends in a stored user message, made active) and has the model answer it, as
   * a continuation (REQ-180) of the loop that answered `answered` on the branch forked from.
   */
  #answerOnFork(
    fork: () => Promise<ContextMessage>,
    continuation: { type: "rerun" | "branch"; answered: (prompt: ContextMessage) => string },
    options: ActsFor,
  ): Operation<RunResult> {
    return this.#operation(async (signal): Promise<RunResult> => {
      const before = this.#core.branchMessages();
      const message = await fork();
      const setup = await processMessage(this.#core, message, { stored: true, signal });
      if (!setup) return { type: "not_run", reason: "rolled_back" };
      const parentLoopId = answeringLoopId(before, continuation.answered(message));
      return respond(this.#core, setup, {
        prompt: message,
        signal,
        continuation: {
          // the tag is the RFC 3339 time of the call (REQ-180)
          kind: { type: continuation.type, tag: this.#core.nowIso() },
          ...(parentLoopId !== undefined ? { parentLoopId } : {}),
        },
      });
    }, options);
  }

  merge(input: MergeInput): Operation<MergeReport> {
    return this.#operation(() => mergeOp(this.#core, input));
  }

  resolveMerge(mergeId: string, decision: MergeDecision): Operation<MergeReport> {
    return this.#operation(() => resolveMergeOp(this.#core, mergeId, decision));
  }

  /**
   * Optimizes the active branch now (even below the trigger; "Optimize now"); stored messages
   * never change. Resolves with whether the optimized view changed, and the stored record.
   */
  optimize(): Operation<{ changed: boolean; optimization: OptimizationView | null }> {
    return this.#operation(async (signal) => {
      const core = this.#core;
      if (core.state.type !== "Idle") {
        throw new OperationRejected("invalid_transition", `cannot optimize in ${core.state.type}`);
      }
      const optimizing: ContextState = { type: "OptimizingContext" };
      await core.commit({
        states: [optimizing],
        events: [core.contextUpdateEvent(optimizing, core.state)],
      });
      const setup = turnSetup(core);
      const step = await optimizeActiveBranch(core, { ...setup, signal, force: true });
      const last = step.stored.at(-1) ?? step.result;
      // the updates of an optimization taken over from ahead come first, then the move to Idle
      // with this one's figures
      const earlier =
        step.stored.length > 1
          ? optimizationUpdates(core, { ...step, stored: step.stored.slice(0, -1) })
          : [];
      await core.commit({
        states: [{ type: "Idle" }],
        write: optimizationWrite(step),
        events: [
          ...earlier,
          core.contextUpdateEvent({ type: "Idle" }, optimizing, undefined, {
            changed: step.stored.length > 0,
            ...optimizationMetadata(last, last === step.taken),
          }),
        ],
      });
      const stored = step.stored.at(-1);
      return {
        changed: stored !== undefined,
        optimization: stored ? structuredClone(stored.record) : null,
      };
    });
  }

  /**
   * Several instances: the run is on the lease holder, so the interrupt goes there (a control
   * message every instance hears) and this stream follows the stored events until the session
   * rests. Nothing runs anywhere (no lease held): it ends at once, like a local interrupt.
   */
  #interruptElsewhere(coordinator: SessionCoordinator): AsyncIterable<SessionEvent> {
    const core = this.#core;
    const id = core.id;
    const from = core.lastSequence;
    // a stream that is closed once it has seen a resting state (or nothing runs anywhere)
    const out = new EventStream<SessionEvent>(() => void source[Symbol.asyncIterator]().return?.());
    const source = followEvents(core.deps.store, coordinator, id, from, (error) => ({
      ...core.errorEvent("storage", `cannot read events: ${String(error)}`, true),
      sequence: 0,
    }));
    void (async () => {
      if (await coordinator.tryLease(id)) {
        await coordinator.release(id);
        out.end();
        return;
      }
      coordinator.sendControl(id, { type: "interrupt" });
      for await (const event of source) {
        out.push(event);
        if (
          event.name === "context_update" &&
          RESTING_STATES.has(event.payload.current_state.type)
        ) {
          core.machine.reset(event.payload.current_state);
          break;
        }
        if (out.ended) break;
      }
      out.end();
    })().catch(() => out.end());
    return out;
  }

  /**
   * Several instances (store/coordination.ts): an operation runs only under the session's lease.
   * Refused (409) while another instance holds it. Once taken, a session another instance has
   * changed since it was read is read again, and one left mid-operation by an instance that died
   * (its lease freed with its connection) is recovered first: only now is "busy elsewhere" told
   * apart from "crashed".
   */
  async #lease(coordinator: SessionCoordinator): Promise<void> {
    const id = this.#core.id;
    if (!(await coordinator.tryLease(id))) throw new BusyElsewhere(busyElsewhereMessage(id));
    try {
      const newer = await this.#core.deps.store.readEvents(id, this.#core.lastSequence, 1);
      if (newer.length > 0 || !RESTING_STATES.has(this.#core.state.type)) {
        const fresh = await this.#reload?.();
        if (fresh === undefined)
          throw new OperationRejected("invalid_request", `session ${id} is gone`);
        this.#core = fresh;
      }
      if (!RESTING_STATES.has(this.#core.state.type)) await recoverSession(this.#core);
    } catch (error) {
      await coordinator.release(id);
      throw error;
    }
  }

  // ---- the operation runner ---------------------------------------------------------------

  #operation<R>(
    run: (signal: AbortSignal) => Promise<R>,
    options: { signal?: AbortSignal | undefined } & ActsFor = {},
  ): Operation<R> {
    const callerSignal = options.signal;
    const by = byOf(options);
    const channel = new OperationChannel<R>();
    // checked when the operation is started, not when it runs: nothing is queued behind a delete
    if (this.#deleting || this.#draining) return this.#refusedWhileDeleting(channel);
    this.#active++;
    void this.#queue.enqueue(async () => {
      const coordinator = this.#core.deps.coordinator;
      let leased = false;
      let refused: unknown;
      if (coordinator) {
        try {
          await this.#lease(coordinator);
          leased = true;
        } catch (error) {
          refused = error;
        }
      }
      const unsubscribe = this.#core.subscribe((event) => channel.push(event));
      const abort = new AbortController();
      this.#operationAbort = abort;
      this.#operationFrom = this.#core.lastSequence;
      const onCallerAbort = (): void => abort.abort();
      callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
      if (callerSignal?.aborted) abort.abort();
      let result: OperationResult<R>;
      this.#core.operator = by;
      try {
        if (refused !== undefined) throw refused;
        result = { ok: true, value: await run(abort.signal) };
      } catch (error) {
        result = { ok: false, error: await this.#onOperationError(error) };
      } finally {
        this.#core.operator = null;
        this.#operationAbort = undefined;
        this.#operationFrom = undefined;
        callerSignal?.removeEventListener("abort", onCallerAbort);
        unsubscribe();
        // counted down before the stream ends: a client that sends right after the stream
        // ended finds the session not working
        this.#active--;
      }
      if (leased) {
        await coordinator?.release(this.#core.id).catch((error: unknown) =>
          this.#core.deps.logger.warn("could not release the session's lease", {
            session: this.#core.id,
            error: String(error),
          }),
        );
      }
      channel.finish(result);
      this.#deliverQueuedIfIdle();
      this.#titleAfterFirstAnswer();
      this.#optimizeAhead();
    });
    return channel;
  }

  /**
   * After an answer, while the user reads it: when the next request would pass the optimization
   * trigger, optimize now rather than when the user sends the next message (issue #15: summaries
   * off the critical path). The result is stored by an operation of its own once it is ready, or
   * taken over by the next message's optimization if that comes first (takeAhead). Never while
   * an operation runs or waits: it only starts from Idle with nothing queued.
   */
  #optimizeAhead(): void {
    const core = this.#core;
    if (!core.deps.optimizeAhead || this.#deleting || this.#active > 0) return;
    if (core.state.type !== "Idle" || core.ahead !== undefined || queuedMessages(core).length > 0)
      return;
    let ahead: ReturnType<typeof startAhead>;
    try {
      ahead = startAhead(core, turnSetup(core));
    } catch (error) {
      core.deps.logger.warn("could not optimize ahead", {
        session: core.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    const done = ahead.result.then(async (result) => {
      // nothing to store, or the next message came first and will take it over
      if (result === undefined || this.#active > 0 || this.#deleting) return;
      await this.#operation(async () => {
        if (core.state.type !== "Idle") return;
        const taken = await takeAhead(core);
        if (taken === undefined) return;
        const step = { stored: [taken], taken };
        await core.commit({
          write: optimizationWrite(step),
          events: optimizationUpdates(core, step),
        });
      }).result;
    });
    const tracked: Promise<void> = done.finally(() => {
      if (this.#ahead === tracked) this.#ahead = undefined;
    });
    this.#ahead = tracked;
  }

  /**
   * After the first answer, a real model gives the session a title (session-title.ts), off the
   * critical path: the request runs beside whatever comes next, and the rename is an operation
   * of its own that keeps a title the user gave meanwhile. The offline model's title is the one
   * taken from the first message.
   */
  #titleAfterFirstAnswer(): void {
    const core = this.#core;
    if (this.#titled || this.#deleting || core.deps.titles !== "model") return;
    const branch = core.branchMessages();
    const question = branch.find((m) => m.role === "user");
    const answer = branch.find(
      (m) => m.role === "assistant" && m.body.message_type === "text" && m.status === "complete",
    );
    if (question?.body.message_type !== "text" || answer?.body.message_type !== "text") return;
    this.#titled = true;
    const automatic = shortTitle(question.body.text);
    if (core.title !== automatic) return;
    let model: ModelConfig;
    try {
      model = core.config.model
        ? sessionModelConfig(core.deps.model(), core.config.model, core.deps.modelEnv())
        : core.deps.model();
    } catch {
      return;
    }
    if (model.protocol === "offline") return;
    const ask = { provider: core.deps.provider, model, question: question.body.text };
    void modelTitle({ ...ask, answer: answer.body.text }, AbortSignal.timeout(30_000)).then(
      (title) => {
        this.#operation(async () => {
          if (core.title === automatic && !this.#deleting) await renameSession(core, title);
        });
      },
      (error: unknown) =>
        core.deps.logger.warn("the model did not title the session", {
          session: core.id,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  }

  #refusedWhileDeleting<R>(channel: OperationChannel<R>): OperationChannel<R> {
    const error: OperationError = {
      code: "invalid_transition",
      message: this.#deleting
        ? `session ${this.#core.id} is being deleted`
        : "this instance is shutting down; retry (another instance answers)",
      recoverable: !this.#deleting,
    };
    channel.push({ name: "error", sequence: 0, payload: { context_id: this.#core.id, ...error } });
    channel.finish({ ok: false, error });
    return channel;
  }

  // ---- messages sent while the agent works (message-queue.ts) -------------------------------

  /** Stores a text message as queued, at once (not behind the running operation). */
  #queueMessage(
    payload: MessagePayload,
    delivery: MessageDelivery,
    extra: Pick<ContextMessage, "client_metadata">,
    by: PersonRef | null,
  ): Operation<RunResult> {
    const channel = new OperationChannel<RunResult>();
    const core = this.#core;
    if (this.#deleting || this.#draining) return this.#refusedWhileDeleting(channel);
    void (async () => {
      let result: OperationResult<RunResult>;
      try {
        const message = asQueued({ ...messageFromPayload(core, payload), ...extra }, delivery);
        for (const event of await storeQueued(core, message)) channel.push(event);
        if (by !== null) this.#queuedBy.set(message.id, by);
        this.#queueHeld = false;
        result = { ok: true, value: { type: "not_run", reason: "queued" } };
      } catch (error) {
        // reported like an operation's error, but the running operation's state is left alone
        const reported = this.#reportedError(error);
        channel.push({
          name: "error",
          sequence: 0,
          payload: { context_id: core.id, ...reported, recoverable: true },
        });
        result = { ok: false, error: { ...reported, recoverable: true } };
      }
      channel.finish(result);
      // the run may have ended while the message was being stored
      this.#deliverQueuedIfIdle();
    })();
    return channel;
  }

  /**
   * Once nothing runs and the session rests in Idle, the oldest queued message starts the next
   * run (a follow-up, or a steer message that found no turn boundary). A run that rests anywhere
   * else (Paused, Failed, waiting for an approval or an answer) keeps the queue: resume, a
   * decision or a new message delivers it.
   */
  #deliverQueuedIfIdle(): void {
    const core = this.#core;
    if (this.#deleting || this.#queueHeld || this.#active > 0) return;
    if (core.state.type !== "Idle" || queuedMessages(core).length === 0) return;
    void this.#operation(
      async (signal) => {
        const next = queuedMessages(core)[0];
        if (core.state.type !== "Idle" || next === undefined) return;
        this.#queuedBy.delete(next.id);
        const setup = await processMessage(core, next, { queued: true, signal });
        if (!setup) {
          // interrupted or refused by a processor: no new run starts by itself until the user
          // sends another message (the queue is kept)
          this.#queueHeld = true;
          return;
        }
        await respond(core, setup, { prompt: next, signal });
      },
      { by: this.#queuedBy.get(queuedMessages(core)[0]?.id ?? "") ?? null },
    );
  }

  /** Reports `error` as the operation's one `error` event and rests the session; returns it. */
  async #onOperationError(error: unknown): Promise<OperationError> {
    const core = this.#core;
    const reported = this.#reportedError(error);
    core.emitUnsequenced(core.errorEvent(reported.code, reported.message, reported.recoverable));
    // another instance runs it: its state is that instance's to change
    if (error instanceof BusyElsewhere) return reported;
    if (RESTING_STATES.has(core.state.type)) return reported;
    // an operation that stopped half-way: move to a resting state if the store lets us
    const failed: ContextState = {
      type: "Failed",
      error: error instanceof Error ? error.message : String(error),
      recoverable: true,
    };
    try {
      await core.commit({ reset: failed, events: [core.contextUpdateEvent(failed, core.state)] });
    } catch (restError) {
      core.deps.logger.error("could not store the Failed state after an error", {
        session: core.id,
        error: String(restError),
      });
    }
    return reported;
  }

  #reportedError(error: unknown): OperationError {
    const core = this.#core;
    if (error instanceof OperationRejected) {
      return { code: error.code, message: error.message, recoverable: true };
    }
    if (error instanceof BranchOpError) {
      return { code: "invalid_request", message: error.message, recoverable: true };
    }
    if (error instanceof StorageFailure) {
      core.deps.logger.error("session storage failure", { session: core.id, error: error.message });
      return { code: "storage", message: error.message, recoverable: true };
    }
    const message = error instanceof Error ? error.message : String(error);
    core.deps.logger.error("session operation failed", { session: core.id, error: message });
    return { code: "internal", message, recoverable: false };
  }
}

/** Another instance holds the session's lease: refused (409) without touching the session. */
class BusyElsewhere extends OperationRejected {
  constructor(message: string) {
    super("invalid_transition", message);
    this.name = "BusyElsewhere";
  }
}
