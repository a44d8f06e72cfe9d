import { cleanAttachmentName } from "../model/attachments.js";
import { duplicateIds } from "../model/duplicate-ids.js";
import type { ContextMessage } from "../model/message-types.js";
import { sessionToolResultRow } from "./session/agent-rows.js";

// A session file (the JSON export: the active branch's messages) turned into the messages of a new
// session. Every message gets a new id and the new session's id; a tool result's request id
// follows its request. What was in flight when the file was written cannot resume in another
// session: a queued message is left out, a streaming or pending one is kept as incomplete, and
// every tool call without a result, in whatever request (complete or cut off) and whatever its
// approval (approved, auto-approved, pending, denied), gets a `cancelled` result right after its
// request; a pending approval becomes denied. So every tool_use keeps its tool_result, no call
// waits for a decision, and nothing runs by being imported. A file holding a message id or a tool
// call id twice is refused (the request schema answers 400 first; see model/duplicate-ids.ts).

/** The text of the result an imported tool call without one gets. */
export const NOT_RUN_IMPORTED = "not run: the session was imported from a file";

export interface ImportIds {
  sessionId: string;
  newId: () => string;
  now: string;
}

export function importedMessages(
  messages: readonly ContextMessage[],
  ids: ImportIds,
): ContextMessage[] {
  const duplicate = duplicateIds(messages)[0];
  if (duplicate !== undefined) throw new Error(duplicate.message);
  const kept = messages.filter((m) => m.status !== "queued");
  const newIds = new Map(kept.map((m) => [m.id, ids.newId()]));
  const answered = new Set<string>();
  for (const { body } of kept) {
    if (body.message_type === "tool_result") answered.add(body.tool_call_id);
    if ((body.message_type === "plan" || body.message_type === "question") && body.tool_call_id)
      answered.add(body.tool_call_id);
  }
  const out: ContextMessage[] = [];
  for (const message of kept) {
    const status =
      message.status === "streaming" || message.status === "pending"
        ? "incomplete"
        : message.status;
    const copy: ContextMessage = {
      ...message,
      id: newIds.get(message.id) ?? ids.newId(),
      session_id: ids.sessionId,
      status,
    };
    const body = copy.body;
    if (body.message_type === "tool_result") {
      copy.body = { ...body, request_id: newIds.get(body.request_id) ?? body.request_id };
    }
    if (body.message_type === "attachment") {
      copy.body = { ...body, name: cleanAttachmentName(body.name) || "attachment" };
    }
    if (body.message_type === "tool_request") {
      copy.body = {
        ...body,
        calls: body.calls.map((call) =>
          answered.has(call.id) || call.approval !== "pending"
            ? call
            : { ...call, approval: "denied", approval_note: "imported" },
        ),
      };
    }
    out.push(copy);
    if (copy.body.message_type !== "tool_request") continue;
    // a cut-off (incomplete) request is not sent to the model, and its results with it
    // (to-agent-messages.ts); the result still says, in the session, that the call never ran
    for (const call of copy.body.calls) {
      if (answered.has(call.id)) continue;
      out.push(
        sessionToolResultRow(
          { id: ids.newId(), sessionId: ids.sessionId, now: ids.now },
          copy,
          call,
          {
            text: NOT_RUN_IMPORTED,
            status: "cancelled",
          },
        ),
      );
    }
  }
  return out;
}
