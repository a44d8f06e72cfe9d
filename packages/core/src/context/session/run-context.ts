import type { AgentMessage } from "../../model/llm-messages.js";
import type { ContextMessage, ToolCallRequest } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { Change, SessionCore } from "./session-core.js";

// The shared state of one run (see run-driver.ts) and its serial persistence. The loop's sink
// must not block, so every step is queued on one promise chain (`serial`) and committed through
// SessionCore.commit in order; hooks that decide something wait for the chain first (`drain`),
// so their decisions are made on the stored state. The run's event handlers (run-events.ts),
// hooks (run-hooks.ts) and end (run-finish.ts) all work on one RunContext.

export interface Streaming {
  messageId: string;
  chunks: number;
  chars: number;
  deltas: number;
  /** the streamed text so far: a failed answer's final message carries no content */
  text: string;
}

export interface RoundCall {
  requestId: string;
  call: ToolCallRequest;
}

export type LlmError = {
  code: "llm_connection" | "llm_stream_interrupted" | "llm_error" | "context_overflow";
  message: string;
};

export type NoticeKind = "notice" | "interrupted" | "auto_loop_limit";

export class RunContext {
  readonly core: SessionCore;
  readonly controller = new AbortController();
  /** the tool names the model is offered in this run; a call of any other is never run */
  readonly offered: ReadonlySet<string>;
  /** the prompts this run was started with (the loop echoes them; they are stored already) */
  readonly prompts = new Set<AgentMessage>();
  failure: Error | undefined;
  interruptRequested = false;
  timedOut = false;
  limitReached = false;
  /** a present_plan / ask_question round: the run stops once its messages are stored */
  stopAfterRound: "plan" | "question" | undefined;
  llmError: LlmError | undefined;
  depth = 0;
  toolsExecuted = 0;
  streaming: Streaming | undefined;
  /** streamed chunks waiting for their (batched) write; see RunDriver's group commit */
  readonly pendingChunks: Array<
    { type: "text" | "thinking"; delta: string } | { type: "toolCall" }
  > = [];
  readonly round = new Map<string, RoundCall>();
  roundIndex = 0;
  roundTotal = 0;
  timer: ReturnType<typeof setTimeout> | undefined;
  loopId = "";
  #chain: Promise<void>;
  /** tasks queued on the chain and not finished */
  #queued = 0;
  /** state moves held for the run's next commit (see `hold`) */
  #held: ContextState[] = [];

  /**
   * `stored`: the write of the run's new message, when it is still in flight (send-message.ts):
   * every step of the run is stored after it, and if it fails the run fails before storing
   * anything. The model request does not wait for it.
   */
  constructor(core: SessionCore, offered: Iterable<string>, stored?: Promise<void>) {
    this.core = core;
    this.offered = new Set(offered);
    this.#chain = (stored ?? Promise.resolve()).catch((error: unknown) => this.fail(error));
  }

  serial(task: () => Promise<void>): Promise<void> {
    this.#queued++;
    const next = this.#chain.then(async () => {
      try {
        if (this.failure) return;
        await task();
      } catch (error) {
        this.fail(error);
      } finally {
        this.#queued--;
      }
    });
    this.#chain = next;
    return next;
  }

  /**
   * Resolves once every queued step is stored. With none queued it does not wait for the new
   * message's write (nothing decided from the chain depends on it), so the first model request
   * goes out while that write is in flight.
   */
  drain(): Promise<void> {
    return this.#queued === 0 ? Promise.resolve() : this.#chain;
  }

  /** Resolves once everything, the new message's write included, is stored (or has failed). */
  settle(): Promise<void> {
    return this.#chain;
  }

  fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.controller.abort();
  }

  /** The state the session is in once the held moves are stored. */
  get state(): ContextState {
    return this.#held.at(-1) ?? this.core.projectedState;
  }

  /**
   * Holds a state move instead of storing it at once: the run's next commit stores it first, with
   * its context_update, in the same write; if no commit comes before the next turn of the event
   * loop, the held moves are stored on their own then. For moves that follow each other at once
   * (the request is prepared, the connection opens, the first chunk is awaited), so the model
   * request neither waits for their writes nor competes with one write each. Returns false (and
   * holds nothing) when the table refuses the move.
   */
  hold(state: ContextState): boolean {
    const problem = this.core.checkChain([...this.#held, state]);
    if (problem) {
      this.core.deps.logger.warn("not holding a state move the table refuses", { problem });
      return false;
    }
    this.#held.push(state);
    if (this.#held.length === 1) {
      setImmediate(() => void this.serial(() => this.storeHeld()));
    }
    return true;
  }

  /** Commits a change, after the held moves; once interrupting, state moves other than to a
   * resting state are dropped (the rows are still stored: partial results are kept). A move the
   * table refuses is logged and skipped so the session stays consistent. */
  async commit(change: Change): Promise<void> {
    let states = change.states ?? [];
    const held = this.#held;
    this.#held = [];
    // held moves go first when the chain allows them; a run that ends before its request was
    // made (interrupted, failed) may not pass through them, and then they are dropped
    if (held.length > 0 && this.core.checkChain([...held, ...states]) === undefined) {
      states = [...held, ...states];
    }
    if (this.core.state.type === "Interrupting") {
      states = states.filter(
        (s) => s.type === "Paused" || s.type === "Idle" || s.type === "Failed",
      );
    }
    const problem = states.length > 0 ? this.core.checkChain(states) : undefined;
    if (problem) {
      this.core.deps.logger.warn("skipping a state move the table refuses", { problem });
      states = [];
    }
    const events = [...(change.events ?? [])];
    // the first event of a move is its context_update; rebuild them for the states kept
    const moveEvents = this.#moveEvents(states);
    await this.core.commit({ ...change, states, events: [...moveEvents, ...events] });
  }

  /** Stores the held moves on their own, if a commit has not taken them yet. */
  async storeHeld(): Promise<void> {
    if (this.#held.length > 0) await this.commit({});
  }

  /** The held moves and their context_updates, for a write that builds its own events (onDeltas). */
  takeHeld(): { states: ContextState[]; events: SessionEventBody[] } {
    const states = this.#held;
    this.#held = [];
    return { states, events: this.#moveEvents(states) };
  }

  #moveEvents(states: readonly ContextState[]) {
    let previous = this.core.state;
    return states.map((next) => {
      const event = this.core.update(next, previous);
      previous = next;
      return event;
    });
  }

  move(state: ContextState, change: Omit<Change, "states"> = {}): Promise<void> {
    return this.commit({ ...change, states: [state] });
  }

  /** New messages on the active branch, with their created/completed events, in one write. */
  store(
    messages: ContextMessage[],
    states: ContextState[] = [],
    extra: Change["events"] = [],
  ): Promise<void> {
    const branchId = this.core.activeBranchId;
    const after = states.at(-1) ?? this.core.state;
    return this.commit({
      states,
      write: {
        messages,
        branch_appends: [{ branch_id: branchId, message_ids: messages.map((m) => m.id) }],
      },
      events: [...extra, ...messages.flatMap((m) => this.core.messageEvents(m, branchId, after))],
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
