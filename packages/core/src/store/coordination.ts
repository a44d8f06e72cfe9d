// Several app instances on one database (issue #17, docs/decisions/0030). The store says what is
// stored; the coordinator says who may change a session now and tells every instance when a
// session's events grew. PostgreSQL implements it (packages/db pg-coordinator.ts: advisory locks
// and LISTEN/NOTIFY); a single process on SQLite has none, and the Session behaves as before.

import { z } from "zod";
import { MessageDeliverySchema } from "../model/message-types.js";
import { PersonRefSchema } from "../model/person.js";
import { ErrorEventSchema } from "../protocol/events.js";
import { ApprovalDecisionSchema, TextPayloadSchema } from "../protocol/requests.js";
import { type StoredEvent, StoreError } from "./types.js";

/**
 * A short operation an instance hands to the instance running the session, because it belongs
 * inside the running operation, which holds the lease: decisions on calls waiting inside it (an
 * ask-N-ways candidate's, a fold's), and a text message sent while the agent works (stored as
 * queued, delivered by the run).
 */
export const ForwardedOperationSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("decide"),
    decisions: z.array(ApprovalDecisionSchema).min(1),
    /** the person who decides (decided_by) */
    by: PersonRefSchema.optional(),
  }),
  z.object({
    kind: z.literal("queue"),
    payload: TextPayloadSchema,
    delivery: MessageDeliverySchema,
    client_metadata: z.record(z.string(), z.unknown()).optional(),
    /** the person who sent it (the run that delivers it acts for them) */
    by: PersonRefSchema.optional(),
  }),
]);
export type ForwardedOperation = z.infer<typeof ForwardedOperationSchema>;

const ReportedErrorSchema = ErrorEventSchema.omit({ context_id: true });

/**
 * What an instance asks the one that runs a session to do, and that one's answers:
 * - `interrupt`: interrupt the running operation.
 * - `forward`: run a ForwardedOperation there; the instance running the session answers with
 *   `answer` and the same `request_id`.
 * - `answer`: `handled` false when the operation does not belong to the run there (the calls wait
 *   nowhere there, the run has ended); else the sequences of the events it stored, the errors it
 *   reported without storing (sequence 0), and its own error when it failed.
 */
export const SessionControlSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("interrupt") }),
  z.object({
    type: z.literal("forward"),
    request_id: z.string().min(1),
    operation: ForwardedOperationSchema,
    /**
     * W3C traceparent of the span the operation was asked in (telemetry/): the instance running
     * the session runs it in the same trace
     */
    traceparent: z.string().max(64).optional(),
  }),
  z.object({
    type: z.literal("answer"),
    request_id: z.string().min(1),
    handled: z.boolean(),
    sequences: z.array(z.number().int().positive()),
    errors: z.array(ReportedErrorSchema),
    error: ReportedErrorSchema.optional(),
  }),
]);
export type SessionControl = z.infer<typeof SessionControlSchema>;

/** The longest control message that travels between instances, in UTF-8 bytes (NOTIFY's limit
 * is 8000): a longer forwarded operation takes the ordinary way instead. */
export const MAX_CONTROL_BYTES = 7000;

/** A control message as text (what travels between instances), and back; undefined: not one. */
export function encodeSessionControl(control: SessionControl): string {
  return JSON.stringify(control);
}

export function decodeSessionControl(text: string): SessionControl | undefined {
  try {
    const parsed = SessionControlSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface SessionCoordinator {
  /**
   * Takes the session's lease for this instance: true when taken, false when another instance
   * holds it (or this instance already does: a lease is never taken twice). Never waits.
   */
  tryLease(sessionId: string): Promise<boolean>;
  /** Gives the lease back (a lease this instance does not hold: nothing happens). */
  release(sessionId: string): Promise<void>;
  /** True while this instance holds the session's lease. */
  holds(sessionId: string): boolean;
  /**
   * Tells every instance that the session's events now reach `sequence` (after the write, in
   * commit order). `events` are the ones just stored: carried along when small enough, so
   * watchers need not read them back.
   */
  notifyEvents(sessionId: string, sequence: number, events?: readonly StoredEvent[]): void;
  /**
   * Calls `listener` with the newest sequence each time an instance notifies the session's
   * events, and the events themselves when they came with the notification.
   */
  watchEvents(
    sessionId: string,
    listener: (sequence: number, events?: readonly StoredEvent[]) => void,
  ): () => void;
  /** Asks whichever instance runs the session to act (every instance hears it). */
  sendControl(sessionId: string, control: SessionControl): void;
  /** Calls `listener` for every control message any instance sends. */
  onControl(listener: (sessionId: string, control: SessionControl) => void): () => void;
  /** How often a watcher re-reads the events without a notification (a lost NOTIFY), in ms. */
  readonly pollIntervalMs: number;
}

/** The refusal of an operation on a session another instance runs (the web layer answers 409). */
export function busyElsewhereMessage(sessionId: string): string {
  return `session ${sessionId} is busy on another instance (it holds the session's lease); retry when its operation has ended`;
}

/** True for the message of busyElsewhereMessage. */
export function isBusyElsewhere(message: string): boolean {
  return message.includes("is busy on another instance");
}

/** The refusal of an operation prepared from a view another instance has changed since (409). */
export function staleSessionMessage(sessionId: string): string {
  return `session ${sessionId} changed on another instance since it was read; reload and retry`;
}

/**
 * The store's check of SessionWrite.expected_last_sequence, given the session's newest sequence
 * before the write: throws StoreError "conflict" when they differ.
 */
export function checkExpectedSequence(
  sessionId: string,
  expected: number | undefined,
  lastBefore: number,
): void {
  if (expected !== undefined && expected !== lastBefore) {
    throw new StoreError(
      "conflict",
      `${staleSessionMessage(sessionId)} (expected event ${expected}, stored ${lastBefore})`,
    );
  }
}
