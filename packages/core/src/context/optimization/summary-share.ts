import type { ContextMessage } from "../../model/message-types.js";
import { factSentences } from "./extractive-summarizer.js";
import { isSummary } from "./model-view.js";

// How many tokens each new summary may take (issue #15: a summary keeps its facts "within its
// token share"). The room is what the target leaves after the fixed part and the kept messages;
// it is split among the batches by how much they have to say: an earlier summary counts whole
// (it is nothing but facts), a text by its fact sentences, the rest a little. A share is never
// below MIN_SUMMARY_SHARE and never above what the batch itself costs.

export const MIN_SUMMARY_SHARE = 150;

const weightCache = new WeakMap<ContextMessage, number>();

/** What a message has to say, in (estimated) tokens. */
export function informationWeight(message: ContextMessage, tokens: number): number {
  const hit = weightCache.get(message);
  if (hit !== undefined) return hit;
  const body = message.body;
  let weight: number;
  switch (body.message_type) {
    case "text":
      weight = 4 + Math.ceil(factSentences(body.text).join(" ").length / 4);
      break;
    case "system_control":
      weight = isSummary(message) ? tokens : 8;
      break;
    case "tool_result":
      weight = body.status === "success" ? 4 : 16;
      break;
    case "plan":
    case "question":
      weight = 30;
      break;
    case "tool_request":
    case "file_reference":
    case "mcp_resource":
    case "attachment":
      weight = 8;
      break;
    default:
      return body satisfies never;
  }
  weightCache.set(message, weight);
  return weight;
}

/**
 * The share of each batch: `room` split by information weight, each at least MIN_SUMMARY_SHARE
 * and at most the batch's own tokens.
 */
export function summaryShares(
  batches: readonly (readonly ContextMessage[])[],
  batchTokens: readonly number[],
  tokensOf: (message: ContextMessage) => number,
  room: number,
): number[] {
  const weights = batches.map((batch) =>
    batch.reduce((sum, message) => sum + informationWeight(message, tokensOf(message)), 0),
  );
  const total = weights.reduce((a, b) => a + b, 0);
  return batches.map((_, b) => {
    const fair = total > 0 ? Math.floor((Math.max(0, room) * weights[b]!) / total) : 0;
    return Math.max(MIN_SUMMARY_SHARE, Math.min(batchTokens[b]!, fair));
  });
}
