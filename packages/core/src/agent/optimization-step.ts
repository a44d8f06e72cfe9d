import type { AgentMessage } from "../model/llm-messages.js";
import type { LoopRun } from "./loop-run.js";
import { compactionBudget, compactMessages } from "./optimization.js";
import { totalTokens } from "./token-count.js";
import type { ContextConfig } from "./types.js";

// The loop's optimization step (REQ-060, 077, 146): before every model request when contextConfig
// is set, with the caller's CompactionStrategy when given, else the built-in tiered cascade.
// It replaces the run's working history (context.messages) and emits a `compaction` event when
// something changed. The run's new messages are reported untouched (agentEnd.messages); the Agent
// keeps the optimized working history afterwards (REQ-172).

/** How much of the current estimate to aim for after the provider reported an overflow. */
export const OVERFLOW_TARGET = 0.7;

/** Returns true when the history changed. Throws what a custom strategy throws. */
export async function optimizeContext(
  run: LoopRun,
  reason: "budget" | "overflow",
): Promise<boolean> {
  const contextConfig = run.config.contextConfig;
  if (!contextConfig) return false;
  const counter = run.config.tokenCounter;
  const before = run.context.messages;
  // the provider counts differently from our estimate, so "over the window" may look "under budget"
  // here: on overflow, aim the messages at a fraction of their current estimate instead (the system
  // prompt is not among them, so its reserve is zero in this budget)
  const config: ContextConfig =
    reason === "overflow"
      ? {
          ...contextConfig,
          systemPromptTokens: 0,
          maxContextTokens: Math.floor(totalTokens(before, counter) * OVERFLOW_TARGET),
        }
      : contextConfig;

  const strategy = run.config.compactionStrategy;
  let after: AgentMessage[];
  let tiers: Array<1 | 2 | 3 | "custom">;
  let tokensBefore: number | undefined;
  let tokensAfter: number | undefined;
  if (strategy) {
    after = await strategy.compact(before, config, run.signal);
    tiers = ["custom"];
  } else if (
    counter === undefined &&
    reason === "budget" &&
    certainlyWithinBudget(before, compactionBudget(config))
  ) {
    return false;
  } else {
    const result = compactMessages(before, config, counter);
    after = result.messages;
    tiers = result.tiers;
    tokensBefore = result.tokensBefore;
    tokensAfter = result.tokensAfter;
  }
  if (sameMessages(before, after)) return false;
  run.context.messages = after;
  const event = {
    type: "compaction" as const,
    loopId: run.loopId,
    tokensBefore: tokensBefore ?? totalTokens(before, counter),
    tokensAfter: tokensAfter ?? totalTokens(after, counter),
    messagesBefore: before.length,
    messagesAfter: after.length,
    tiers,
    reason,
  };
  // an event on the run's span (telemetry/)
  run.trace.compaction(event);
  await run.sink.push(event);
  return true;
}

/**
 * Cheap pre-check for the default (gpt-tokenizer) counter, which runs before every request: a BPE
 * token covers at least one UTF-8 byte and a UTF-16 code unit is at most 3 bytes, so 3 × length
 * (plus generous per-message/per-block overheads, images at their 16k maximum) bounds the count
 * from above. Under the budget, the cascade would return the history unchanged, so a history that
 * is certainly under it skips tokenizing altogether. Gives up (false) as soon as the bound passes.
 */
function certainlyWithinBudget(messages: readonly AgentMessage[], budget: number): boolean {
  const PER_MESSAGE = 16;
  const PER_BLOCK = 16;
  const IMAGE_MAX = 16_000;
  let bound = 0;
  for (const message of messages) {
    bound += PER_MESSAGE;
    if (message.role === "extension") {
      bound += 3 * (JSON.stringify(message.data ?? null)?.length ?? 0) + message.kind.length * 3;
    } else {
      for (const block of message.content) {
        bound += PER_BLOCK;
        switch (block.type) {
          case "text":
            bound += 3 * block.text.length;
            break;
          case "thinking":
            bound += 3 * (block.thinking.length + (block.signature?.length ?? 0));
            break;
          case "toolCall":
            bound +=
              3 * (block.id.length + block.name.length + JSON.stringify(block.arguments).length);
            break;
          case "image":
            bound += IMAGE_MAX;
            break;
          default:
            block satisfies never;
        }
      }
      if (message.role === "toolResult")
        bound += 3 * (message.toolName.length + message.toolCallId.length);
    }
    if (bound > budget) return false;
  }
  return true;
}

function sameMessages(a: AgentMessage[], b: AgentMessage[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
