import type { ContextMessage } from "@arbor/core/browser";

// present_plan and ask_question calls become Plan and Question messages with cards of their own
// (agent-rows.ts): their tool_request would show the same plan or question a second time, as raw
// JSON. The transcript leaves such calls out of their request's card, and leaves the request out
// altogether when nothing else is in it (no other call, no prose, no reasoning). A call whose
// Plan or Question message is not there (it failed: its error result is shown) stays.

/** The messages as the transcript shows them; unchanged messages keep their identity. */
export function withoutCardCalls(messages: readonly ContextMessage[]): ContextMessage[] {
  const carded = new Set<string>();
  for (const m of messages) {
    const body = m.body;
    if ((body.message_type === "plan" || body.message_type === "question") && body.tool_call_id) {
      carded.add(body.tool_call_id);
    }
  }
  if (carded.size === 0) return [...messages];
  return messages.flatMap((m) => {
    const body = m.body;
    if (body.message_type !== "tool_request" || !body.calls.some((c) => carded.has(c.id))) {
      return [m];
    }
    const calls = body.calls.filter((c) => !carded.has(c.id));
    if (calls.length === 0 && body.text === "" && body.thinking.length === 0) return [];
    // a request left with prose or reasoning only shows those (its card lists no call)
    return [{ ...m, body: { ...body, calls } }];
  });
}
