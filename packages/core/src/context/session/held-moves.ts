import type { ContextState } from "../../model/states.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { StoredSession } from "./stored-session.js";

/**
 * State moves that follow each other at once are not stored one write each: they are held, with
 * their context_updates built when they happen, and stored together with the next write (or on
 * their own by `flush`), with the same state sequence and events. The one module for it, used
 * where a message is processed (ProcessingUserMessage → … → OptimizingContext land in the write
 * that stores the processed message, or in the rollback) and where a run prepares its model
 * request (PreparingLLMRequest → ConnectingToLLM → AwaitingLLMFirstChunk land in the write of the
 * first chunk, so the request neither waits for them nor competes with one write each). Each move
 * is checked against the transition table when it is held.
 */
export class HeldMoves {
  readonly #core: StoredSession;
  #states: ContextState[] = [];
  #events: SessionEventBody[] = [];

  constructor(core: StoredSession) {
    this.#core = core;
  }

  /** The state the session is in once the held moves (and a write in flight) are stored. */
  get current(): ContextState {
    return this.#states.at(-1) ?? this.#core.projectedState;
  }

  get states(): readonly ContextState[] {
    return this.#states;
  }

  /** Holds a move; returns why the table refuses it (and holds nothing) when it does. */
  hold(next: ContextState, metadata: Record<string, unknown> = {}): string | undefined {
    const problem = this.#core.checkChain([...this.#states, next]);
    if (problem !== undefined) return problem;
    this.#events.push(this.#core.contextUpdateEvent(next, this.current, undefined, metadata));
    this.#states.push(next);
    return undefined;
  }

  /** The held moves and their context_updates, for a write that stores them; holds none after. */
  take(): { states: ContextState[]; events: SessionEventBody[] } {
    const taken = { states: this.#states, events: this.#events };
    this.#states = [];
    this.#events = [];
    return taken;
  }

  /** Stores the held moves on their own (before another write that must follow them). */
  async flush(): Promise<void> {
    const moves = this.take();
    if (moves.states.length > 0) await this.#core.commit(moves);
  }
}
