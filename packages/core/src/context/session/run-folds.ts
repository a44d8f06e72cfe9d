import type { AgentEvent, AgentLoopConfig, ToolCallVerdict } from "../../agent/types.js";
import { type FoldEvent, FoldRuntime } from "../../fold-runtime/fold-runtime.js";
import { scrubSecrets } from "../../folding/scrub.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  type ToolCallContent,
  type ToolResultMessage,
} from "../../model/llm-messages.js";
import type { ApprovalStatus, ContextMessage } from "../../model/message-types.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { assistantRow, toolResultRow } from "./agent-rows.js";
import { initialApproval } from "./approval-policy.js";
import type { RunContext } from "./run-context.js";
import { summarizerFor } from "./session-optimization.js";
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

/** The result a fold's gate gives a call that the session's policy would hold for a person. */
export const FOLD_NEEDS_APPROVAL =
  "This call needs a person's approval under the session's approval policy, and a fold cannot wait for one: do it outside the fold, or return and say it is needed.";

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
  const pending: { messages: ContextMessage[]; events: FoldEvent[] } = { messages: [], events: [] };
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
        const events = pending.events.splice(0);
        if (messages.length === 0 && events.length === 0) return undefined;
        return core.commit({ ...(messages.length > 0 ? { write: { messages } } : {}), events });
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
  const verdictOf = (name: string): "run" | "not_offered" | "held" => {
    if (!offered.has(name)) return "not_offered";
    if (name === "return") return "run";
    return initialApproval(core.config.approval_policy, name) === "auto_approved" ? "run" : "held";
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
    toolExecution: { type: "sequential" },
    ...(parentLoop.logger !== undefined ? { logger: parentLoop.logger } : {}),
    // the parent's gate, for calls it decides alone; a call it would hold is refused (see above)
    approveToolCalls: (calls: readonly ToolCallContent[]) =>
      calls.map((c): ToolCallVerdict => {
        const verdict = verdictOf(c.name);
        if (verdict === "run") return { toolCallId: c.id, verdict: "run" };
        return {
          toolCallId: c.id,
          verdict: "deny",
          reason: verdict === "held" ? FOLD_NEEDS_APPROVAL : `Tool ${c.name} not found`,
        };
      }),
  };
  const summarizer = summarizerFor(core);
  const memories = core.workspace ? core.deps.foldMemories?.(core.workspace.root) : undefined;
  const onLoopEvent = (event: AgentEvent): Promise<void> | undefined => {
    core.deps.recorder?.onEvent(event);
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
        (name) => approvalOf(verdictOf(name)),
      );
      if (row.body.message_type === "tool_request") {
        for (const call of row.body.calls) {
          if (verdictOf(call.name) === "held") call.approval_note = "held: not inside a fold";
          rounds.set(call.id, { requestId: row.id, call });
        }
      }
      rows.push(withFold(row, foldId));
    } else if (event.type === "turnEnd") {
      for (const result of event.toolResults) {
        const entry = rounds.get(result.toolCallId);
        rounds.delete(result.toolCallId);
        rows.push(
          withFold(
            toolResultRow(
              result,
              { ...rowContext(core.newId()), requestId: entry?.requestId ?? "unknown" },
              entry?.call,
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
    settings,
    scrub: scrubSecrets,
    summarize: (steps, signal) => summarizer.summarize(stepsAsRows(core, steps), signal),
    ...(memories ? { memories } : {}),
    newFoldId: () => `fold-${core.newId()}`,
    newLoopId: () => `${run.loopId}.fold.${++loops}`,
    onLoopEvent,
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
  return verdict === "run" ? "auto_approved" : "denied";
}

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
