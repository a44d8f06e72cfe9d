import type { AgentEvent } from "../../agent/types.js";
import type { AgentMessage, ToolCallContent } from "../../model/llm-messages.js";
import type { ContextMessage, MessageDelivery } from "../../model/message-types.js";
import type { SessionEvent } from "../../protocol/events.js";
import { hasToolCalls } from "./agent-rows.js";
import type { StoredSession } from "./stored-session.js";
import { toAgentMessage } from "./to-agent-messages.js";

// Messages the user sends while the agent works (docs/decisions/0011). Such a message is not
// refused and does not wait in memory: it is stored at once as a pool row with status `queued`
// and `meta.delivery`, on no branch, with a `queued` message_update. It is delivered later by the
// runtime's own queues:
// - steer: the loop's getSteeringMessages (RunSteering below) hands it to the model at the next
//   turn boundary: after the current tool round's results, before the next model request;
// - follow_up (or a steer message that found no boundary before the run ended): once the run has
//   ended in Idle, it is the prompt of the next run, which the session starts by itself.
// Delivering it appends it to the active branch and marks it complete, with the usual created and
// completed updates, in one write: in the transcript it sits where the model saw it.

/** The session's queued messages, oldest first. */
export function queuedMessages(core: StoredSession): ContextMessage[] {
  const queued: ContextMessage[] = [];
  for (const message of core.pool.values()) if (message.status === "queued") queued.push(message);
  return queued;
}

/** `message` (a processed-as-sent user message) as the queued row it is stored as. */
export function asQueued(message: ContextMessage, delivery: MessageDelivery): ContextMessage {
  return { ...message, status: "queued", meta: { ...message.meta, delivery } };
}

/** Stores a queued row with its `queued` message_update; returns the stored events. */
export function storeQueued(core: StoredSession, message: ContextMessage): Promise<SessionEvent[]> {
  const delivery = message.meta?.delivery ?? "steer";
  return core.commit({
    write: { messages: [message] },
    events: [
      core.contextUpdateEvent(core.projectedState, undefined, {
        kind: "queued",
        message_id: message.id,
        message_type: message.body.message_type,
        role: message.role,
        delivery,
      }),
    ],
  });
}

/** What delivering a queued message writes: it joins the active branch, complete. */
export function deliveryWrite(core: StoredSession, message: ContextMessage) {
  const now = core.nowIso();
  const delivered: ContextMessage = { ...message, status: "complete", completed_at: now };
  const branchId = core.activeBranchId;
  return {
    delivered,
    branchId,
    write: {
      message_updates: [{ id: message.id, status: "complete" as const, completed_at: now }],
      branch_appends: [{ branch_id: branchId, message_ids: [message.id] }],
    },
  };
}

/**
 * One run's side of the steering queue: the loop's `getSteeringMessages`. It hands out queued
 * steer messages only at a turn boundary where the model is asked again: at the start of the run,
 * or once every call of the current tool round has ended (the runtime would otherwise skip the
 * round's remaining calls). After a final answer (no tool calls) it hands out nothing: the run
 * ends, and the message becomes the prompt of the next one. A message handed out is delivered
 * (stored on the branch) when the loop emits it; one the loop took but never emitted (the run
 * stopped first) simply stays queued, since only delivery changes its row. A run being stopped
 * takes nothing: an interrupt keeps every queued message queued.
 */
export class RunSteering {
  readonly #core: StoredSession;
  /** handed to the loop in this run and not yet delivered: the loop's message → its row */
  readonly #taken = new Map<AgentMessage, ContextMessage>();
  readonly #takenIds = new Set<string>();
  /** calls of the current tool round that have not ended */
  #callsLeft = new Set<string>();
  /** the last answer had no tool calls: no further model request follows in this run */
  #answered = false;

  readonly #stopping: () => boolean;

  /**
   * `stopping`: the run is being stopped (interrupt, failure, timeout): nothing is handed out.
   * `promptId`: the run's own prompt, a queued message the run was started with: its delivery may
   * still be on its way into the pool, where it shows as queued until then; it is never handed out.
   */
  constructor(core: StoredSession, stopping: () => boolean, promptId?: string) {
    this.#core = core;
    this.#stopping = stopping;
    if (promptId !== undefined) this.#takenIds.add(promptId);
  }

  /** Follows the loop's events (synchronously, in order, from the sink). */
  observe(event: AgentEvent): void {
    if (event.type === "messageEnd" && event.message.role === "assistant") {
      this.#answered = !hasToolCalls(event.message);
    } else if (event.type === "toolExecutionEnd") {
      this.#callsLeft.delete(event.toolCallId);
    }
  }

  /** A tool round begins (the approval gate sees its calls). */
  roundStarts(calls: readonly ToolCallContent[]): void {
    this.#callsLeft = new Set(calls.map((c) => c.id));
    this.#answered = false;
  }

  /** The loop's getSteeringMessages: synchronous, never throws. */
  take(): AgentMessage[] {
    if (this.#answered || this.#callsLeft.size > 0 || this.#stopping()) return [];
    const out: AgentMessage[] = [];
    for (const message of queuedMessages(this.#core)) {
      if (message.meta?.delivery !== "steer" || this.#takenIds.has(message.id)) continue;
      const agent = toAgentMessage(message);
      if (agent === undefined) continue;
      this.#taken.set(agent, message);
      this.#takenIds.add(message.id);
      out.push(agent);
    }
    return out;
  }

  /** true once this run handed the loop a message sent while it works */
  get steered(): boolean {
    return this.#taken.size > 0;
  }

  /** The queued row of a message this run handed to the loop; undefined for any other message. */
  taken(message: AgentMessage): ContextMessage | undefined {
    return this.#taken.get(message);
  }
}
