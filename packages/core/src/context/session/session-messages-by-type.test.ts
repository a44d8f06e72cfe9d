import { describe, expect, it } from "vitest";
import { call, collect, harness, say } from "../../../test/support/session-harness.js";

// Context Manager "Retrieving messages by type" (issue #26 finding 10): only messages of the asked
// types, in branch order, from the full view or the optimized one.

describe("messages by type", () => {
  it("keeps only the asked types, in order", async () => {
    const h = harness([call("echo", { text: "a" }, "c1"), say("one"), say("two")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "echo a" }));
    await collect(session.sendMessage({ type: "text", text: "again" }));
    const all = session.messages().messages.map((m) => m.body.message_type);
    expect(all).toEqual(["text", "tool_request", "tool_result", "text", "text", "text"]);

    const requests = session.messages({ types: ["tool_request"] }).messages;
    expect(requests.map((m) => m.body.message_type)).toEqual(["tool_request"]);
    const round = session.messages({ types: ["tool_result", "tool_request"] }).messages;
    // branch order, not the order the types were asked in
    expect(round.map((m) => m.body.message_type)).toEqual(["tool_request", "tool_result"]);
    const optimized = session.messages({ view: "optimized", types: ["text"] }).messages;
    expect(optimized.map((m) => m.body.message_type)).toEqual(["text", "text", "text", "text"]);
    expect(session.messages({ types: ["plan"] }).messages).toEqual([]);
  });
});
