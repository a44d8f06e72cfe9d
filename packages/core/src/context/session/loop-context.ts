import { randomUUID } from "node:crypto";
import { OVERFLOW_TARGET } from "../../agent/optimization-step.js";
import type { ChildLoopSetup, LoopContextHandling } from "../../agent/types.js";
import type { ToolDefinition } from "../../model/llm-config.js";
import { type AgentMessage, messageText } from "../../model/llm-messages.js";
import type { ContextMessage } from "../../model/message-types.js";
import { toolDefinition } from "../../tools/tool.js";
import { mayOptimize, optimizeBranch } from "../optimization/optimizer.js";
import { assistantRow, toolResultRow } from "./agent-rows.js";
import {
  type OptimizingSession,
  optimizerLimits,
  optimizerSettings,
} from "./optimizer-settings.js";
import { toAgentMessage, toAgentMessages } from "./to-agent-messages.js";

// How every loop of a session keeps its context within the model's window (issue #26 finding
// 4). The session's run and each child loop it starts — a sub-agent, a fold, an ask-N-ways
// candidate — get their handling from `loopContext`, so they behave the same:
// - the runtime's optimization is off (contextConfig null): the session's optimization stands in,
//   with the session's settings (strategy, trigger and target ratios, summary model, window);
// - before every model request the model gets the optimized view (transformContext), optimized
//   once it passes the trigger;
// - when the provider refuses a request as too long, the history is optimized again aimed below
//   what was refused (OVERFLOW_TARGET of its size) and the request is sent once more
//   (recoverContextOverflow); a second refusal of the same response fails it.
// What differs is where the history lives:
// - the session's run: the active branch, stored. Its summaries and optimization records are
//   stored and the transcript shows them (send-message.ts `view`, run-overflow.ts);
// - a child loop: its own working history, in memory (WorkingHistory below). It is optimized the
//   same way, and nothing of that is stored: the child's steps are kept, shown and stored as they
//   happened; only what the child's model sees is optimized.

/** A loop's history, as its context handling needs it. */
export interface LoopHistory {
  /** the history as the model must see it now (`messages`: the loop's own, all of them) */
  view(messages: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]>;
  /**
   * after the provider refused a request as too long: makes the history smaller, aiming below
   * what was refused; resolves true when it did (the request is then built and sent again)
   */
  shrink(signal: AbortSignal): Promise<boolean>;
}

/** The context handling of one loop of the session, over its history. */
export function loopContext(history: LoopHistory): LoopContextHandling {
  return {
    contextConfig: null,
    transformContext: (messages, signal) => history.view(messages, signal),
    recoverContextOverflow: (signal) => history.shrink(signal),
  };
}

/**
 * A child loop's context handling: the session's optimization over the child's working history.
 * `seed`: rows the history starts from (a candidate starts from the branch's optimized view),
 * standing for the first `messages` of the loop's messages.
 */
export function childContext(
  core: OptimizingSession,
  setup: ChildLoopSetup,
  seed?: { rows: readonly ContextMessage[]; messages: number },
): LoopContextHandling {
  return loopContext(new WorkingHistory(core, setup, seed));
}

/**
 * A child loop's working history as the session's optimizer sees it: the loop's messages as rows
 * (converted once each, as they arrive), replaced by summaries and masked copies as the optimizer
 * decides. A row that the optimizer kept is given back as the loop's own message (thinking,
 * images and details intact); summaries and masked or cut copies as the session's view converts
 * them. Nothing is stored. One per loop: it follows the loop's messages by count.
 */
class WorkingHistory implements LoopHistory {
  readonly #core: OptimizingSession;
  readonly #systemPrompt: string;
  /** the child's tools do not change while it runs: their definitions are made once */
  readonly #tools: ToolDefinition[];
  /** the optimized view of the messages seen so far */
  #rows: ContextMessage[];
  /** how many of the loop's messages `#rows` covers */
  #seen: number;
  readonly #originals = new WeakMap<ContextMessage, AgentMessage>();
  /** tool call id → the id of the row of the call's request */
  readonly #requestOf = new Map<string, string>();

  constructor(
    core: OptimizingSession,
    setup: ChildLoopSetup,
    seed?: { rows: readonly ContextMessage[]; messages: number },
  ) {
    this.#core = core;
    this.#systemPrompt = setup.systemPrompt;
    this.#tools = setup.tools.map(toolDefinition);
    this.#rows = [...(seed?.rows ?? [])];
    this.#seen = seed?.messages ?? 0;
  }

  async view(messages: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]> {
    if (messages.length < this.#seen) {
      // the loop replaced its history (it never does with contextConfig null): start over
      this.#rows = [];
      this.#seen = 0;
    }
    for (const message of messages.slice(this.#seen)) {
      const row = this.#row(message);
      if (row === undefined) continue;
      this.#originals.set(row, message);
      this.#rows.push(row);
    }
    this.#seen = messages.length;
    await this.#optimize(signal, undefined);
    return toAgentMessages(this.#rows, (row) => this.#originals.get(row) ?? toAgentMessage(row));
  }

  shrink(signal: AbortSignal): Promise<boolean> {
    return this.#optimize(signal, OVERFLOW_TARGET);
  }

  /** Optimizes the rows (aiming at `shrinkTo` of their size after an overflow); true: changed. */
  async #optimize(signal: AbortSignal, shrinkTo: number | undefined): Promise<boolean> {
    const core = this.#core;
    const before = this.#rows;
    const request = {
      ...optimizerLimits(core),
      messages: before,
      systemPrompt: this.#systemPrompt,
      tools: this.#tools,
      ...(shrinkTo !== undefined ? { shrinkTo } : {}),
    };
    // nothing of an unchanged result is used here: a history that cannot reach the trigger is
    // not tokenized (a fold's few first messages, usually), nor is the rest set up
    if (!mayOptimize(request)) return false;
    const result = await optimizeBranch({
      ...optimizerSettings(core),
      ...request,
      newId: () => `child-${randomUUID()}`,
      branchId: core.activeBranchId,
      signal,
    });
    const changed =
      result.view.length !== before.length || result.view.some((row, i) => row !== before[i]);
    if (!changed) return false;
    this.#rows = result.view;
    core.deps.logger.info("a child loop's context was optimized", {
      session: core.id,
      reason: shrinkTo !== undefined ? "context_overflow" : "budget",
      tokens_before: result.record.tokens_before,
      tokens_after: result.record.tokens_after,
      tiers: result.tiers,
    });
    return true;
  }

  /** One of the loop's messages as a row (extension messages are never sent: none). */
  #row(message: AgentMessage): ContextMessage | undefined {
    const core = this.#core;
    const now = core.nowIso();
    const ctx = { id: `child-${randomUUID()}`, sessionId: core.id, now, loopId: "" };
    switch (message.role) {
      case "user":
        return {
          id: ctx.id,
          session_id: core.id,
          role: "user",
          body: { message_type: "text", text: messageText(message) },
          status: "complete",
          created_at: now,
          completed_at: now,
        };
      case "assistant": {
        const row = assistantRow(message, ctx, "complete", () => "auto_approved");
        for (const block of message.content) {
          if (block.type === "toolCall") this.#requestOf.set(block.id, row.id);
        }
        return row;
      }
      case "toolResult":
        return toolResultRow(
          message,
          { ...ctx, requestId: this.#requestOf.get(message.toolCallId) ?? "" },
          undefined,
        );
      case "extension":
        return undefined;
      default:
        return message satisfies never;
    }
  }
}
