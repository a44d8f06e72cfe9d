import type { AgentMessage } from "../../model/llm-messages.js";
import type {
  ContextMessage,
  ToolCallPreview,
  ToolCallRequest,
} from "../../model/message-types.js";
import type { ContextState, StateOf } from "../../model/states.js";
import type { SubAgentUpdate } from "../../protocol/events.js";
import { HeldMoves } from "./held-moves.js";
import { RunSteering } from "./message-queue.js";
import { type Change, RESTING_STATES, type StoredSession } from "./stored-session.js";

// The shared state of one run (see run-driver.ts) and its writes. The agent loop awaits its sink
// and its hooks, so the run's writes are ordered by the loop itself: each event is stored before
// the loop takes its next step, and a hook decides on what is stored. Three writes are made
// without the loop waiting for them, so the model request and a fast stream are not slowed by
// the store: the new message's write (started before the run), the request's held moves (stored
// while the request goes out) and the batches of streamed chunks (a group commit). They are
// "behind" the loop: each runs after the previous one, and every other write waits for them.

export interface Streaming {
  messageId: string;
  chunks: number;
  chars: number;
  deltas: number;
  /** the streamed text so far: a failed answer's final message carries no content */
  text: string;
  /**
   * its `created` (and `status_changed` to streaming) went out with the first chunk, so storing
   * it sends only its final status (stored-session.ts messageEvents)
   */
  announced?: boolean;
}

export interface RoundCall {
  requestId: string;
  call: ToolCallRequest;
}

export type LlmError = {
  code: "llm_connection" | "llm_stream_interrupted" | "llm_error" | "context_overflow";
  message: string;
};

/**
 * Why a run stopped; where the session rests follows from it alone (run-driver.ts `finishRun`).
 * No value: the loop is still going, or it ran out of work ("completed").
 */
export type RunStop =
  /** the loop ended on its own: an answer without tool calls, or its own execution limit */
  | { type: "completed" }
  /**
   * the approval gate deferred calls: the session waits in `waiting` (the calls before the first
   * deferred one ran first: loop.ts runToolRound)
   */
  | { type: "awaiting_approval"; waiting: StateOf<"AwaitingToolApproval"> }
  /** a present_plan / ask_question round: the run ends once that round's rows are stored */
  | { type: "awaiting_user" }
  /** the user interrupted: Interrupting → Paused{interrupted} with a notice */
  | { type: "interrupted" }
  /** one auto-loop iteration took longer than auto_loop_iteration_timeout_ms */
  | { type: "timed_out"; timeoutMs: number }
  /** the approval policy's depth limit: Paused{auto_loop_limit} with a notice */
  | { type: "auto_loop_limit" }
  /** the model call failed (or there is no model to call): Failed{recoverable} with its error */
  | { type: "model_failed"; error: LlmError }
  /** a write failed or the session refused a step: the operation ends with this error */
  | { type: "failed"; error: Error };

export type NoticeKind = "notice" | "interrupted" | "auto_loop_limit";

export class RunContext {
  readonly core: StoredSession;
  readonly controller = new AbortController();
  /** the tool names the model is offered in this run; a call of any other is never run */
  readonly offered: ReadonlySet<string>;
  /** the offered tools that only read (category "read"): approve_read_only lets them run */
  readOnly: ReadonlySet<string> = new Set();
  /** what an offered tool says a call will do (its approval card's `preview`; tools' describeCall) */
  describeCall: (
    name: string,
    args: Record<string, unknown>,
  ) => Promise<ToolCallPreview | undefined> = async () => undefined;
  /** the prompts this run was started with (the loop echoes them; they are stored already) */
  readonly prompts = new Set<AgentMessage>();
  /** the moves held for the run's next write (see HeldMoves) */
  readonly held: HeldMoves;
  /** the run's side of the queue of messages sent while it works (message-queue.ts) */
  readonly steering: RunSteering;
  depth = 0;
  toolsExecuted = 0;
  /** the tools run so far, each once, in the order they first ran (ToolAutoLoop.tool_names) */
  readonly toolNamesExecuted = new Set<string>();
  streaming: Streaming | undefined;
  /** streamed chunks waiting for their (batched) write; see run-events.ts */
  readonly pendingChunks: Array<
    { type: "text" | "thinking"; delta: string } | { type: "toolCall" }
  > = [];
  readonly round = new Map<string, RoundCall>();
  /** the latest progress of each running call whose tool_progress write is queued (coalesced) */
  readonly pendingProgress = new Map<string, { toolName: string; text: string }>();
  roundIndex = 0;
  roundTotal = 0;
  timer: ReturnType<typeof setTimeout> | undefined;
  loopId = "";
  /** the child loops of the sub-agent calls running now, by tool call id (run-events.ts) */
  readonly subAgentLoops = new Map<string, string>();
  /** sub-agent text chunks waiting for their (batched) write, like pendingChunks (run-events.ts) */
  readonly pendingSubAgentText: Array<Extract<SubAgentUpdate, { kind: "text" }>> = [];
  #stop: RunStop | undefined;
  /** the writes the loop did not wait for, in order (see the top of this file) */
  #behind: Promise<void>;

  /**
   * `stored`: the write of the run's new message, when it is still in flight (send-message.ts):
   * every write of the run comes after it, and if it fails the run fails before storing
   * anything. The model request does not wait for it.
   */
  constructor(
    core: StoredSession,
    offered: Iterable<string>,
    stored?: Promise<void>,
    promptId?: string,
  ) {
    this.core = core;
    this.offered = new Set(offered);
    this.held = new HeldMoves(core);
    this.steering = new RunSteering(core, () => this.controller.signal.aborted, promptId);
    this.#behind = (stored ?? Promise.resolve()).catch((error: unknown) => this.fail(error));
  }

  /** Why the run stopped; undefined while it goes on. */
  get stop(): RunStop | undefined {
    return this.#stop;
  }

  /**
   * Sets why the run stops. The first reason wins (an interrupt after the gate deferred calls
   * does not turn them into an interrupt); the one exception is a failure, which replaces any
   * other: nothing after a failed write can be trusted to be stored. Returns whether it was set.
   */
  stopWith(stop: RunStop): boolean {
    // a failure overrides any other stop; an interrupt overrides a wait for approval, since the
    // calls before the held one may still be running (loop.ts runToolRound) and must be cut
    const overrides =
      (stop.type === "failed" && this.#stop?.type !== "failed") ||
      (stop.type === "interrupted" && this.#stop?.type === "awaiting_approval");
    if (this.#stop !== undefined && !overrides) return false;
    this.#stop = stop;
    return true;
  }

  fail(error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (this.stopWith({ type: "failed", error: failure })) this.controller.abort();
  }

  get failed(): boolean {
    return this.#stop?.type === "failed";
  }

  /** The state the session is in once the held moves are stored. */
  get state(): ContextState {
    return this.held.current;
  }

  /** Holds a state move for the run's next write; false (logged) when the table refuses it. */
  hold(state: ContextState): boolean {
    const problem = this.held.hold(state);
    if (problem === undefined) return true;
    this.core.deps.logger.warn("not holding a state move the table refuses", { problem });
    return false;
  }

  /**
   * Starts a write the loop does not wait for (held moves before the request, a batch of
   * chunks): it runs after the writes already behind the loop, and the next write waits for it.
   * A failure fails the run.
   */
  writeBehind(write: () => Promise<void>): void {
    this.#behind = this.#behind
      .then(async () => {
        if (!this.failed) await write();
      })
      .catch((error: unknown) => this.fail(error));
  }

  /** Resolves once every write behind the loop is stored (or has failed the run). */
  writesBehindDone(): Promise<void> {
    return this.#behind;
  }

  /**
   * Stores a change after the writes behind the loop and the held moves. Never throws: a failed
   * write fails the run (and aborts it), and nothing is written after that. Once interrupted,
   * the session passes through Interrupting and only a resting state may follow (the rows are
   * still stored: partial results are kept). A move the table refuses is logged and skipped, so
   * the session stays consistent.
   */
  async commit(change: Change): Promise<void> {
    await this.#behind;
    await this.#commitNow(change);
  }

  /** `commit` without waiting for the writes behind the loop (for one of them). */
  async #commitNow(change: Change): Promise<void> {
    if (this.failed) return;
    const core = this.core;
    const held = this.held.take();
    let own = change.states ?? [];
    /** the moves stored before the change's own: the held ones, when the chain allows them */
    let lead: { states: ContextState[]; events: Change["events"] } = { states: [], events: [] };
    if (this.#stop?.type === "interrupted") {
      // the held moves prepared a request that will not be made: dropped
      const interrupting = core.state.type === "Interrupting";
      if (interrupting || core.machine.canTransition({ type: "Interrupting" })) {
        own = [
          ...(interrupting ? [] : [{ type: "Interrupting" } as const]),
          ...own.filter((s) => RESTING_STATES.has(s.type)),
        ];
      }
    } else if (held.states.length > 0 && core.checkChain([...held.states, ...own]) === undefined) {
      lead = held;
    }
    // a run that ends before its request was made may not pass through the held moves: dropped
    if (lead.states.length === 0 && own.length > 0) {
      const problem = core.checkChain(own);
      if (problem) {
        core.deps.logger.warn("skipping a state move the table refuses", { problem });
        own = [];
      }
    }
    const events = [
      ...(lead.events ?? []),
      ...this.#moveEvents(own, lead.states.at(-1)),
      ...(change.events ?? []),
    ];
    const states = [...lead.states, ...own];
    if (states.length === 0 && events.length === 0 && !change.write && !change.reset) return;
    try {
      await core.commit({ ...change, states, events });
    } catch (error) {
      this.fail(error);
    }
  }

  /** Stores the held moves on their own, if a write has not taken them yet. */
  async storeHeld(): Promise<void> {
    await this.#behind;
    if (this.held.states.length > 0) await this.#commitNow({});
  }

  /**
   * Stores the held moves behind the loop, so the model request goes out meanwhile. They wait one
   * turn of the event loop first: an answer that is there at once (its first chunk's batch is
   * queued by then) takes them into its own write instead, one write where there would be two.
   */
  storeHeldBehind(): void {
    if (this.held.states.length === 0) return;
    this.writeBehind(async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.pendingChunks.length > 0 || this.held.states.length === 0) return;
      await this.#commitNow({});
    });
  }

  /** context_updates for `states`, walked from `from` (the held moves' last) or the session's. */
  #moveEvents(states: readonly ContextState[], from: ContextState | undefined) {
    let previous = from ?? this.core.state;
    return states.map((next) => {
      const event = this.core.contextUpdateEvent(next, previous);
      previous = next;
      return event;
    });
  }

  move(state: ContextState, change: Omit<Change, "states"> = {}): Promise<void> {
    return this.commit({ ...change, states: [state] });
  }

  /**
   * New messages on the active branch, with their lifecycle events, in one write. `announced`:
   * the streamed answer among them whose `created` went out when its stream began.
   */
  store(
    messages: ContextMessage[],
    states: ContextState[] = [],
    extra: Change["events"] = [],
    announced?: string,
  ): Promise<void> {
    const branchId = this.core.activeBranchId;
    const after = states.at(-1) ?? this.core.state;
    return this.commit({
      states,
      write: {
        messages,
        branch_appends: [{ branch_id: branchId, message_ids: messages.map((m) => m.id) }],
      },
      events: [
        ...extra,
        ...messages.flatMap((m) =>
          this.core.messageEvents(m, branchId, after, { announced: m.id === announced }),
        ),
      ],
    });
  }

  /**
   * An announced answer that will not be stored (a retried attempt, a failure before any
   * content): its `status_changed` to failed, so a client drops the card it placed.
   */
  dropAnnounced(streaming: Streaming | undefined): Promise<void> {
    if (!streaming?.announced) return Promise.resolve();
    return this.commit({
      events: [
        this.core.contextUpdateEvent(this.core.state, undefined, {
          kind: "status_changed",
          message_id: streaming.messageId,
          status: "failed",
        }),
      ],
    });
  }

  rowContext(id: string) {
    return { id, sessionId: this.core.id, now: this.core.nowIso(), loopId: this.loopId };
  }

  notice(kind: NoticeKind, text: string, data?: Record<string, unknown>): ContextMessage {
    const now = this.core.nowIso();
    return {
      id: this.core.newId(),
      session_id: this.core.id,
      role: "system",
      body: { message_type: "system_control", kind, text, ...(data ? { data } : {}) },
      status: "complete",
      created_at: now,
      completed_at: now,
    };
  }
}
