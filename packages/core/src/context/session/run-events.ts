import type { AgentEvent } from "../../agent/types.js";
import { costOfUsage } from "../../llm/pricing.js";
import type {
  AgentMessage,
  AssistantMessage,
  ToolResultMessage,
} from "../../model/llm-messages.js";
import { emptyUsage } from "../../model/llm-messages.js";
import { bashCommandOf, suggestedRules } from "../../model/permission-rules.js";
import type { ContextState } from "../../model/states.js";
import { pricedUsage } from "../../model/usage-cost.js";
import type { SubAgentUpdate } from "../../protocol/events.js";
import { isSubAgentDetails, SubAgentTool } from "../../subagents/sub-agent-tool.js";
import { isPlanTool } from "../plan-act.js";
import { assistantRow, hasToolCalls, toolResultRow } from "./agent-rows.js";
import { approvalFor } from "./approval-policy.js";
import { deliveryWrite } from "./message-queue.js";
import type { RunContext, Streaming } from "./run-context.js";
import { calibratesFromUsage } from "./session-token-count.js";

// The agent loop's events → states, rows and session events. The loop awaits what the sink
// returns (agent/event-sink.ts), so each handler sees the state the previous one stored; events
// the session stores nothing for return nothing, and the loop does not wait for them.

/** The approval note of a call the run did not offer (plan mode's write tools, for instance). */
export const NOT_OFFERED_NOTE = "not offered in this mode";

/** Stores what `event` means for the session; undefined when there is nothing to wait for. */
export function storeLoopEvent(run: RunContext, event: AgentEvent): Promise<void> | undefined {
  switch (event.type) {
    case "messageStart":
      // a failure before any content arrives is emitted as a whole message: not a first chunk
      if (event.message.role === "assistant" && event.message.stopReason !== "error") {
        run.streaming = { messageId: run.core.newId(), chunks: 0, chars: 0, deltas: 0, text: "" };
        // held with the request's moves; the first chunk's write stores them if it comes first
        if (run.state.type === "ConnectingToLLM") run.hold({ type: "AwaitingLLMFirstChunk" });
      }
      return undefined;
    case "messageUpdate":
      // group commit: chunks that arrive while a batch is being written are stored together by
      // the next batch, behind the loop, so a fast stream costs one write per batch and the loop
      // does not wait for the store per chunk (the next event it waits for follows the batches)
      run.pendingChunks.push(event.delta);
      if (run.pendingChunks.length === 1) {
        run.writeBehind(() => onDeltas(run, run.pendingChunks.splice(0)));
      }
      return undefined;
    case "messageEnd": {
      const { message } = event;
      if (message.role === "user" && run.prompts.has(message)) return undefined;
      if (message.role !== "user" && message.role !== "assistant") return undefined;
      return afterWritesBehind(run, () => onMessageEnd(run, message));
    }
    case "retry":
      // the failed attempt is dropped; the next attempt streams under a new message id
      return afterWritesBehind(run, async () => {
        const dropped = run.streaming;
        run.streaming = undefined;
        await run.dropAnnounced(dropped);
      });
    case "toolExecutionStart":
      return afterWritesBehind(run, () => onToolStart(run, event.toolCallId, event.toolName));
    case "turnEnd":
      return afterWritesBehind(run, () => onTurnEnd(run, event.message, event.toolResults));
    case "toolExecutionUpdate":
    case "toolExecutionEnd":
      return subAgentEvent(run, event);
    case "progressMessage":
      // a sub-agent's progress is its card's (subagent_update); any other tool's, tool_progress
      if (run.core.toolRegistry.get(event.toolName) instanceof SubAgentTool) {
        return subAgentEvent(run, event);
      }
      onProgress(run, event.toolCallId, event.toolName, event.text);
      return undefined;
    case "agentStart":
    case "agentEnd":
    case "turnStart":
    case "inputRejected":
    case "compaction":
    case "parallelLoopStart":
    case "parallelLoopEnd":
      return undefined;
    default:
      return event satisfies never;
  }
}

/**
 * A running tool's progress → a `tool_progress` event, stored behind the loop (the tool does not
 * wait). Coalesced per call: while its write is queued, newer progress replaces the text, so a
 * tool reporting faster than the store writes costs one write per batch, and the latest wins.
 */
function onProgress(run: RunContext, toolCallId: string, toolName: string, text: string): void {
  const queued = run.pendingProgress.has(toolCallId);
  run.pendingProgress.set(toolCallId, { toolName, text });
  if (queued) return;
  run.writeBehind(async () => {
    const latest = run.pendingProgress.get(toolCallId);
    run.pendingProgress.delete(toolCallId);
    // once the run stops (an interrupt, a failure) its calls' progress no longer matters; a wait
    // for approval is not such a stop: the calls before the held one still run
    const stopped = run.stop !== undefined && run.stop.type !== "awaiting_approval";
    if (latest === undefined || stopped) return;
    const { core } = run;
    await core.commit({
      events: [
        {
          name: "tool_progress",
          payload: {
            context_id: core.id,
            tool_call_id: toolCallId,
            tool_name: latest.toolName,
            message: latest.text,
          },
        },
      ],
    });
  });
}

/**
 * A sub-agent call's child loop, live (subagent_update): its start and text (the call's tool
 * updates), its tool calls and progress (the call's progress messages), its end. Other tools'
 * updates and progress are not stored.
 */
function subAgentEvent(
  run: RunContext,
  event: Extract<
    AgentEvent,
    { type: "toolExecutionUpdate" | "toolExecutionEnd" | "progressMessage" }
  >,
): Promise<void> | undefined {
  const { core } = run;
  const base = { context_id: core.id, tool_call_id: event.toolCallId, tool_name: event.toolName };
  let payload: SubAgentUpdate | undefined;
  switch (event.type) {
    case "toolExecutionUpdate": {
      const details = event.partialResult.details;
      if (!isSubAgentDetails(details)) return undefined;
      if (details.kind === "started")
        payload = { ...base, loop_id: details.loop_id, kind: "started" };
      else if (details.kind === "text")
        payload = { ...base, loop_id: details.loop_id, kind: "text", delta: details.delta };
      break;
    }
    case "progressMessage": {
      if (!(core.toolRegistry.get(event.toolName) instanceof SubAgentTool)) return undefined;
      const loopId = run.subAgentLoops.get(event.toolCallId) ?? "";
      payload = { ...base, loop_id: loopId, kind: "progress", text: event.text };
      break;
    }
    case "toolExecutionEnd": {
      const details = event.result.details;
      if (isSubAgentDetails(details) && details.kind === "ended") {
        payload = {
          ...base,
          loop_id: details.loop_id,
          kind: "ended",
          status: details.status,
          turns: details.turns,
          usage: pricedUsage(details.usage, details.model, costOfUsage),
        };
      } else if (run.subAgentLoops.has(event.toolCallId)) {
        // the call ended without its result: cut by an interrupt (or a failure before its end)
        payload = {
          ...base,
          loop_id: run.subAgentLoops.get(event.toolCallId) ?? "",
          kind: "ended",
          status: "cancelled",
          turns: 0,
          // what the child spent before the cut (the call's onUsage reports, tool-execution.ts)
          usage: pricedUsage(event.result.usage ?? emptyUsage(), event.result.model, costOfUsage),
        };
      }
      run.subAgentLoops.delete(event.toolCallId);
      break;
    }
    default:
      return event satisfies never;
  }
  if (payload === undefined) return undefined;
  if (payload.kind === "text") {
    // group commit, as for the parent's own chunks: the chunks that arrive while a batch is
    // being written go in the next one, consecutive chunks of one call joined into one event
    run.pendingSubAgentText.push(payload);
    if (run.pendingSubAgentText.length === 1) {
      run.writeBehind(() => storeSubAgentText(run, run.pendingSubAgentText.splice(0)));
    }
    return undefined;
  }
  if (payload.kind === "started") run.subAgentLoops.set(event.toolCallId, payload.loop_id);
  // after the text batches behind the loop (RunContext.commit waits for them)
  return run.commit({ events: [{ name: "subagent_update", payload }] });
}

async function storeSubAgentText(
  run: RunContext,
  chunks: ReadonlyArray<Extract<SubAgentUpdate, { kind: "text" }>>,
): Promise<void> {
  const joined: Array<Extract<SubAgentUpdate, { kind: "text" }>> = [];
  for (const chunk of chunks) {
    const last = joined.at(-1);
    if (last !== undefined && last.tool_call_id === chunk.tool_call_id) {
      joined[joined.length - 1] = { ...last, delta: last.delta + chunk.delta };
    } else {
      joined.push(chunk);
    }
  }
  if (joined.length === 0) return;
  await run.core.commit({
    events: joined.map((payload) => ({ name: "subagent_update" as const, payload })),
  });
}

/** Runs `handle` once the chunks written behind the loop are stored: it reads what they counted. */
async function afterWritesBehind(run: RunContext, handle: () => Promise<void>): Promise<void> {
  await run.writesBehindDone();
  if (!run.failed) await handle();
}

type StreamChunk = { type: "text" | "thinking"; delta: string } | { type: "toolCall" };

/**
 * Stores a batch of streamed chunks in ONE write (a group commit): per chunk its
 * StreamingLLMResponse context_update and its content_delta, in order. The driver batches the
 * chunks that arrived while the previous write was in flight, so a fast stream costs one
 * transaction per batch instead of one per chunk, and nothing is skipped.
 */
async function onDeltas(run: RunContext, chunks: readonly StreamChunk[]): Promise<void> {
  const { core, streaming } = run;
  if (!streaming || chunks.length === 0) return;
  const first: ContextState = { type: "StreamingLLMResponse", chunks: 0, chars: 0 };
  // the request's held moves (Preparing → Connecting → AwaitingLLMFirstChunk) go first
  const interrupted = run.stop?.type === "interrupted";
  // once interrupted the chunks are still stored, without their moves (nor the held ones)
  const held = interrupted ? { states: [], events: [] } : run.held.take();
  // Streaming → Streaming is always allowed, so the first move decides for the batch
  const allowed = !interrupted && core.checkChain([...held.states, first]) === undefined;
  const metadata = { message_id: streaming.messageId };
  const states: ContextState[] = [...held.states];
  const events = [...held.events];
  let previous = held.states.at(-1) ?? core.state;
  for (const chunk of chunks) {
    streaming.chunks++;
    if (chunk.type !== "toolCall") {
      streaming.chars += chunk.delta.length;
      streaming.deltas++;
      if (chunk.type === "text") streaming.text += chunk.delta;
    }
    if (allowed) {
      const state: ContextState = {
        type: "StreamingLLMResponse",
        chunks: streaming.chunks,
        chars: streaming.chars,
      };
      states.push(state);
      events.push(core.contextUpdateEvent(state, previous, undefined, metadata));
      previous = state;
    }
    if (!streaming.announced) {
      // the answer's card can be placed now: its id, before its first delta
      streaming.announced = true;
      events.push(...core.announceEvents(streaming.messageId, previous));
    }
    if (chunk.type !== "toolCall") {
      events.push(core.contentDeltaEvent(streaming.messageId, chunk.delta, chunk.type));
    }
  }
  await core.commit({ ...(states.length > 0 ? { states } : {}), events });
}

async function onMessageEnd(run: RunContext, message: AgentMessage): Promise<void> {
  const { core } = run;
  const queued = message.role === "user" ? run.steering.taken(message) : undefined;
  if (queued !== undefined) {
    // a steering message reached the model: it joins the branch here, where the model saw it
    const { delivered, branchId, write } = deliveryWrite(core, queued);
    await run.commit({ write, events: core.messageEvents(delivered, branchId, run.state) });
    return;
  }
  if (message.role === "user" && !run.prompts.has(message)) {
    // the loop's own notes (an execution limit stopped it) are shown, not sent again
    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    await run.store([run.notice("notice", text)]);
    return;
  }
  if (message.role !== "assistant") return;
  // failed / cut-off answers are handled at turnEnd, after any retry has been decided
  if (message.stopReason === "error" || message.stopReason === "aborted") return;
  // what the provider counted for the request calibrates the session's estimate
  if (calibratesFromUsage(core)) core.tokens.observeUsage(message.usage);
  const streaming: Streaming = run.streaming ?? {
    messageId: core.newId(),
    chunks: 0,
    chars: 0,
    deltas: 0,
    text: "",
  };
  run.streaming = undefined;
  const isReadOnly = (name: string): boolean => run.readOnly.has(name);
  // a call of a tool this run did not offer never waits for a person: it is refused (the gate
  // answers "not found"), so plan mode never holds or runs a write tool
  const row = assistantRow(
    message,
    run.rowContext(streaming.messageId),
    "complete",
    (name, args) =>
      run.offered.has(name)
        ? approvalFor(core.config, { name, arguments: args }, isReadOnly).approval
        : "denied",
  );
  if (row.body.message_type === "tool_request") {
    for (const call of row.body.calls) {
      if (!run.offered.has(call.name)) call.approval_note = NOT_OFFERED_NOTE;
      else {
        // the policy or rule that let the call through is named on it (approval-policy.ts)
        const note = approvalFor(core.config, call, isReadOnly).note;
        if (note !== undefined) call.approval_note = note;
        // the scoped "Always allow" rules the approval card offers for a bash call
        const command =
          call.approval === "pending" ? bashCommandOf(call.name, call.arguments) : undefined;
        if (command !== undefined) call.suggested_rules = suggestedRules(command);
        // what the call will do (an OpenAPI call's method, URL, credential; an edit's diff
        // against the file on disk), for the approval card: computed before anything runs
        const preview = await run.describeCall(call.name, call.arguments);
        if (preview !== undefined) call.preview = preview;
      }
      run.round.set(call.id, { requestId: row.id, call });
    }
  }
  const final = streaming.deltas > 0 ? [core.contentFinalEvent(streaming.messageId)] : [];
  await run.store(
    [row],
    [{ type: "ProcessingLLMResponse" }],
    final,
    streaming.announced ? streaming.messageId : undefined,
  );
  // plan mode never enters the tool execution states: its round moves on at the gate
  if (hasToolCalls(message) && !planning(run)) await run.move({ type: "ParsingToolCalls" });
}

/** Plan mode: read-only calls run in ResearchingPlan, never in the tool execution states. */
export function planning(run: RunContext): boolean {
  return run.core.config.agent_mode === "plan";
}

async function onToolStart(run: RunContext, toolCallId: string, toolName: string): Promise<void> {
  const entry = run.round.get(toolCallId);
  // plan tools only become messages; denied (or not offered) calls never execute
  if (isPlanTool(toolName) || entry?.call.approval === "denied") return;
  if (!run.offered.has(toolName)) return;
  // plan mode stays in ResearchingPlan while its read-only calls run (moved at the gate)
  if (planning(run)) return;
  run.roundIndex = Math.min(run.roundIndex + 1, Math.max(1, run.roundTotal));
  await run.move({
    type: "ExecutingTool",
    tool_name: toolName,
    attempt: 1,
    index: run.roundIndex,
    total: Math.max(1, run.roundTotal),
  });
}

async function onTurnEnd(
  run: RunContext,
  message: AssistantMessage,
  results: ToolResultMessage[],
): Promise<void> {
  const { core } = run;
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    await onCutOff(run, message);
    return;
  }
  if (results.length === 0) return;
  const rows = results.map((result) => {
    const entry = run.round.get(result.toolCallId);
    return toolResultRow(
      result,
      { ...run.rowContext(core.newId()), requestId: entry?.requestId ?? "unknown" },
      entry?.call,
    );
  });
  const question = rows.find((r) => r.body.message_type === "question");
  if (run.stop?.type === "awaiting_user") {
    // a plan / question round: its rows are the Plan / Question messages; the run stops here
    // other calls of the same round ran first (act mode offers ask_question beside every tool)
    const collected: ContextState[] =
      core.state.type === "ExecutingTool" && !planning(run)
        ? [{ type: "CollectingToolResults" }]
        : [];
    const states: ContextState[] = question
      ? [...collected, { type: "AwaitingUserAnswer", question_message_id: question.id }]
      : [];
    await run.store(rows, states);
    return;
  }
  const executed = core.state.type === "ExecutingTool" || core.state.type === "ResearchingPlan";
  if (run.stop?.type === "awaiting_approval") {
    // the calls before the first held one ran; the held ones wait for their cards again
    run.toolsExecuted += results.length;
    await run.store(rows, executed ? [run.stop.waiting] : []);
    return;
  }
  run.depth++;
  run.toolsExecuted += results.length;
  for (const result of results) run.toolNamesExecuted.add(result.toolName);
  if (planning(run)) {
    const researched: ContextState = {
      type: "ResearchingPlan",
      tool_names: results.map((r) => r.toolName),
      tools_executed: run.toolsExecuted,
    };
    await run.store(rows, [researched]);
    run.round.clear();
    return;
  }
  const states: ContextState[] = [
    ...(executed ? [{ type: "CollectingToolResults" } as const] : []),
    { type: "ProcessingToolResults" },
    {
      type: "ToolAutoLoop",
      depth: run.depth,
      tools_executed: run.toolsExecuted,
      tool_names: [...run.toolNamesExecuted],
    },
  ];
  await run.store(rows, states);
  run.round.clear();
}

/** A failed or aborted answer: its partial content is kept as an incomplete message. */
async function onCutOff(run: RunContext, message: AssistantMessage): Promise<void> {
  const { core, streaming } = run;
  run.streaming = undefined;
  if (message.stopReason === "error") {
    run.stopWith({
      type: "model_failed",
      error: {
        code: streaming && streaming.chunks > 0 ? "llm_stream_interrupted" : "llm_connection",
        message: message.errorMessage ?? "the model request failed",
      },
    });
  }
  if (!streaming) return;
  const hasContent = message.content.some((b) =>
    b.type === "text" ? b.text.length > 0 : b.type !== "thinking",
  );
  const kept: AssistantMessage = hasContent
    ? message
    : { ...message, content: streaming.text ? [{ type: "text", text: streaming.text }] : [] };
  if (kept.content.length === 0) {
    await run.dropAnnounced(streaming);
    return;
  }
  const row = assistantRow(
    kept,
    run.rowContext(streaming.messageId),
    "incomplete",
    () => "pending",
  );
  await run.store(
    [row],
    [],
    streaming.deltas > 0 ? [core.contentFinalEvent(streaming.messageId)] : [],
    streaming.announced ? streaming.messageId : undefined,
  );
}
