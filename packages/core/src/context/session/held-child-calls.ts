import { executeSingleTool } from "../../agent/tool-execution.js";
import {
  emptyUsage,
  type ToolCallContent,
  type ToolResultMessage,
} from "../../model/llm-messages.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { PersonRef } from "../../model/person.js";
import type { ApprovalUpdate, MessageLifecycleUpdate } from "../../model/session-records.js";
import type { ContextState } from "../../model/states.js";
import { withCost } from "../../model/usage-cost.js";
import type { FoldStarted, SessionEventBody } from "../../protocol/events.js";
import type { ApprovalDecision } from "../../protocol/requests.js";
import type { StoredEvent } from "../../store/types.js";
import { isPlanTool, toolsForMode } from "../plan-act.js";
import { sessionToolResultRow, toolResultRow } from "./agent-rows.js";
import {
  DENIED_RESULT_TEXT,
  deniedResultText,
  type RememberedSettings,
  rememberApproval,
  userNote,
} from "./approval-policy.js";
import { forcedFolds } from "./forced-folds.js";
import { parseStoredEvent } from "./stored-events.js";
import { OperationRejected, type StoredSession } from "./stored-session.js";

// Calls held for a person inside a child loop (a fold, a sub-agent) that a restart cut off
// (issue #26 finding 5, decision 0044). Before a restart such a call waits in the running
// operation's memory (nested-approvals.ts). The call itself is stored as it waits: a fold's on
// its tool_request row (approval `pending` in tool_approvals), a sub-agent's as its
// `subagent_update` approval event. After a restart the child loop's memory is gone, but the call
// is not: recovery (recovery.ts) leaves it pending and rests the session in AwaitingToolApproval
// naming it, like a top-level approval. Its decision comes through the same POST /approvals and
// the same operation (decideToolCallsOp): the decision is stored with who made it (and the
// session moves to ExecutingTool) before the call runs, so it runs at most once, on any instance;
// then its result reaches the parent: a fold ends forced (`crash`) with a partial result that
// holds the call's output, a sub-agent's call gets the call's result, and the parent's run goes
// on from its stored transcript. The child loop itself is not continued (decision 0044 says why).

/** A held call whose child loop a restart ended, as the store holds it. */
export type HeldChildCall =
  | {
      kind: "fold";
      callId: string;
      toolName: string;
      arguments: Record<string, unknown>;
      foldId: string;
      /** the fold's tool_request row holding the call's approval */
      requestId: string;
      loopId: string;
      /** the `branch` call on the active branch that started the fold's outermost fold */
      parentCallId: string | undefined;
    }
  | {
      kind: "subagent";
      callId: string;
      toolName: string;
      arguments: Record<string, unknown>;
      agentName: string;
      loopId: string;
      /** the parent's sub-agent call on the active branch */
      parentCallId: string;
    }
  | {
      kind: "candidate";
      callId: string;
      toolName: string;
      arguments: Record<string, unknown>;
      groupId: string;
      candidate: number;
      loopId: string;
      /** what the candidate wrote before its call (its streamed text) */
      text: string;
      /** an ask-N-ways group has no parent call: its answer continues the active branch */
      parentCallId: undefined;
    };

/** Open folds (started, never returned) and held child calls, read from stored events + rows. */
export function heldChildCallsIn(
  core: StoredSession,
  rows: readonly StoredEvent[],
): {
  calls: HeldChildCall[];
  openFolds: Map<string, FoldStarted>;
  /** the `branch` call of a fold's outermost fold */
  rootOf: (foldId: string) => string | undefined;
} {
  const openFolds = new Map<string, FoldStarted>();
  const started = new Map<string, FoldStarted>();
  const subAgents = new Map<string, Extract<HeldChildCall, { kind: "subagent" }>>();
  const candidates = new Map<string, Extract<HeldChildCall, { kind: "candidate" }>>();
  const groups = new Map<string, { loops: string[]; texts: Map<number, string> }>();
  for (const row of rows) {
    const event = parseStoredEvent(row);
    if (event?.name === "fold_started") {
      openFolds.set(event.payload.fold_id, event.payload);
      started.set(event.payload.fold_id, event.payload);
    } else if (event?.name === "fold_returned") openFolds.delete(event.payload.fold_id);
    else if (event?.name === "subagent_update" && event.payload.kind === "approval") {
      const p = event.payload;
      if (p.status === "pending_approval") {
        subAgents.set(p.call_id, {
          kind: "subagent",
          callId: p.call_id,
          toolName: p.call_name,
          arguments: p.arguments ?? {},
          agentName: p.tool_name,
          loopId: p.loop_id,
          parentCallId: p.tool_call_id,
        });
      } else subAgents.delete(p.call_id);
    } else if (event?.name === "parallel_started") {
      const loops = event.payload.candidates.map((c) => c.loop_id);
      groups.set(event.payload.group_id, { loops, texts: new Map() });
    } else if (event?.name === "candidate_delta" && event.payload.channel === "text") {
      const texts = groups.get(event.payload.group_id)?.texts;
      const p = event.payload;
      texts?.set(p.candidate, (texts.get(p.candidate) ?? "") + p.delta);
    } else if (event?.name === "candidate_tool") {
      const p = event.payload;
      const group = groups.get(p.group_id);
      if (p.status === "pending_approval" && group !== undefined) {
        candidates.set(p.tool_call_id, {
          kind: "candidate",
          callId: p.tool_call_id,
          toolName: p.tool_name,
          arguments: p.arguments ?? {},
          groupId: p.group_id,
          candidate: p.candidate,
          loopId: group.loops[p.candidate] ?? "",
          text: group.texts.get(p.candidate) ?? "",
          parentCallId: undefined,
        });
      } else candidates.delete(p.tool_call_id);
    } else if (event?.name === "parallel_verdict") {
      for (const [id, c] of candidates)
        if (c.groupId === event.payload.group_id) candidates.delete(id);
    }
  }
  const answered = answeredCalls(core);
  const calls: HeldChildCall[] = [];
  for (const m of core.pool.values()) {
    const foldId = m.meta?.fold_id;
    if (foldId === undefined || !openFolds.has(foldId)) continue;
    if (m.body.message_type !== "tool_request") continue;
    for (const c of m.body.calls) {
      if (c.approval !== "pending" || answered.has(c.id)) continue;
      calls.push({
        kind: "fold",
        callId: c.id,
        toolName: c.name,
        arguments: c.arguments,
        foldId,
        requestId: m.id,
        loopId: m.meta?.loop_id ?? "",
        parentCallId: rootCall(started, foldId),
      });
    }
  }
  // a sub-agent's call whose parent call has its result ended with it (no restart cut it off)
  for (const held of subAgents.values()) {
    if (answered.has(held.parentCallId) || core.findToolRequest(held.parentCallId) === undefined)
      continue;
    calls.push(held);
  }
  for (const held of candidates.values()) if (!answered.has(held.callId)) calls.push(held);
  return { calls, openFolds, rootOf: (foldId) => rootCall(started, foldId) };
}

/** The held child calls the session's stored events and rows show now. */
export async function heldChildCalls(core: StoredSession): Promise<HeldChildCall[]> {
  return heldChildCallsIn(core, await core.deps.store.readEvents(core.id, 0)).calls;
}

/** The call ids that have a result anywhere in the pool. */
function answeredCalls(core: StoredSession): Set<string> {
  const answered = new Set<string>();
  for (const m of core.pool.values()) {
    if (m.body.message_type === "tool_result") answered.add(m.body.tool_call_id);
  }
  return answered;
}

/** The `branch` call of a fold's outermost fold (the parent's call). */
function rootCall(started: ReadonlyMap<string, FoldStarted>, foldId: string): string | undefined {
  let fold = started.get(foldId);
  while (fold?.parent_fold_id) fold = started.get(fold.parent_fold_id);
  return fold?.tool_call_id;
}

/** The state a recovered session rests in while held child calls wait. */
export function awaitingHeld(calls: readonly HeldChildCall[]): ContextState {
  return {
    type: "AwaitingToolApproval",
    pending_requests: calls.map((c) => c.callId),
    tool_names: calls.map((c) => c.toolName),
  };
}

/** The decision's event of a held child call, as its waiting event was before the restart. */
function decisionEvent(
  core: StoredSession,
  held: HeldChildCall,
  status: "approved" | "denied",
  by: PersonRef | null,
): SessionEventBody {
  if (held.kind === "fold") {
    return {
      name: "fold_tool",
      payload: {
        context_id: core.id,
        fold_id: held.foldId,
        tool_call_id: held.callId,
        tool_name: held.toolName,
        status,
        decided_by: by,
      },
    };
  }
  if (held.kind === "candidate") {
    return {
      name: "candidate_tool",
      payload: {
        context_id: core.id,
        group_id: held.groupId,
        candidate: held.candidate,
        tool_call_id: held.callId,
        tool_name: held.toolName,
        status,
        decided_by: by,
      },
    };
  }
  return {
    name: "subagent_update",
    payload: {
      context_id: core.id,
      tool_call_id: held.parentCallId,
      tool_name: held.agentName,
      loop_id: held.loopId,
      kind: "approval",
      call_id: held.callId,
      call_name: held.toolName,
      status,
      decided_by: by,
    },
  };
}

/**
 * The decisions for held child calls (the state's pending calls are such calls). Each is stored
 * (its row's approval, its event, with who decided) before anything runs; once none waits, the
 * approved calls run once each and their results reach the parent ("decided": the caller then
 * continues the parent's run). "awaiting" while some still wait. A call that is not waiting (never
 * held, or decided before) is refused, nothing stored.
 */
export async function decideHeldChildCalls(
  core: StoredSession,
  held: readonly HeldChildCall[],
  decisions: readonly ApprovalDecision[],
  signal: AbortSignal,
): Promise<"awaiting" | "decided"> {
  const state = core.state;
  if (state.type !== "AwaitingToolApproval") {
    throw new OperationRejected("invalid_transition", `no tool calls are waiting (${state.type})`);
  }
  const waiting = new Map(held.map((h) => [h.callId, h]));
  const by = core.operator;
  let remembered: RememberedSettings = {
    approval_policy: core.config.approval_policy,
    allow_rules: core.config.allow_rules,
  };
  const events: SessionEventBody[] = [];
  const updates: MessageLifecycleUpdate[] = [];
  const decided = new Map<string, "approved" | "denied">();
  // what each denied call's model would have received: the person's reason with the denial
  const deniedTexts = new Map<string, string>();
  for (const d of decisions) {
    const call = waiting.get(d.tool_call_id);
    if (call === undefined || !state.pending_requests.includes(d.tool_call_id)) {
      throw new OperationRejected(
        "invalid_request",
        `tool call ${d.tool_call_id} is not waiting for approval`,
      );
    }
    const status = d.decision === "approve" ? "approved" : "denied";
    decided.set(call.callId, status);
    if (d.decision === "deny") deniedTexts.set(call.callId, deniedResultText(userNote(d.reason)));
    if (d.decision === "approve") {
      // a held call's arguments are not at hand: bash remembers nothing, a rule is refused
      const outcome = rememberApproval(
        remembered,
        { name: call.toolName, arguments: undefined },
        d,
      );
      if (!outcome.ok) {
        throw new OperationRejected(
          "invalid_request",
          `tool call ${d.tool_call_id}: ${outcome.error}`,
        );
      }
      remembered = outcome.settings;
    }
    events.push(decisionEvent(core, call, status, by));
    if (call.kind === "fold") {
      const note = userNote(d.decision === "deny" ? d.reason : undefined);
      const approval: ApprovalUpdate = { approval: status, approval_note: note, decided_by: by };
      updates.push({ id: call.requestId, approvals: { [call.callId]: approval } });
    }
  }
  const remaining = held.filter(
    (h) => state.pending_requests.includes(h.callId) && !decided.has(h.callId),
  );
  const configChanged =
    remembered.approval_policy !== core.config.approval_policy ||
    remembered.allow_rules !== core.config.allow_rules;
  const write = {
    ...(updates.length > 0 ? { message_updates: updates } : {}),
    ...(configChanged ? { session: { config: { ...core.config, ...remembered } } } : {}),
  };
  const hasWrite = updates.length > 0 || configChanged;
  const approved = held.filter((h) => decided.get(h.callId) === "approved");
  const next: ContextState =
    remaining.length > 0
      ? awaitingHeld(remaining)
      : {
          type: "ExecutingTool",
          tool_name: approved[0]?.toolName ?? "",
          attempt: 1,
          index: 1,
          total: Math.max(1, approved.length),
        };
  // stored before anything runs: a second decision (here or on another instance) finds the call
  // decided, and a crash while it runs leaves it decided (recovery then ends its child loop)
  await core.commit({
    states: [next],
    ...(hasWrite ? { write } : {}),
    events: [...events, core.contextUpdateEvent(next, state)],
  });
  if (remaining.length > 0) return "awaiting";
  const all = held.filter((h) => state.pending_requests.includes(h.callId));
  const results = new Map<string, ToolResultMessage>();
  for (const call of all) {
    const denied = deniedTexts.get(call.callId) ?? DENIED_RESULT_TEXT;
    results.set(call.callId, await runOnce(core, call, decided.get(call.callId), denied, signal));
  }
  await deliverToParent(core, all, results, decided);
  return "decided";
}

/** Runs an approved call once (a denied one becomes `deniedText`, its result). Never throws. */
async function runOnce(
  core: StoredSession,
  held: HeldChildCall,
  status: "approved" | "denied" | undefined,
  deniedText: string,
  signal: AbortSignal,
): Promise<ToolResultMessage> {
  const call: ToolCallContent = {
    type: "toolCall",
    id: held.callId,
    name: held.toolName,
    arguments: held.arguments,
  };
  const denied = status === "approved" ? undefined : new Map([[held.callId, deniedText]]);
  const tools = toolsForMode(core.tools, core.config.agent_mode, core.deps.role);
  return executeSingleTool(call, {
    // the child was offered these (plan tools never reach a child)
    tools: tools.filter((t) => !isPlanTool(t.name)),
    loopId: held.loopId,
    sink: { push: (event) => core.deps.recorder?.onEvent(event) },
    signal,
    hooks: {},
    logger: core.deps.logger,
    strategy: { type: "sequential" },
    getSteeringMessages: () => [],
    ...(denied !== undefined ? { denied } : {}),
  });
}

/**
 * The child calls' results reach the parent: each fold's step is stored, its open folds end
 * forced (`crash`, their partial result now holding the call's output) and the parent's `branch`
 * call gets that result; a sub-agent's parent call gets the call's result. Stored in one commit.
 */
async function deliverToParent(
  core: StoredSession,
  calls: readonly HeldChildCall[],
  results: ReadonlyMap<string, ToolResultMessage>,
  decided: ReadonlyMap<string, "approved" | "denied">,
): Promise<void> {
  const now = core.nowIso();
  const steps: ContextMessage[] = [];
  for (const call of calls) {
    if (call.kind !== "fold") continue;
    const result = results.get(call.callId);
    if (result === undefined) continue;
    const row = toolResultRow(
      result,
      { id: core.newId(), sessionId: core.id, now, loopId: call.loopId, requestId: call.requestId },
      { arguments: call.arguments, approval: decided.get(call.callId) ?? "denied" },
    );
    steps.push({ ...row, meta: { ...row.meta, fold_id: call.foldId } });
  }
  if (steps.length > 0) await core.commit({ write: { messages: steps }, events: [] });
  // the folds' forced returns are read from their stored steps (the new results included)
  const { openFolds } = heldChildCallsIn(core, await core.deps.store.readEvents(core.id, 0));
  const ends = await forcedFolds(
    core,
    [...openFolds.values()].map((f) => ({ ...f, used: 0 })),
  );
  const parentResults = new Map<string, string>();
  for (const end of ends) {
    if (end.callId !== undefined) parentResults.set(end.callId, end.event.payload.message);
  }
  const events: SessionEventBody[] = ends.map((e) => e.event);
  for (const call of calls) {
    if (call.kind !== "subagent") continue;
    const result = results.get(call.callId);
    const text = result?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";
    const outcome =
      decided.get(call.callId) === "approved"
        ? `was approved and ran once; its result:\n${text}`
        : `was denied: ${text}`;
    // several held calls of one sub-agent: its parent call's result tells of each, and it ends once
    const told = parentResults.get(call.parentCallId);
    const line = `its ${call.toolName} call ${outcome}`;
    if (told !== undefined) {
      parentResults.set(call.parentCallId, `${told}\n${line}`);
      continue;
    }
    parentResults.set(
      call.parentCallId,
      `The sub-agent ${call.agentName} was cut off by a server restart while calls of it waited for approval; ${line}`,
    );
    events.push({
      name: "subagent_update",
      payload: {
        context_id: core.id,
        tool_call_id: call.parentCallId,
        tool_name: call.agentName,
        loop_id: call.loopId,
        kind: "ended",
        status: "failed",
        turns: 0,
        // nothing spent: $0
        usage: withCost(emptyUsage(), 0),
      },
    });
  }
  const rows: ContextMessage[] = [];
  // an ask-N-ways candidate's call and its result continue the active branch (the group is gone)
  for (const call of calls) {
    if (call.kind !== "candidate") continue;
    const result = results.get(call.callId);
    if (result === undefined) continue;
    const approval = decided.get(call.callId) ?? "denied";
    const request: ContextMessage = {
      id: core.newId(),
      session_id: core.id,
      role: "assistant",
      status: "complete",
      created_at: now,
      completed_at: now,
      body: {
        message_type: "tool_request",
        text: call.text,
        thinking: [],
        calls: [
          {
            id: call.callId,
            name: call.toolName,
            arguments: call.arguments,
            approval,
            approval_note: "user",
            decided_by: core.operator,
          },
        ],
      },
      meta: { loop_id: call.loopId },
    };
    rows.push(
      request,
      toolResultRow(
        result,
        { id: core.newId(), sessionId: core.id, now, loopId: call.loopId, requestId: request.id },
        { arguments: call.arguments, approval },
      ),
    );
  }
  for (const [callId, text] of parentResults) {
    const found = core.findToolRequest(callId);
    const request = found ? core.pool.get(found.id) : undefined;
    const call = found?.calls.find((c) => c.id === callId);
    if (request === undefined || call === undefined) continue;
    rows.push(
      sessionToolResultRow({ id: core.newId(), sessionId: core.id, now }, request, call, {
        text,
        status: "success",
      }),
    );
  }
  const branchId = core.activeBranchId;
  const after: ContextState[] = [
    { type: "CollectingToolResults" },
    { type: "ProcessingToolResults" },
    // the parent's run goes on from here with a model request, as after a round of its own tools
    {
      type: "ToolAutoLoop",
      depth: 1,
      tools_executed: calls.length,
      tool_names: [...new Set(calls.map((c) => c.toolName))],
    },
  ];
  await core.commit({
    states: after,
    write: {
      messages: rows,
      branch_appends: [{ branch_id: branchId, message_ids: rows.map((m) => m.id) }],
    },
    events: [
      ...events,
      ...after.map((s, i) => core.contextUpdateEvent(s, i === 0 ? core.state : after[i - 1])),
      ...rows.flatMap((m) => core.messageEvents(m, branchId, after.at(-1) as ContextState)),
    ],
  });
}
