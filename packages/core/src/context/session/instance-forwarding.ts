import { EventStream } from "../../agent/event-stream.js";
import type { SessionEvent } from "../../protocol/events.js";
import {
  busyElsewhereMessage,
  encodeSessionControl,
  type ForwardedOperation,
  MAX_CONTROL_BYTES,
  type SessionControl,
  type SessionCoordinator,
} from "../../store/coordination.js";
import { activeTraceparent } from "../../telemetry/trace-context.js";
import { type Operation, OperationChannel, type OperationError } from "./channel.js";
import { BusyElsewhere, type CoreRef } from "./operation-runner.js";
import { recoverSession } from "./recovery.js";
import type { RunResult } from "./run-driver.js";
import { followEvents, parseStoredEvent } from "./stored-events.js";
import { OperationRejected, RESTING_STATES, type StoredSession } from "./stored-session.js";

// Forwarding to the instance that runs a session (docs/decisions/0067), several instances only
// (store/coordination.ts): a Session has this part only when its deps have a coordinator, so a
// single process never passes through it. It takes the session's lease for each operation (and
// reads the session again when another instance changed it), tells whether another instance is
// running the session, hands an operation that belongs to that instance's running operation over
// as a control message (forward; the other side is runForwarded → forwardedAnswer), and sends an
// interrupt to it.

/** How long forwarded decisions wait for the owning instance's answer (InstanceForwarding.forward). */
const FORWARD_ANSWER_MS = 3000;

/** The answer runForwarded sends back: the operation's events and outcome. */
export type ForwardedAnswer = Omit<
  Extract<SessionControl, { type: "answer" }>,
  "type" | "request_id"
>;

export class InstanceForwarding {
  readonly #ref: CoreRef;
  readonly #coordinator: SessionCoordinator;
  /** reads the session again from the store, without recovery */
  readonly #reload: (() => Promise<StoredSession | undefined>) | undefined;
  /** the error an operation reports (OperationRunner.reportedError) */
  readonly #reportedError: (error: unknown) => OperationError;

  constructor(
    ref: CoreRef,
    coordinator: SessionCoordinator,
    reload: (() => Promise<StoredSession | undefined>) | undefined,
    reportedError: (error: unknown) => OperationError,
  ) {
    this.#ref = ref;
    this.#coordinator = coordinator;
    this.#reload = reload;
    this.#reportedError = reportedError;
  }

  /** this instance holds the session's lease (an operation of its own runs) */
  get holdsLease(): boolean {
    return this.#coordinator.holds(this.#ref.core.id);
  }

  /**
   * An operation runs only under the session's lease. Refused (409) while another instance holds
   * it. Once taken, a session another instance has changed since it was read is read again, and
   * one left mid-operation by an instance that died (its lease freed with its connection) is
   * recovered first: only now is "busy elsewhere" told apart from "crashed". Returns the release.
   */
  async lease(): Promise<() => Promise<void>> {
    const coordinator = this.#coordinator;
    const id = this.#ref.core.id;
    if (!(await coordinator.tryLease(id))) throw new BusyElsewhere(busyElsewhereMessage(id));
    try {
      const newer = await this.#ref.core.deps.store.readEvents(id, this.#ref.core.lastSequence, 1);
      if (newer.length > 0 || !RESTING_STATES.has(this.#ref.core.state.type)) {
        const fresh = await this.#reload?.();
        if (fresh === undefined)
          throw new OperationRejected("invalid_request", `session ${id} is gone`);
        this.#ref.core = fresh;
      }
      if (!RESTING_STATES.has(this.#ref.core.state.type)) await recoverSession(this.#ref.core);
    } catch (error) {
      await coordinator.release(id);
      throw error;
    }
    return () =>
      coordinator.release(id).catch((error: unknown) =>
        this.#ref.core.deps.logger.warn("could not release the session's lease", {
          session: id,
          error: String(error),
        }),
      );
  }

  /**
   * Whether another instance may be running an operation in this session: none runs here
   * (`activeHere` 0), this instance holds no lease, and the session as last read is not at rest.
   */
  runningElsewhere(activeHere: number): boolean {
    if (activeHere > 0 || this.holdsLease) return false;
    return !RESTING_STATES.has(this.#ref.core.state.type);
  }

  /**
   * `operation` belongs inside the operation another instance runs (which holds the lease), so it
   * goes there as a control message; the instance running the session runs it (runForwarded),
   * stores its events and answers. This stream then gives those stored events and the errors it
   * reported. When nobody runs the session (an owner died), when the other instance does not take
   * it (it does not belong to its run any more), when it does not answer within
   * FORWARD_ANSWER_MS, or when the message is too long to travel, `ordinary` runs instead: an
   * operation here, refused with 409 while another instance runs the session, and recovering the
   * session when its owner is gone.
   */
  forward(
    operation: ForwardedOperation,
    ordinary: () => Operation<RunResult>,
  ): Operation<RunResult> {
    const coordinator = this.#coordinator;
    const channel = new OperationChannel<RunResult>();
    const core = this.#ref.core;
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
   * The run is on the lease holder, so the interrupt goes there (a control message every instance
   * hears) and this stream follows the stored events until the session rests. Nothing runs
   * anywhere (no lease held): it ends at once, like a local interrupt.
   */
  interrupt(): AsyncIterable<SessionEvent> {
    const coordinator = this.#coordinator;
    const core = this.#ref.core;
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
}

/**
 * The answer to a forwarded operation that ran here (Session.runForwarded): the sequences of the
 * events it stored, the errors it reported, and its outcome.
 */
export async function forwardedAnswer(run: Operation<RunResult>): Promise<ForwardedAnswer> {
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
