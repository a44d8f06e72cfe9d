import type { AgentMessage } from "../model/llm-messages.js";

// Atomic units of a history for optimization. Providers reject a tool result whose call is missing
// and an assistant tool call without its result, so optimization only ever cuts between blocks.

/** [start, end) indexes into the message list. */
export interface MessageBlock {
  start: number;
  end: number;
}

/**
 * A block is either one message, or an assistant message with tool calls together with the tool
 * results answering those calls (and any extension messages sitting between them). A block ends
 * once every call is answered or at the first message that is neither a matching result nor an
 * extension; trailing extension messages are not pulled in.
 */
export function segmentBlocks(messages: readonly AgentMessage[]): MessageBlock[] {
  const blocks: MessageBlock[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    let end = i + 1;
    if (message.role === "assistant") {
      const pending = new Set<string>();
      for (const block of message.content) if (block.type === "toolCall") pending.add(block.id);
      for (let j = i + 1; j < messages.length && pending.size > 0; j++) {
        const next = messages[j]!;
        if (next.role === "toolResult" && pending.has(next.toolCallId)) {
          pending.delete(next.toolCallId);
          end = j + 1;
        } else if (next.role !== "extension") {
          break;
        }
      }
    }
    blocks.push({ start: i, end });
    i = end;
  }
  return blocks;
}

/** blockIndex[i] = index of the block holding message i. */
export function blockIndexOf(blocks: readonly MessageBlock[], length: number): Int32Array {
  const index = new Int32Array(length);
  for (let b = 0; b < blocks.length; b++) {
    const { start, end } = blocks[b]!;
    for (let i = start; i < end; i++) index[i] = b;
  }
  return index;
}

/**
 * Where a tail of (about) `keep` messages starts: moved earlier to the start of the block holding
 * that message so a tool result never starts the tail without its call.
 */
export function tailStart(
  blocks: readonly MessageBlock[],
  index: Int32Array,
  length: number,
  keep: number,
): number {
  if (keep <= 0) return length;
  if (keep >= length) return 0;
  return blocks[index[length - keep]!]!.start;
}

/**
 * Where a head of (about) `keep` messages ends: moved later to the end of the block holding the
 * last head message so a tool call in the head keeps its results.
 */
export function headEnd(blocks: readonly MessageBlock[], index: Int32Array, keep: number): number {
  if (keep <= 0) return 0;
  if (keep >= index.length) return index.length;
  return blocks[index[keep - 1]!]!.end;
}

/**
 * Checks the invariants optimization promises (used by tests and available to debug hooks):
 * every tool result answers a call made by an earlier assistant message that is not answered yet,
 * and every tool call is answered. Returns the first problem found.
 */
export function findPairingProblem(messages: readonly AgentMessage[]): string | undefined {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === "toolResult") {
      if (!open.has(message.toolCallId)) return `orphan tool result ${message.toolCallId}`;
      open.delete(message.toolCallId);
    } else if (message.role === "assistant" || message.role === "user") {
      if (open.size > 0) return `tool call(s) without result: ${[...open].join(", ")}`;
      if (message.role === "assistant") {
        for (const block of message.content) if (block.type === "toolCall") open.add(block.id);
      }
    }
  }
  if (open.size > 0) return `tool call(s) without result: ${[...open].join(", ")}`;
  return undefined;
}
