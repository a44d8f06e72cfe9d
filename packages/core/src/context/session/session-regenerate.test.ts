import { describe, expect, it } from "vitest";
import { call, collect, errors, harness, say } from "../../../test/support/session-harness.js";
import type { Session } from "./session.js";

// Regenerate (issue #18): a new sibling answer on a new branch; the earlier answer stays.

function texts(session: Session, branchId?: string): string[] {
  return session
    .messages(branchId ? { branchId } : {})
    .messages.map((m) => (m.body.message_type === "text" ? m.body.text : m.body.message_type));
}

describe("regenerate", () => {
  it("answers the same message again on a new active branch; the first answer stays on its own", async () => {
    const h = harness([say("first answer"), say("second answer")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const original = session.activeBranchId;
    const answer = session.messages().messages.at(-1);
    if (!answer) throw new Error("no answer");

    const events = await collect(session.regenerate(answer.id));
    expect(errors(events)).toEqual([]);
    expect(session.activeBranchId).not.toBe(original);
    expect(texts(session)).toEqual(["hi", "second answer"]);
    expect(session.state.type).toBe("Idle");
    expect(texts(session, original)).toEqual(["hi", "first answer"]);
    // the model saw the conversation up to the user's message, not the first answer
    const request = h.provider.requests[1];
    expect(request?.messages.map((m) => m.role)).toEqual(["user"]);
    const branch = session.branches.find((b) => b.id === session.activeBranchId);
    expect(branch?.fork_message_id).toBe(session.messages().messages[0]?.id);
  });

  it("regenerates a whole tool round from its last message: the fork is at the user's message", async () => {
    const h = harness([call("echo", { text: "x" }, "c1"), say("done"), say("again")]);
    const session = await h.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    await collect(session.sendMessage({ type: "text", text: "echo x" }));
    expect(texts(session)).toEqual(["echo x", "tool_request", "tool_result", "done"]);
    const last = session.messages().messages.at(-1);
    await collect(session.regenerate(last?.id ?? ""));
    expect(texts(session)).toEqual(["echo x", "again"]);
  });

  it("refuses a message not on the active branch, and a user message with no answer yet", async () => {
    const h = harness([say("ok")]);
    const session = await h.manager.create();
    const none = await collect(session.regenerate("nope"));
    expect(errors(none)[0]).toMatchObject({ code: "invalid_request" });
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const [user] = session.messages().messages;
    const branches = session.branches.length;
    // "hi" has an answer: regenerating from the user's message itself is allowed
    expect(user?.role).toBe("user");
    await collect(session.createBranch({ from_message_id: user?.id ?? "" }));
    const unanswered = await collect(session.regenerate(user?.id ?? ""));
    expect(errors(unanswered)[0]?.message).toContain("no answer to regenerate");
    expect(session.branches.length).toBe(branches + 1);
  });
});

// Issue #26 finding 10 (REQ-180/193): regenerate runs as a Rerun continuation of the loop that
// answered the prompt, edit & resend as a Branch continuation of the loop that answered the edited
// message; their loop records and turns say so.
describe("continuation kinds of regenerate and edit & resend", () => {
  const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

  it("regenerate is a Rerun continuation: child of the loop it answers again", async () => {
    const h = harness([say("first answer"), say("second answer")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const answer = session.messages().messages.at(-1);
    const events = await collect(session.regenerate(answer?.id ?? ""));
    expect(errors(events)).toEqual([]);
    const [first, rerun] = await h.store.listLoops(session.id);
    expect(first?.continuationKind).toBeUndefined();
    expect(rerun?.parentLoopId).toBe(first?.loopId);
    expect(rerun?.continuationKind?.type).toBe("rerun");
    const tag = rerun?.continuationKind?.type === "rerun" ? rerun.continuationKind.tag : "";
    expect(tag).toMatch(RFC3339);
    expect(first?.childLoopIds).toEqual([rerun?.loopId]);
    // the new answer names the rerun's loop
    expect(session.messages().messages.at(-1)?.meta?.loop_id).toBe(rerun?.loopId);
    // the model still sees the user's message once
    expect(h.provider.requests[1]?.messages.map((m) => m.role)).toEqual(["user"]);
  });

  it("edit & resend is a Branch continuation: child of the loop that answered the original", async () => {
    const h = harness([say("first answer"), say("edited answer")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const [user] = session.messages().messages;
    const events = await collect(session.editAndResend(user?.id ?? "", "hello"));
    expect(errors(events)).toEqual([]);
    expect(texts(session)).toEqual(["hello", "edited answer"]);
    const [first, branch] = await h.store.listLoops(session.id);
    expect(branch?.parentLoopId).toBe(first?.loopId);
    expect(branch?.continuationKind?.type).toBe("branch");
    const tag = branch?.continuationKind?.type === "branch" ? branch.continuationKind.tag : "";
    expect(tag).toMatch(RFC3339);
    const request = h.provider.requests[1];
    expect(request?.messages.map((m) => m.role)).toEqual(["user"]);
  });
});
