import type { ContextMessage } from "../../model/message-types.js";
import type { ContextState } from "../../model/states.js";
import type { ParallelMessageRequest } from "../../protocol/parallel.js";
import type { MessagePayload } from "../../protocol/requests.js";
import type { OptimizationView } from "../../store/types.js";
import type { ParallelAskResult } from "./parallel-answers.js";
import { askParallelOp } from "./parallel-ask.js";
import type { RunResult } from "./run-driver.js";
import {
  answeringLoopId,
  mcpPromptMessagesOf,
  mcpResourceMessage,
  messageFromPayload,
  processMessage,
  respond,
  runWorkflow,
  storePlainMessages,
  turnSetup,
} from "./send-message.js";
import {
  optimizationMetadata,
  optimizationUpdates,
  optimizationWrite,
  optimizeActiveBranch,
} from "./session-optimization.js";
import { OperationRejected, RESTING_STATES, type StoredSession } from "./stored-session.js";

// The bodies of the session's turn operations (docs/decisions/0067): what runs inside the
// operation runner for a message, a resume, an answer on a fork, ask-N-ways and "Optimize now".
// The Session facade queues them (operation-runner.ts); send-message.ts holds the pipeline and
// the run they share.

/** A message payload sent to a resting session: processed, stored and answered. */
export async function sendOp(
  core: StoredSession,
  payload: MessagePayload,
  extra: Pick<ContextMessage, "client_metadata">,
  signal: AbortSignal,
): Promise<RunResult> {
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
      return answerMessage(core, { ...last, ...extra }, signal);
    }
    case "text":
    case "file_reference":
    case "attachment":
    case "mcp_resource": {
      const built =
        payload.type === "mcp_resource"
          ? await mcpResourceMessage(core, payload, signal)
          : messageFromPayload(core, payload);
      return answerMessage(core, { ...built, ...extra }, signal);
    }
    default:
      return payload satisfies never;
  }
}

/** The message through the pipeline, then the run answering it. */
async function answerMessage(
  core: StoredSession,
  message: ContextMessage,
  signal: AbortSignal,
): Promise<RunResult> {
  const setup = await processMessage(core, message, { signal });
  if (!setup) return { type: "not_run", reason: "rolled_back" };
  return respond(core, setup, { prompt: message, signal });
}

/** Continues a paused run, or one that failed recoverably (Session.resume). */
export async function resumeOp(core: StoredSession, signal: AbortSignal): Promise<RunResult> {
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
}

/** How an answer on a fork continues the loop that answered there (REQ-180). */
export interface ForkContinuation {
  type: "rerun" | "branch";
  /** the message whose answering loop this run continues, given the fork's prompt */
  answered: (prompt: ContextMessage) => string;
}

/**
 * Forks (the fork ends in a stored user message, made active) and has the model answer it, as
 * a continuation (REQ-180) of the loop that answered `answered` on the branch forked from.
 */
export async function answerOnForkOp(
  core: StoredSession,
  fork: () => Promise<ContextMessage>,
  continuation: ForkContinuation,
  signal: AbortSignal,
): Promise<RunResult> {
  const before = core.branchMessages();
  const message = await fork();
  const setup = await processMessage(core, message, { stored: true, signal });
  if (!setup) return { type: "not_run", reason: "rolled_back" };
  const parentLoopId = answeringLoopId(before, continuation.answered(message));
  return respond(core, setup, {
    prompt: message,
    signal,
    continuation: {
      // the tag is the RFC 3339 time of the call (REQ-180)
      kind: { type: continuation.type, tag: core.nowIso() },
      ...(parentLoopId !== undefined ? { parentLoopId } : {}),
    },
  });
}

/** Ask N ways from a resting session (Session.askParallel). */
export async function askParallelFromRest(
  core: StoredSession,
  request: ParallelMessageRequest,
  signal: AbortSignal,
): Promise<ParallelAskResult> {
  if (!RESTING_STATES.has(core.state.type) || core.state.type === "AwaitingToolApproval") {
    throw new OperationRejected(
      "invalid_transition",
      `cannot ask several ways in ${core.state.type}`,
    );
  }
  const extra = request.client_metadata ? { client_metadata: request.client_metadata } : {};
  const message = { ...messageFromPayload(core, request.payload), ...extra };
  return await askParallelOp(core, request, message, signal);
}

/** "Optimize now" (Session.optimize): the active branch, even below the trigger. */
export async function optimizeNowOp(
  core: StoredSession,
  signal: AbortSignal,
): Promise<{ changed: boolean; optimization: OptimizationView | null }> {
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
}
