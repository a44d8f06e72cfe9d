import {
  isRetryable,
  type ProviderError,
  type ProviderEvent,
  providerIdFor,
  retryAfterMs,
  type StreamRequest,
} from "../llm/provider.js";
import { abortableDelay } from "../model/cancellation.js";
import type { AssistantMessage } from "../model/llm-messages.js";
import { emptyUsage } from "../model/llm-messages.js";
import type { ChatTrace } from "../telemetry/spans.js";
import { pushAfter, type SinkWait } from "./event-sink.js";
import { EventStream } from "./event-stream.js";
import { errorText } from "./hook-calls.js";
import type { LoopRun } from "./loop-run.js";
import { delayForAttempt } from "./retry.js";
import { type AgentEvent, DEFAULT_RETRY_CONFIG } from "./types.js";

// One model response for the loop (REQ-039, 071–077, 083, 135): provider events → message events,
// retry with backoff, one compaction-and-retry on context overflow, and errors as values.
//
// Events per attempt: an attempt that started streaming is always closed with messageEnd. An
// attempt that failed and will be retried closes with an error message (empty content) before
// the `retry` event; the final failure is an error/aborted assistant message, which is what the
// loop appends to the history.

/** events mapped between yields to the consumer, minus one (a power of two minus one) */
const YIELD_MASK = 16_383;

function yieldToConsumer(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type PrepareRequest = (
  run: LoopRun,
  reason: "budget" | "overflow",
) => Promise<{ request: StreamRequest; compacted: boolean }>;

type Attempt =
  | { type: "done"; message: AssistantMessage }
  | {
      type: "failed";
      error: ProviderError;
      partial: AssistantMessage | undefined;
      started: boolean;
    };

/** Streams one response, retrying as configured. Never throws; failures are error messages. */
export async function streamAssistantResponse(
  run: LoopRun,
  prepare: PrepareRequest,
): Promise<AssistantMessage> {
  const retry = run.config.retryConfig ?? DEFAULT_RETRY_CONFIG;
  if (run.signal.aborted) return emitWhole(run, abortedMessage(run, undefined));
  let request: StreamRequest;
  try {
    request = (await prepare(run, "budget")).request;
  } catch (error) {
    return emitWhole(
      run,
      errorMessage(run, `Could not prepare the model request: ${errorText(error)}`, undefined),
    );
  }
  let attempt = 0;
  let requests = 0;
  let overflowRetried = false;
  for (;;) {
    const result = await tracedStreamOnce(run, request, requests++);
    if (result.type === "done") return result.message;
    const { error } = result;

    if (error.kind === "cancelled" || run.signal.aborted) {
      return close(run, result, abortedMessage(run, result.partial));
    }
    // REQ-077: compact harder and retry once; pointless when compaction cannot change anything
    const recovers = run.config.recoverContextOverflow !== undefined || run.config.contextConfig;
    if (error.kind === "context_overflow" && !overflowRetried && recovers) {
      overflowRetried = true;
      const next = await requestAfterOverflow(run, prepare);
      if (next !== undefined) {
        await closeRetried(run, result);
        request = next;
        continue;
      }
    }
    if (isRetryable(error) && attempt < retry.maxRetries) {
      attempt++;
      const delayMs = retryAfterMs(error) ?? delayForAttempt(retry, attempt);
      await closeRetried(run, result);
      await run.sink.push({
        type: "retry",
        loopId: run.loopId,
        attempt,
        maxRetries: retry.maxRetries,
        delayMs,
        error,
      });
      // REQ-135: attempt, maxRetries, delay and cause, structured
      run.logger.warn("model request failed; retrying", {
        loopId: run.loopId,
        attempt,
        maxRetries: retry.maxRetries,
        delayMs,
        cause: { kind: error.kind, message: error.message },
      });
      if (!(await abortableDelay(delayMs, run.signal)))
        return emitWhole(run, abortedMessage(run, undefined));
      continue;
    }
    return close(run, result, errorMessage(run, error.message, result.partial));
  }
}

/**
 * The request to send again after a context overflow, made smaller by the caller's recovery
 * (recoverContextOverflow) or else by the runtime's compaction; undefined when nothing changed or
 * the recovery failed (logged), and the response then fails.
 */
async function requestAfterOverflow(
  run: LoopRun,
  prepare: PrepareRequest,
): Promise<StreamRequest | undefined> {
  try {
    const recover = run.config.recoverContextOverflow;
    if (recover === undefined) {
      const next = await prepare(run, "overflow");
      return next.compacted ? next.request : undefined;
    }
    if (!(await recover(run.signal)) || run.signal.aborted) return undefined;
    // the caller's recovery replaces the runtime's overflow compaction: the request is rebuilt as
    // for any other model call
    return (await prepare(run, "budget")).request;
  } catch (error) {
    run.logger.warn("recovering from a context overflow failed", { error: errorText(error) });
    return undefined;
  }
}

/** One model request with its `chat` span (telemetry/): one span per attempt. */
async function tracedStreamOnce(
  run: LoopRun,
  request: StreamRequest,
  attempt: number,
): Promise<Attempt> {
  const chat = run.trace.chat({
    model: request.model.model,
    systemPrompt: request.systemPrompt,
    messages: request.messages,
    attempt,
    ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  });
  const result = await streamOnce(run, request, chat);
  try {
    if (result.type === "done") chat.done(result.message);
    else chat.failed(result.error.kind, result.error.message, result.partial?.usage);
  } catch (error) {
    run.logger.warn("ending a model request's span failed", { error: errorText(error) });
  }
  return result;
}

/** Runs one provider stream, emitting messageStart/messageUpdate/messageEnd for a success. */
async function streamOnce(run: LoopRun, request: StreamRequest, chat: ChatTrace): Promise<Attempt> {
  const state: AttemptState = {
    run,
    chat,
    started: false,
    partial: undefined,
    outcome: undefined,
    wait: undefined,
  };
  const source = run.config.provider.stream(request, run.signal);
  if (source instanceof EventStream) {
    // Fast path: handle every buffered event synchronously; await only when the buffer is empty.
    // A sink that asks the loop to wait (it persists) is waited for once per batch of ready
    // events, not per event: pushAfter hands it each event after the previous one's promise has
    // settled, so it still sees them in order, one write after the other, and the loop reads
    // nothing more from the provider, nor takes its next step, until the whole batch is through
    // (docs/decisions/0074).
    const events = source as EventStream<ProviderEvent, unknown>;
    const { sink, loopId } = run;
    for (;;) {
      const batch = events.takeBuffered();
      for (let i = 0; i < batch.length; i++) {
        const event = batch[i] as ProviderEvent;
        // The per-chunk case, a text delta of a started message with no write to wait for, costs
        // one object literal and the sink's push here, not handleEvent's calls: this loop runs
        // once per chunk, and after a full collection it runs unoptimized until the JIT has
        // compiled it again, where every call counts (docs/decisions/0081).
        if (event.type === "textDelta" && state.wait === undefined && state.started) {
          state.partial = event.partial;
          state.wait = sink.push(textUpdate(loopId, event)) as SinkWait;
        } else {
          const outcome = handleEvent(state, event);
          if (outcome !== undefined) {
            if (state.wait !== undefined) await waitForSink(state);
            return outcome;
          }
        }
        // A provider that delivers a burst would otherwise have every mapped event buffered in the
        // sink before the consumer reads any: yield now and then so it keeps up and the burst does
        // not outlive the young generation (that GC cost dominated the 10k-chunk bench).
        if ((i & YIELD_MASK) === YIELD_MASK) {
          if (state.wait !== undefined) await waitForSink(state);
          await yieldToConsumer();
        }
      }
      if (state.wait !== undefined) await waitForSink(state);
      if (events.isDone || run.signal.aborted) break;
      await waitForEventsOrAbort(events, run.signal);
    }
    void events.return();
  } else {
    try {
      for await (const event of source) {
        const outcome = handleEvent(state, event);
        if (state.wait !== undefined) await waitForSink(state);
        if (outcome !== undefined) return outcome;
        if (run.signal.aborted) break;
      }
    } catch (error) {
      // the provider broke its never-throw contract; treat it as a failed attempt
      return failed(state, { kind: "other", message: errorText(error) });
    }
  }
  if (run.signal.aborted)
    return failed(state, { kind: "cancelled", message: "Request was aborted." });
  return failed(state, {
    kind: "other",
    message: "The provider stream ended without a final event.",
  });
}

interface AttemptState {
  readonly run: LoopRun;
  /** the request's span: told of the first chunk, once */
  readonly chat: ChatTrace;
  started: boolean;
  partial: AssistantMessage | undefined;
  outcome: Attempt | undefined;
  /** what the sink asked the loop to wait for before its next step (undefined: nothing) */
  wait: SinkWait;
}

async function waitForSink(state: AttemptState): Promise<void> {
  const wait = state.wait;
  state.wait = undefined;
  await wait;
}

/** Maps one provider event; returns the attempt's outcome on its final event. Hot path. */
function handleEvent(state: AttemptState, event: ProviderEvent): Attempt | undefined {
  const { sink, loopId } = state.run;
  // pushAfter: a sink that persists gets each event after the previous one's write; a sink that
  // returns nothing is called straight away (the hot path of a fast stream)
  switch (event.type) {
    case "start":
      start(state, event.partial);
      return undefined;
    case "textDelta":
      start(state, event.partial);
      state.wait = pushAfter(sink, state.wait, textUpdate(loopId, event));
      return undefined;
    case "thinkingDelta":
      start(state, event.partial);
      state.wait = pushAfter(sink, state.wait, {
        type: "messageUpdate",
        loopId,
        message: event.partial,
        delta: { type: "thinking", delta: event.delta },
      });
      return undefined;
    case "toolCallDelta":
      start(state, event.partial);
      state.wait = pushAfter(sink, state.wait, {
        type: "messageUpdate",
        loopId,
        message: event.partial,
        delta: { type: "toolCall", toolCallId: event.id, toolName: event.name, delta: event.delta },
      });
      return undefined;
    case "done":
      start(state, event.message);
      state.wait = pushAfter(sink, state.wait, {
        type: "messageEnd",
        loopId,
        message: event.message,
      });
      return { type: "done", message: event.message };
    case "error":
      state.partial = event.partial;
      return failed(state, event.error);
    default:
      return event satisfies never;
  }
}

/** The messageUpdate of a text delta. */
function textUpdate(
  loopId: string,
  event: Extract<ProviderEvent, { type: "textDelta" }>,
): AgentEvent {
  return {
    type: "messageUpdate",
    loopId,
    message: event.partial,
    delta: { type: "text", delta: event.delta },
  };
}

function start(state: AttemptState, partial: AssistantMessage): void {
  state.partial = partial;
  if (state.started) return;
  state.started = true;
  state.chat.firstChunk();
  const { run } = state;
  state.wait = pushAfter(run.sink, state.wait, {
    type: "messageStart",
    loopId: run.loopId,
    message: partial,
  });
}

function failed(state: AttemptState, error: ProviderError): Attempt {
  return { type: "failed", error, partial: state.partial, started: state.started };
}

function waitForEventsOrAbort(
  events: EventStream<ProviderEvent, unknown>,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
    void events.waitForEvents().then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/** The final message of a failed response: closes a started attempt, else starts and ends it. */
async function close(
  run: LoopRun,
  attempt: Attempt,
  message: AssistantMessage,
): Promise<AssistantMessage> {
  if (attempt.type === "failed" && attempt.started) {
    await run.sink.push({ type: "messageEnd", loopId: run.loopId, message });
    return message;
  }
  return emitWhole(run, message);
}

/** A failed attempt that will be retried: close its message, if it opened one. */
async function closeRetried(run: LoopRun, attempt: Attempt): Promise<void> {
  if (attempt.type === "failed" && attempt.started) {
    const message = errorMessage(run, attempt.error.message, attempt.partial);
    await run.sink.push({ type: "messageEnd", loopId: run.loopId, message });
  }
}

async function emitWhole(run: LoopRun, message: AssistantMessage): Promise<AssistantMessage> {
  await run.sink.push({ type: "messageStart", loopId: run.loopId, message });
  await run.sink.push({ type: "messageEnd", loopId: run.loopId, message });
  return message;
}

/** REQ-083: empty content, stopReason "error", the provider's message. */
function errorMessage(
  run: LoopRun,
  text: string,
  partial: AssistantMessage | undefined,
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    stopReason: "error",
    model: partial?.model ?? run.config.model.model,
    provider: providerIdFor(run.config.provider, run.config.model),
    usage: partial ? { ...partial.usage } : emptyUsage(),
    timestamp: Date.now(),
    errorMessage: text,
  };
}

/**
 * REQ-082: what was streamed before the abort is kept, except unfinished tool calls: they never
 * ran, and a history with tool calls lacking results is rejected by provider APIs on resume.
 */
function abortedMessage(run: LoopRun, partial: AssistantMessage | undefined): AssistantMessage {
  return {
    role: "assistant",
    content: partial ? partial.content.filter((block) => block.type !== "toolCall") : [],
    stopReason: "aborted",
    model: partial?.model ?? run.config.model.model,
    provider: providerIdFor(run.config.provider, run.config.model),
    usage: partial ? { ...partial.usage } : emptyUsage(),
    timestamp: Date.now(),
  };
}
