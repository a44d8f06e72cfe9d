import type { ContextMessage } from "../../model/message-types.js";
import type { OptimizationStrategy } from "../../model/session-config.js";

// Observation masking, the cheap tier before any dialogue is summarized (issue #15; JetBrains'
// study of agent context management found it halves the cost at an equal solve rate): the output
// of an old tool call is replaced by a one-line note saying what it was, while the call and its
// arguments stay. The model calls the tool again when it needs the output (a file is re-read as it
// is now rather than kept as it was).
//
// A masked result is a NEW stored message (a tool_result with the same request and call ids, so
// the pair stays whole), recorded in the optimization's record like a summary that replaces the
// one original: the mask then holds for the following requests (a stable prefix keeps the
// provider's prompt cache warm) and the original stays in storage.

export const MASK_PREFIX = "[Output masked to save context:";

/** Results smaller than this many characters are left alone: the note would save little. */
export const MASK_MIN_CHARS = 600;

const NOTE_FIRST_LINE_CHARS = 100;

/** True for a result that is already a mask (or holds no text worth masking). */
export function isMasked(message: ContextMessage): boolean {
  const body = message.body;
  if (body.message_type !== "tool_result") return false;
  const first = body.content[0];
  return first?.type === "text" && first.text.startsWith(MASK_PREFIX);
}

/** The recent messages each strategy keeps whole: their results are never masked. */
export function recentKeep(strategy: OptimizationStrategy): number {
  switch (strategy.type) {
    case "recent_n":
      return strategy.n;
    case "intelligent":
    case "importance_scoring":
      return strategy.keep_recent;
    default:
      return strategy satisfies never;
  }
}

function chars(message: ContextMessage): { chars: number; lines: number; first: string } {
  const body = message.body;
  if (body.message_type !== "tool_result") return { chars: 0, lines: 0, first: "" };
  let total = 0;
  let lines = 0;
  let first = "";
  for (const block of body.content) {
    if (block.type !== "text") {
      total += 1_000;
      continue;
    }
    total += block.text.length;
    lines += block.text.split("\n").length;
    if (!first) first = block.text.trim().split("\n", 1)[0] ?? "";
  }
  return { chars: total, lines, first };
}

/** The one-line note that stands for a masked output. */
export function maskNote(message: ContextMessage): string {
  const { chars: size, lines, first } = chars(message);
  const began =
    first.length > NOTE_FIRST_LINE_CHARS ? `${first.slice(0, NOTE_FIRST_LINE_CHARS - 1)}…` : first;
  const status =
    message.body.message_type === "tool_result" && message.body.status !== "success"
      ? ` (${message.body.status})`
      : "";
  return `${MASK_PREFIX} ${lines} lines, ${size} characters${status}; it began "${began}". Call the tool again if you need it.]`;
}

/** Whether masking `message` is worth it: a tool result with enough text, not masked yet. */
export function maskable(message: ContextMessage): boolean {
  return (
    message.body.message_type === "tool_result" &&
    !isMasked(message) &&
    chars(message).chars >= MASK_MIN_CHARS
  );
}

/** The masked copy of a tool result: a new id, the same request and call, the note as content. */
export function maskedCopy(
  message: ContextMessage,
  id: string,
  now: string,
): ContextMessage | undefined {
  const body = message.body;
  if (body.message_type !== "tool_result") return undefined;
  return {
    id,
    session_id: message.session_id,
    role: message.role,
    status: "complete",
    created_at: now,
    completed_at: now,
    body: {
      message_type: "tool_result",
      request_id: body.request_id,
      tool_call_id: body.tool_call_id,
      tool_name: body.tool_name,
      status: body.status,
      content: [{ type: "text", text: maskNote(message) }],
    },
    ...(message.meta?.loop_id ? { meta: { loop_id: message.meta.loop_id } } : {}),
  };
}
