import type { ContextMessage } from "./message-types.js";

// Ids that a list of messages (an imported session file) holds more than once. Message ids key
// the stored rows and tool call ids pair each tool_use with its tool_result: a file holding either
// twice cannot become a session, so the import refuses it, naming the second occurrence.

export interface DuplicateId {
  /** where the second (third, …) occurrence is, relative to the list: [3, "id"] */
  path: (string | number)[];
  /** what is duplicated, for the error message */
  message: string;
}

function dotted(prefix: string, path: readonly (string | number)[]): string {
  return [prefix, ...path].join(".");
}

/**
 * Every message id and every tool call id seen before in `messages`, in order. Paths are relative
 * to the list; `prefix` (the list's own field, "messages") only goes into the messages' text.
 */
export function duplicateIds(
  messages: readonly Pick<ContextMessage, "id" | "body">[],
  prefix = "messages",
): DuplicateId[] {
  const messageIds = new Map<string, (string | number)[]>();
  const callIds = new Map<string, (string | number)[]>();
  const out: DuplicateId[] = [];
  for (const [i, message] of messages.entries()) {
    const path = [i, "id"];
    const first = messageIds.get(message.id);
    if (first === undefined) messageIds.set(message.id, path);
    else
      out.push({
        path,
        message: `duplicate message id ${JSON.stringify(message.id)} (also ${dotted(prefix, first)})`,
      });
    if (message.body.message_type !== "tool_request") continue;
    for (const [j, call] of message.body.calls.entries()) {
      const callPath = [i, "body", "calls", j, "id"];
      const seen = callIds.get(call.id);
      if (seen === undefined) callIds.set(call.id, callPath);
      else
        out.push({
          path: callPath,
          message: `duplicate tool call id ${JSON.stringify(call.id)} (also ${dotted(prefix, seen)})`,
        });
    }
  }
  return out;
}
