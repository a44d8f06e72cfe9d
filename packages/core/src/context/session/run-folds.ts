import type { AgentEvent, AgentLoopConfig, ToolCallVerdict } from "../../agent/types.js";
import { type FoldEvent, type FoldRecord, FoldRuntime } from "../../folding/fold-runtime.js";
import { scrubSecrets } from "../../folding/scrub.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  type ToolCallContent,
  type ToolResultMessage,
} from "../../model/llm-messages.js";
import type { ApprovalStatus, ContextMessage } from "../../model/message-types.js";
import type { PersonRef } from "../../model/person.js";
import type { MessageLifecycleUpdate } from "../../model/session-records.js";
import type { SessionEventBody } from "../../protocol/events.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { assistantRow, toolResultRow } from "./agent-rows.js";
import { approvalFor, deniedResultText, readOnlyNames, userNote } from "./approval-policy.js";
import { childContext } from "./loop-context.js";
import type { NestedStatus } from "./nested-approvals.js";
import { summarizerFor } from "./optimizer-settings.js";
import type { RunContext } from "./run-context.js";
import type { StoredSession } from "./stored-session.js";

// Context folding in a session (issue #13, docs/decisions/0021 and 0031). When the session's
// config enables folding, each run gets a FoldRuntime: the model is offered `branch`, and a fold
// (a child loop with its own context: system prompt, fold note, memories, prompt) is offered the
// run's tools plus `return`. The fold's steps are stored as rows with `meta.fold_id` in the
// session's pool, on no branch: viewable (GET /folds, the fold card), never in the parent's
// context, whose only trace of the fold is its `branch` call's result (the scrubbed return
// message). The fold events (started, budget warning, returned) are stored session events, so
// they stream to clients and replay like the rest; the fold's loop is recorded under the
// parent's loop (the `branch` result names it as the call's child loop).
//
// A fold has the parent's approval policy (decision 0035): a call the policy runs at once runs; a
// call it holds for a person is stored with its approval pending and a `fold_tool` event
// (pending_approval), and the fold waits for the decision in the session's nested approvals
// (nested-approvals.ts), as an ask-N-ways candidate does: POST /approvals decides it at once, its
// decision is stored on the fold's row with a `fold_tool` event, and a denied call's result tells
// the fold's model so. The fold's timeout is paused while it waits; an interrupt (or the fold
// being forced back) denies the call, stored as such (`cancelled`).

export interface RunFolds {
  runtime: FoldRuntime;
  /** resolves once no fold runs and every fold write is stored */
  settled(): Promise<void>;
}

/** Makes the run's fold runtime; undefined when folding is off. */
export function foldRuntimeFor(
  run: RunContext,
  input: { systemPrompt: string; tools: AnyAgentTool[] },
  parentLoop: AgentLoopConfig,
): RunFolds | undefined {
  const core = run.core;
  const settings = core.config.folding;
  if (!settings.enabled) return undefined;
  const offered = new Set([...input.tools.map((t) => t.name), "branch", "return"]);
  const foldOfLoop = new Map<string, string>();
  const rounds = new Map<string, { requestId: string; call: FoldCall }>();
  let loops = 0;
  // The folds' rows and events are written in order by a group commit: what arrives while a
  // write waits or is in flight goes in the next one, together (each write waits one turn of the
  // event loop first, so a fold's quick steps share it). The fold's loop does not wait for them;
  // `settled` does. A failure is logged: the fold goes on, its steps are what was stored.
  const pending: {
    messages: ContextMessage[];
    updates: MessageLifecycleUpdate[];
    events: FoldWriteEvent[];
  } = { messages: [], updates: [], events: [] };
  let writes: Promise<void> = Promise.resolve();
  let scheduled = false;
  const flush = (): void => {
    if (scheduled) return;
    scheduled = true;
    writes = writes
      // one turn of the event loop first: what the fold does meanwhile joins this write
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        scheduled = false;
        const messages = pending.messages.splice(0);
        const updates = pending.updates.splice(0);
        const events = pending.events.splice(0);
        if (messages.length === 0 && updates.length === 0 && events.length === 0) return undefined;
        const write = {
          ...(messages.length > 0 ? { messages } : {}),
          ...(updates.length > 0 ? { message_updates: updates } : {}),
        };
        const hasWrite = messages.length > 0 || updates.length > 0;
        return core.commit({ ...(hasWrite ? { write } : {}), events });
      })
      .then(
        () => undefined,
        (error: unknown) =>
          core.deps.logger.error("a fold's write failed", {
            session: core.id,
            error: error instanceof Error ? error.message : String(error),
          }),
      );
  };
  const readOnly = readOnlyNames(input.tools);
  const verdictOf = (
    name: string,
    args: Record<string, unknown>,
  ): "run" | "not_offered" | "held" => {
    if (!offered.has(name)) return "not_offered";
    if (name === "return") return "run";
    const first = approvalFor(core.config, { name, arguments: args }, (n) => readOnly.has(n));
    return first.approval === "auto_approved" ? "run" : "held";
  };
  const loopConfig: AgentLoopConfig = {
    provider: parentLoop.provider,
    model: parentLoop.model,
    ...(parentLoop.thinkingLevel !== undefined ? { thinkingLevel: parentLoop.thinkingLevel } : {}),
    ...(parentLoop.maxTokens !== undefined ? { maxTokens: parentLoop.maxTokens } : {}),
    contextConfig: null,
    ...(parentLoop.executionLimits !== undefined
      ? { executionLimits: parentLoop.executionLimits }
      : {}),
    ...(parentLoop.retryConfig !== undefined ? { retryConfig: parentLoop.retryConfig } : {}),
    // the session's tool_execution, as the parent loop runs its calls
    ...(parentLoop.toolExecution !== undefined ? { toolExecution: parentLoop.toolExecution } : {}),
    ...(parentLoop.logger !== undefined ? { logger: parentLoop.logger } : {}),
    // the fold's gate is `approve` below (it knows the fold); this one is never asked
  };
  const decided = new Map<string, NestedStatus>();
  const foldTool = (
    foldId: string,
    call: { id: string; name: string; arguments?: Record<string, unknown> },
    status: "pending_approval" | NestedStatus,
    cancelled = false,
    by?: PersonRef | null,
  ): FoldWriteEvent => ({
    name: "fold_tool",
    payload: {
      context_id: core.id,
      fold_id: foldId,
      tool_call_id: call.id,
      tool_name: call.name,
      ...(call.arguments !== undefined ? { arguments: call.arguments } : {}),
      status,
      ...(cancelled ? { cancelled: true } : {}),
      ...(by !== undefined ? { decided_by: by } : {}),
    },
  });
  const approvalUpdate = (
    callId: string,
    status: NestedStatus,
    note: string,
    by: PersonRef | null = null,
  ): MessageLifecycleUpdate | undefined => {
    const requestId = rounds.get(callId)?.requestId;
    if (requestId === undefined) return undefined;
    const approval = { approval: status, approval_note: note, decided_by: by };
    return { id: requestId, approvals: { [callId]: approval } };
  };
  // the fold's gate: the session's policy, then (held) a person, as in the parent
  const approve = async (
    calls: readonly ToolCallContent[],
    fold: FoldRecord,
    signal: AbortSignal,
  ): Promise<ToolCallVerdict[]> => {
    const waits = calls.map(async (c): Promise<ToolCallVerdict> => {
      const verdict = verdictOf(c.name, c.arguments);
      if (verdict === "run") return { toolCallId: c.id, verdict: "run" };
      if (verdict === "not_offered") {
        return { toolCallId: c.id, verdict: "deny", reason: `Tool ${c.name} not found` };
      }
      // queued before it waits (the write comes a turn later), so its denial, if the fold has
      // ended already, follows it; and no decision can come before it waits
      pending.events.push(foldTool(fold.id, c, "pending_approval"));
      const decision = core.nestedApprovals.wait(
        c.id,
        {
          toolName: c.name,
          decisionEvent: (status, by) => foldTool(fold.id, c, status, false, by),
          // a denial's reason is kept in the row's note, as a top-level call's is
          rowUpdate: (status, by, reason) => approvalUpdate(c.id, status, userNote(reason), by),
          // the call's row and pending event are in the fold's writes: the decision comes after
          stored: () => writes,
          cancelled: () => {
            decided.set(c.id, "denied");
            const update = approvalUpdate(c.id, "denied", "cancelled: the fold ended");
            if (update !== undefined) pending.updates.push(update);
            pending.events.push(foldTool(fold.id, c, "denied", true));
            flush();
          },
        },
        signal,
      );
      flush();
      const given = await decision;
      const status = given.decision === "approve" ? "approved" : "denied";
      decided.set(c.id, status);
      // who decided, for the call's span: the person, else the fold's end denied it
      const by = core.nestedApprovals.decidedBy(c.id);
      const source = by !== undefined ? { decidedBy: by } : { rule: "cancelled" };
      return given.decision === "approve"
        ? { toolCallId: c.id, verdict: "run", ...source }
        : {
            toolCallId: c.id,
            verdict: "deny",
            reason: deniedResultText(userNote(given.reason)),
            ...source,
          };
    });
    return Promise.all(waits);
  };
  const summarizer = summarizerFor(core);
  const memories = core.workspace ? core.deps.foldMemories?.(core.workspace.root) : undefined;
  const onLoopEvent = (event: AgentEvent): Promise<void> | undefined => {
    core.deps.recorder?.onEvent(event);
    // only a message's end and a turn's end store rows (most of a loop's events are neither)
    if (event.type !== "messageEnd" && event.type !== "turnEnd") return undefined;
    const foldId = foldOfLoop.get(event.loopId);
    if (foldId === undefined) return undefined;
    const rowContext = (id: string) => ({
      id,
      sessionId: core.id,
      now: core.nowIso(),
      loopId: event.loopId,
    });
    const rows: ContextMessage[] = [];
    if (event.type === "messageEnd" && event.message.role === "user") {
      rows.push({
        id: core.newId(),
        session_id: core.id,
        role: "user",
        body: { message_type: "text", text: messageText(event.message) },
        status: "complete",
        created_at: core.nowIso(),
        completed_at: core.nowIso(),
        meta: { loop_id: event.loopId, fold_id: foldId },
      });
    } else if (event.type === "messageEnd" && event.message.role === "assistant") {
      const message = event.message as AssistantMessage;
      const cut = message.stopReason === "error" || message.stopReason === "aborted";
      const row = assistantRow(
        message,
        rowContext(core.newId()),
        cut ? "incomplete" : "complete",
        (name, args) => approvalOf(verdictOf(name, args)),
      );
      if (row.body.message_type === "tool_request") {
        for (const call of row.body.calls) rounds.set(call.id, { requestId: row.id, call });
      }
      rows.push(withFold(row, foldId));
    } else if (event.type === "turnEnd") {
      for (const result of event.toolResults) {
        const entry = rounds.get(result.toolCallId);
        rounds.delete(result.toolCallId);
        // a held call's decision (the stored row is frozen: its approval is updated by id)
        const approval = decided.get(result.toolCallId);
        decided.delete(result.toolCallId);
        const call = entry && approval ? { ...entry.call, approval } : entry?.call;
        rows.push(
          withFold(
            toolResultRow(
              result,
              { ...rowContext(core.newId()), requestId: entry?.requestId ?? "unknown" },
              call,
            ),
            foldId,
          ),
        );
      }
    }
    if (rows.length === 0) return undefined;
    pending.messages.push(...rows);
    flush();
    return undefined;
  };
  const runtime = new FoldRuntime({
    sessionId: core.id,
    agentId: "arbor",
    systemPrompt: input.systemPrompt,
    tools: input.tools,
    loopConfig,
    // the session's optimization and overflow recovery, as for every loop (loop-context.ts)
    context: (setup) => childContext(core, setup),
    approve,
    settings,
    scrub: scrubSecrets,
    summarize: (steps, signal) => summarizer.summarize(stepsAsRows(core, steps), signal),
    ...(memories ? { memories } : {}),
    newFoldId: () => `fold-${core.newId()}`,
    newLoopId: () => `${run.loopId}.fold.${++loops}`,
    onLoopEvent,
    onLoopReturned: (loopId, messages) => core.deps.recorder?.returned(loopId, messages),
    onFoldEvent: (event: FoldEvent) => {
      if (event.name === "fold_started" && event.payload.loop_id !== null) {
        foldOfLoop.set(event.payload.loop_id, event.payload.fold_id);
      }
      pending.events.push(event);
      flush();
    },
  });
  return {
    runtime,
    async settled() {
      await runtime.idle();
      await writes;
    },
  };
}

type FoldCall = { arguments: Record<string, unknown>; approval: ApprovalStatus };

function approvalOf(verdict: "run" | "not_offered" | "held"): ApprovalStatus {
  return verdict === "run" ? "auto_approved" : verdict === "held" ? "pending" : "denied";
}

/** What a fold writes besides its rows: its own events and its calls' approvals. */
type FoldWriteEvent = FoldEvent | Extract<SessionEventBody, { name: "fold_tool" }>;

function withFold(row: ContextMessage, foldId: string): ContextMessage {
  return { ...row, meta: { ...row.meta, fold_id: foldId } };
}

/** A fold's steps as rows for the session's summarizer (a forced return's partial result). */
function stepsAsRows(core: StoredSession, steps: readonly AgentMessage[]): ContextMessage[] {
  const now = core.nowIso();
  const rows: ContextMessage[] = [];
  for (const step of steps) {
    const ctx = { id: core.newId(), sessionId: core.id, now, loopId: "" };
    if (step.role === "assistant") {
      rows.push(assistantRow(step, ctx, "complete", () => "auto_approved"));
    } else if (step.role === "toolResult") {
      rows.push(toolResultRow(step as ToolResultMessage, { ...ctx, requestId: "fold" }, undefined));
    } else if (step.role === "user") {
      rows.push({
        id: ctx.id,
        session_id: core.id,
        role: "user",
        body: { message_type: "text", text: messageText(step) },
        status: "complete",
        created_at: now,
        completed_at: now,
      });
    }
  }
  return rows;
}
