import type { ContextMessage } from "../../model/message-types.js";
import type { MessageLifecycleUpdate } from "../../model/session-records.js";
import type { ContextState } from "../../model/states.js";
import type { FoldStarted, SessionEventBody } from "../../protocol/events.js";
import { sessionToolResultRow } from "./agent-rows.js";
import { forcedFolds } from "./forced-folds.js";
import { awaitingHeld, heldChildCallsIn } from "./held-child-calls.js";
import { parseStoredEvent } from "./stored-events.js";
import { RESTING_STATES, type StoredSession } from "./stored-session.js";

// Crash recovery (context-manager "State recovery after crash"). A session whose stored state is
// mid-operation was cut off by a crash. Recovery finds what was in flight: the partial assistant
// answer is rebuilt from the content_delta events that have no content_final and no stored
// message, and stored as an `incomplete` message on the active branch. The session then moves to
// Idle when nothing was lost beyond that (a crash before or during the model's answer) and to
// Failed{recoverable} when tool work was cut off; a system_control "recovered" notice says what
// happened, and the logger records it. A tool call cut off by the crash (no stored result) gets
// an error result "interrupted by a server restart", so the transcript stays valid, and the
// session is then Failed{recoverable}: POST /resume continues the run from there. A call held for
// a person inside a fold or a sub-agent (held-child-calls.ts) is the exception: it still waits,
// its child's parent call gets no result yet, its fold stays open, and the session rests in
// AwaitingToolApproval naming it, like a top-level approval. One store write; a failing write
// leaves the session as stored (and the next load tries again).

export interface RecoveryReport {
  recovered: boolean;
  from?: ContextState;
  to?: ContextState;
  partial_message_ids: string[];
}

/** States in which no tool has run yet for the current request: restarting loses nothing. */
const BEFORE_TOOLS: ReadonlySet<ContextState["type"]> = new Set([
  "ProcessingUserMessage",
  "ResolvingFileReferences",
  "EnhancingSystemPrompt",
  "OptimizingContext",
  "PreparingLLMRequest",
  "ConnectingToLLM",
  "AwaitingLLMFirstChunk",
  "StreamingLLMResponse",
  "ProcessingLLMResponse",
  "SwitchingBranch",
  "Merging",
  "Interrupting",
  "ParsingPlan",
]);

/** The text of the result stored for a tool call that a crash cut off. */
export const INTERRUPTED_BY_RESTART = "interrupted by a server restart";

/**
 * An error result for every call on the active branch that has none (it was running, or about to
 * run, when the process died), so every tool_use keeps its tool_result (the providers reject a
 * transcript without). Incomplete tool_requests are never sent to the model and get none.
 */
function unansweredResults(
  core: StoredSession,
  now: string,
  folds: ReadonlyMap<string, string> = new Map(),
  waiting: ReadonlySet<string> = new Set(),
): ContextMessage[] {
  const branch = core.branchMessages();
  const answered = new Set<string>();
  for (const message of branch) {
    const body = message.body;
    if (body.message_type === "tool_result") answered.add(body.tool_call_id);
    if ((body.message_type === "plan" || body.message_type === "question") && body.tool_call_id)
      answered.add(body.tool_call_id);
  }
  const results: ContextMessage[] = [];
  for (const message of branch) {
    if (message.body.message_type !== "tool_request" || message.status !== "complete") continue;
    for (const call of message.body.calls) {
      // a call whose child (fold, sub-agent) holds a call for a person gets its result later
      if (answered.has(call.id) || waiting.has(call.id)) continue;
      // a `branch` call whose fold the crash cut off gets the fold's forced return
      const forced = folds.get(call.id);
      results.push(
        sessionToolResultRow(
          { id: core.newId(), sessionId: core.id, now },
          message,
          call,
          forced !== undefined
            ? { text: forced, status: "success" }
            : { text: INTERRUPTED_BY_RESTART, status: "error" },
        ),
      );
    }
  }
  return results;
}

export async function recoverSession(core: StoredSession): Promise<RecoveryReport> {
  const from = core.state;
  if (RESTING_STATES.has(from.type)) return { recovered: false, partial_message_ids: [] };
  const rows = await core.deps.store.readEvents(core.id, 0);
  const partial = new Map<string, string>();
  const finished = new Set<string>();
  const openFolds = new Map<string, FoldStarted & { used: number }>();
  for (const row of rows) {
    const event = parseStoredEvent(row);
    if (event?.name === "fold_started")
      openFolds.set(event.payload.fold_id, { ...event.payload, used: 0 });
    else if (event?.name === "fold_budget_warning") {
      const open = openFolds.get(event.payload.fold_id);
      if (open) open.used = event.payload.tokens_used;
    } else if (event?.name === "fold_returned") openFolds.delete(event.payload.fold_id);
    else if (event?.name === "content_delta" && event.payload.channel === "text") {
      partial.set(
        event.payload.message_id,
        (partial.get(event.payload.message_id) ?? "") + event.payload.delta,
      );
    } else if (event?.name === "content_final") finished.add(event.payload.message_id);
  }
  const now = core.nowIso();
  const salvaged: ContextMessage[] = [];
  for (const [id, text] of partial) {
    if (finished.has(id) || core.pool.has(id) || text === "") continue;
    salvaged.push({
      id,
      session_id: core.id,
      role: "assistant",
      body: { message_type: "text", text },
      status: "incomplete",
      created_at: now,
      meta: { error_message: "cut off by a restart" },
    });
  }
  // held child calls keep waiting: their folds stay open, their parent calls unanswered
  const held = heldChildCallsIn(core, rows);
  const waitingParents = new Set(
    held.calls.flatMap((c) => (c.parentCallId ? [c.parentCallId] : [])),
  );
  const ending = [...openFolds.values()].filter((f) => {
    const root = held.rootOf(f.fold_id);
    return root === undefined || !waitingParents.has(root);
  });
  const foldEnds = await forcedFolds(core, ending);
  const heldInFolds = pendingFoldCalls(core, new Set(ending.map((f) => f.fold_id)));
  const cutOff = unansweredResults(
    core,
    now,
    new Map(foldEnds.flatMap((f) => (f.callId ? [[f.callId, f.event.payload.message]] : []))),
    waitingParents,
  );
  const to: ContextState =
    held.calls.length > 0
      ? awaitingHeld(held.calls)
      : BEFORE_TOOLS.has(from.type) && cutOff.length === 0
        ? { type: "Idle" }
        : {
            type: "Failed",
            error: `A restart interrupted the session during ${from.type}.`,
            recoverable: true,
          };
  const noticeText =
    `Recovered after a restart during ${from.type}` +
    (salvaged.length > 0 ? `; kept ${salvaged.length} partial answer(s) marked incomplete` : "") +
    (cutOff.length > 0 ? `; ${cutOff.length} tool call(s) ${INTERRUPTED_BY_RESTART}` : "") +
    (held.calls.length > 0
      ? `; ${held.calls.length} call(s) held inside a fold, a sub-agent or an ask-N-ways candidate still wait for approval`
      : "") +
    ".";
  const notice: ContextMessage = {
    id: core.newId(),
    session_id: core.id,
    role: "system",
    body: {
      message_type: "system_control",
      kind: "recovered",
      text: noticeText,
      data: {
        from: from.type,
        partial_message_ids: salvaged.map((m) => m.id),
        ...(held.calls.length > 0
          ? { waiting_tool_call_ids: held.calls.map((c) => c.callId) }
          : {}),
        interrupted_tool_call_ids: cutOff.map((m) =>
          m.body.message_type === "tool_result" ? m.body.tool_call_id : "",
        ),
      },
    },
    status: "complete",
    created_at: now,
    completed_at: now,
  };
  // the salvaged answer came after the cut-off calls' round: their results go first
  const messages = [...cutOff, ...salvaged, notice];
  const branchId = core.activeBranchId;
  await core.commit({
    reset: to,
    write: {
      messages,
      branch_appends: [{ branch_id: branchId, message_ids: messages.map((m) => m.id) }],
      ...(heldInFolds.updates.length > 0 ? { message_updates: heldInFolds.updates } : {}),
    },
    events: [
      ...heldInFolds.events,
      ...foldEnds.map((f) => f.event),
      ...salvaged.map((m) => core.contentFinalEvent(m.id)),
      core.contextUpdateEvent(to, from, undefined, { recovered: true }),
      ...messages.flatMap((m) => core.messageEvents(m, branchId, to)),
    ],
  });
  core.deps.logger.warn("session recovered after a crash", {
    session: core.id,
    from: from.type,
    to: to.type,
    partial_message_ids: salvaged.map((m) => m.id),
    forced_fold_ids: foldEnds.map((f) => f.event.payload.fold_id),
  });
  return { recovered: true, from, to, partial_message_ids: salvaged.map((m) => m.id) };
}

/**
 * The calls of folds a crash cut off that were waiting for a person: no one can decide them any
 * more (the fold is forced back), so each is stored denied, with its `fold_tool` event.
 */
function pendingFoldCalls(
  core: StoredSession,
  foldIds: ReadonlySet<string>,
): { updates: MessageLifecycleUpdate[]; events: SessionEventBody[] } {
  const updates: MessageLifecycleUpdate[] = [];
  const events: SessionEventBody[] = [];
  if (foldIds.size === 0) return { updates, events };
  for (const m of core.pool.values()) {
    const foldId = m.meta?.fold_id;
    if (foldId === undefined || !foldIds.has(foldId) || m.body.message_type !== "tool_request")
      continue;
    const held = m.body.calls.filter((c) => c.approval === "pending");
    if (held.length === 0) continue;
    updates.push({
      id: m.id,
      approvals: Object.fromEntries(
        held.map((c) => [c.id, { approval: "denied" as const, approval_note: CUT_OFF_NOTE }]),
      ),
    });
    for (const c of held) {
      events.push({
        name: "fold_tool",
        payload: {
          context_id: core.id,
          fold_id: foldId,
          tool_call_id: c.id,
          tool_name: c.name,
          status: "denied",
          cancelled: true,
        },
      });
    }
  }
  return { updates, events };
}

const CUT_OFF_NOTE = "cancelled: a restart ended the fold";
