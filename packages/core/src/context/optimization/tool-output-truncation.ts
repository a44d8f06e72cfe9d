import { truncateText } from "../../agent/optimization-tiers.js";
import type { ContextMessage } from "../../model/message-types.js";

// Tier 1, the cheap one: long tool result texts are cut to their head and tail around a
// `[... N lines truncated ...]` marker (the runtime's truncateText, so both layers cut alike).
// The result is a VIEW copy with the same id; the stored message is untouched. Deterministic and
// cached per source message, so re-optimizing yields the very same objects (token counts stay
// cached) and truncating an already truncated copy changes nothing.

/** Lines kept of one tool result text (marker included). */
export const TOOL_RESULT_MAX_LINES = 60;

const cache = new WeakMap<ContextMessage, ContextMessage>();

export function truncateToolResult(message: ContextMessage): ContextMessage {
  const body = message.body;
  if (body.message_type !== "tool_result") return message;
  const hit = cache.get(message);
  if (hit) return hit;
  let changed = false;
  const content = body.content.map((block) => {
    if (block.type !== "text") return block;
    const text = truncateText(block.text, TOOL_RESULT_MAX_LINES);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  const out = changed ? { ...message, body: { ...body, content } } : message;
  cache.set(message, out);
  if (out !== message) cache.set(out, out);
  return out;
}

function textChars(message: ContextMessage): number {
  const body = message.body;
  if (body.message_type !== "tool_result") return 0;
  let chars = 0;
  for (const block of body.content) if (block.type === "text") chars += block.text.length;
  return chars;
}

/**
 * Tokens of a truncated copy without tokenizing it: the original's count scaled by the share of
 * text kept. Used only to CHOOSE (is truncation enough? what fits?); every message that ends up in
 * the view is counted exactly. Tokenizing every truncated copy up front would dominate the cost of
 * a first optimization, although most of them end up summarized.
 */
export function estimateTruncatedTokens(
  original: ContextMessage,
  copy: ContextMessage,
  originalTokens: number,
): number {
  if (copy === original) return originalTokens;
  const before = textChars(original);
  return before === 0 ? originalTokens : Math.ceil((originalTokens * textChars(copy)) / before);
}
