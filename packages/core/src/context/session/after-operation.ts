import { sessionModelConfig } from "../../llm/env-config.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { ContextMessage, MessageDelivery } from "../../model/message-types.js";
import type { PersonRef } from "../../model/person.js";
import type { MessagePayload } from "../../protocol/requests.js";
import { modelTitle, shortTitle } from "../session-title.js";
import { type Operation, OperationChannel, type OperationResult } from "./channel.js";
import { renameSession } from "./config-operations.js";
import { asQueued, queuedMessages, storeQueued } from "./message-queue.js";
import type { CoreRef, OperationRunner } from "./operation-runner.js";
import type { RunResult } from "./run-driver.js";
import { messageFromPayload, processMessage, respond, turnSetup } from "./send-message.js";
import {
  optimizationUpdates,
  optimizationWrite,
  startAhead,
  takeAhead,
} from "./session-optimization.js";

// The chores after an operation (docs/decisions/0067), run once an operation's stream has ended:
// the next queued message starts a run when the session rests in Idle, a real model titles the
// session after its first answer, and the next request's optimization is made ahead while the
// user reads. Also the queue's other end: a text message sent while the agent works is stored
// as queued at once (message-queue.ts), not behind the running operation.

export class AfterOperation {
  readonly #ref: CoreRef;
  readonly #runner: OperationRunner;
  /** the model was asked for a title (or will not be: offline model, renamed by the user) */
  #titled = false;
  /** a delivery found the queue's head refused or interrupted: no run starts by itself until a
   * new message is queued (see deliverQueuedIfIdle) */
  #queueHeld = false;
  /**
   * who sent each queued message (by id): the person a run that delivers it acts for. Steered
   * messages are delivered inside a run someone else started; their entries go with the session.
   */
  readonly #queuedBy = new Map<string, PersonRef>();
  /** an optimization made ahead, until it is stored or dropped (see optimizeAhead) */
  #ahead: Promise<void> | undefined;

  constructor(ref: CoreRef, runner: OperationRunner) {
    this.#ref = ref;
    this.#runner = runner;
  }

  /** the optimization made ahead, while it runs or waits to be stored */
  get ahead(): Promise<void> | undefined {
    return this.#ahead;
  }

  /** Every chore, in order, once an operation has ended. */
  run(): void {
    this.deliverQueuedIfIdle();
    this.#titleAfterFirstAnswer();
    this.#optimizeAhead();
  }

  /** Stores a text message as queued, at once (not behind the running operation). */
  queueMessage(
    payload: MessagePayload,
    delivery: MessageDelivery,
    extra: Pick<ContextMessage, "client_metadata">,
    by: PersonRef | null,
  ): Operation<RunResult> {
    const channel = new OperationChannel<RunResult>();
    const core = this.#ref.core;
    if (this.#runner.refusing) return this.#runner.refused(channel);
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
        const reported = this.#runner.reportedError(error);
        channel.push({
          name: "error",
          sequence: 0,
          payload: { context_id: core.id, ...reported, recoverable: true },
        });
        result = { ok: false, error: { ...reported, recoverable: true } };
      }
      channel.finish(result);
      // the run may have ended while the message was being stored
      this.deliverQueuedIfIdle();
    })();
    return channel;
  }

  /**
   * Once nothing runs and the session rests in Idle, the oldest queued message starts the next
   * run (a follow-up, or a steer message that found no turn boundary). A run that rests anywhere
   * else (Paused, Failed, waiting for an approval or an answer) keeps the queue: resume, a
   * decision or a new message delivers it.
   */
  deliverQueuedIfIdle(): void {
    const core = this.#ref.core;
    if (this.#runner.deleting || this.#queueHeld || this.#runner.active > 0) return;
    if (core.state.type !== "Idle" || queuedMessages(core).length === 0) return;
    void this.#runner.operation(
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

  /**
   * After an answer, while the user reads it: when the next request would pass the optimization
   * trigger, optimize now rather than when the user sends the next message (issue #15: summaries
   * off the critical path). The result is stored by an operation of its own once it is ready, or
   * taken over by the next message's optimization if that comes first (takeAhead). Never while
   * an operation runs or waits: it only starts from Idle with nothing queued.
   */
  #optimizeAhead(): void {
    const core = this.#ref.core;
    const runner = this.#runner;
    if (!core.deps.optimizeAhead || runner.deleting || runner.active > 0) return;
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
      if (result === undefined || runner.active > 0 || runner.deleting) return;
      await runner.operation(async () => {
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
    const core = this.#ref.core;
    if (this.#titled || this.#runner.deleting || core.deps.titles !== "model") return;
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
        this.#runner.operation(async () => {
          if (core.title === automatic && !this.#runner.deleting) await renameSession(core, title);
        });
      },
      (error: unknown) =>
        core.deps.logger.warn("the model did not title the session", {
          session: core.id,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  }
}
