import type { PersonRef } from "../../model/person.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { MessageLifecycleUpdate } from "../../store/types.js";

// The tool calls that wait for a person inside a running operation: an "ask N ways" candidate's
// (parallel-ask.ts) and a fold's (run-folds.ts). Such a call awaits its decision here while the
// operation goes on; Session.decideToolCalls hands the decisions over at once instead of queueing
// them behind the running operation (which would wait for itself). Each waiting call says what its
// decision stores: the event (candidate_tool, fold_tool) and, where the call's approval lives on a
// stored row (a fold's tool_request), that row's update. A decided call is remembered, so a second
// decision for it is refused with a clear error instead of waiting behind the operation.

export type NestedDecision = "approve" | "deny";
export type NestedStatus = "approved" | "denied";
/**
 * What a waiting call is handed: the decision, and a denial's reason when the person gave one
 * (the child's model receives it as a top-level call's model does: deniedResultText).
 */
export type NestedVerdict = { decision: "approve" } | { decision: "deny"; reason?: string };

const DENIED: NestedVerdict = { decision: "deny" };

/** A call that waits here: whose it is and what its decision stores. */
export interface NestedCall {
  toolName: string;
  /** the decision's event (its stream and the session's log show it) */
  decisionEvent: (status: NestedStatus, by: PersonRef | null) => SessionEventBody;
  /** the update of the stored row that holds the call's approval (with a denial's reason), if any */
  rowUpdate?: (
    status: NestedStatus,
    by: PersonRef | null,
    reason: string | undefined,
  ) => MessageLifecycleUpdate | undefined;
  /** resolves once the call's own row and event are stored: its decision is stored after them */
  stored?: () => Promise<void>;
  /** an abort denied the call (no person decided): the waiter stores what that means */
  cancelled?: () => void;
}

/** how many decided calls are remembered (for refusing a second decision) */
const REMEMBERED = 1000;

export class NestedApprovals {
  readonly #waiting = new Map<
    string,
    { call: NestedCall; resolve: (verdict: NestedVerdict) => void }
  >();
  readonly #decided = new Map<string, NestedStatus>();
  /** who decided each remembered call (the call's span names them: telemetry/) */
  readonly #deciders = new Map<string, PersonRef>();

  /** true when `toolCallId` waits for a decision here */
  holds(toolCallId: string): boolean {
    return this.#waiting.has(toolCallId);
  }

  /** how a call that waited here was decided; undefined when it never waited or is waiting */
  decidedAs(toolCallId: string): NestedStatus | undefined {
    return this.#decided.get(toolCallId);
  }

  /** the tool of a call that waits here; undefined when none waits under that id */
  toolNameOf(toolCallId: string): string | undefined {
    return this.#waiting.get(toolCallId)?.call.toolName;
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Waits for the call's decision; an abort (interrupt, a fold forced back) denies it. */
  wait(toolCallId: string, call: NestedCall, signal: AbortSignal): Promise<NestedVerdict> {
    if (signal.aborted) {
      this.#remember(toolCallId, "denied");
      call.cancelled?.();
      return Promise.resolve(DENIED);
    }
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiting.delete(toolCallId);
        // a decision being stored (claimed) keeps its status; the call is denied all the same
        if (!this.#decided.has(toolCallId)) {
          this.#remember(toolCallId, "denied");
          call.cancelled?.();
        }
        resolve(DENIED);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(toolCallId, {
        call,
        resolve: (verdict) => {
          signal.removeEventListener("abort", onAbort);
          this.#waiting.delete(toolCallId);
          resolve(verdict);
        },
      });
    });
  }

  /** The waiting call `toolCallId`; undefined when none waits under that id. */
  waiting(toolCallId: string): NestedCall | undefined {
    return this.#waiting.get(toolCallId)?.call;
  }

  /**
   * Claims a waiting call for a decision being stored: a second decision for it is refused from
   * now on (an abort meanwhile still denies it). Returns the call, or undefined when none waits
   * under that id. `release` undoes it when the decision could not be stored.
   */
  claim(toolCallId: string, decision: NestedDecision): NestedCall | undefined {
    const waiting = this.#waiting.get(toolCallId);
    if (waiting === undefined) return undefined;
    this.#remember(toolCallId, decision === "approve" ? "approved" : "denied");
    return waiting.call;
  }

  /** The claimed call's decision was not stored: it waits for one again. */
  release(toolCallId: string): void {
    if (this.#waiting.has(toolCallId)) this.#decided.delete(toolCallId);
  }

  /** the person who decided a call that waited here; undefined when no person did */
  decidedBy(toolCallId: string): PersonRef | undefined {
    return this.#deciders.get(toolCallId);
  }

  /**
   * Hands a claimed (or waiting) call its decision, a denial with the person's reason if any;
   * false when none waits under that id.
   */
  decide(
    toolCallId: string,
    decision: NestedDecision,
    reason?: string,
    by: PersonRef | null = null,
  ): boolean {
    const waiting = this.#waiting.get(toolCallId);
    if (waiting === undefined) return false;
    this.#remember(toolCallId, decision === "approve" ? "approved" : "denied");
    if (by !== null) this.#deciders.set(toolCallId, by);
    waiting.resolve(
      decision === "approve"
        ? { decision }
        : { decision, ...(reason !== undefined ? { reason } : {}) },
    );
    return true;
  }

  #remember(toolCallId: string, status: NestedStatus): void {
    this.#decided.set(toolCallId, status);
    if (this.#decided.size > REMEMBERED) {
      const oldest = this.#decided.keys().next().value;
      if (oldest !== undefined) {
        this.#decided.delete(oldest);
        this.#deciders.delete(oldest);
      }
    }
  }
}
