import { describe, expect, it } from "vitest";
import { collect, harness, say } from "../../../test/support/session-harness.js";
import type { SessionEvent } from "../../protocol/events.js";

// Message lifecycle updates (context-manager "Message lifecycle updates", issue #16 item 4): a
// streamed answer is announced when its stream begins and finished when it is stored.

/** "created:role", "status_changed:status", "completed", "delta" for `id`, in order. */
function lifecycle(events: readonly SessionEvent[], id: string): string[] {
  return events.flatMap((e): string[] => {
    if (e.name === "content_delta") return e.payload.message_id === id ? ["delta"] : [];
    if (e.name !== "context_update") return [];
    const update = e.payload.message_update;
    if (!update || update.message_id !== id) return [];
    switch (update.kind) {
      case "created":
        return [`created:${update.role}:${update.message_type}`];
      case "status_changed":
        return [`status:${update.status}`];
      case "completed":
        return ["completed"];
      case "queued":
        return ["queued"];
      default:
        return update satisfies never;
    }
  });
}

describe("message lifecycle", () => {
  it("announces an answer before its first delta, then gives its final status once stored", async () => {
    const h = harness([{ blocks: [{ type: "text", text: "Hello there, friend." }], chunkSize: 5 }]);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    const [user, answer] = session.messages().messages;
    const steps = lifecycle(events, answer?.id ?? "");
    expect(steps.slice(0, 3)).toEqual(["created:assistant:text", "status:streaming", "delta"]);
    expect(steps.filter((s) => s === "delta")).toHaveLength(4);
    expect(steps.slice(-2)).toEqual(["status:complete", "completed"]);
    expect(steps.filter((s) => s.startsWith("created"))).toHaveLength(1);
    // the created update names the branch the answer joins
    const created = events.find(
      (e) =>
        e.name === "context_update" &&
        e.payload.message_update?.kind === "created" &&
        e.payload.message_update.message_id === answer?.id,
    );
    expect(
      created?.name === "context_update" &&
        created.payload.message_update?.kind === "created" &&
        created.payload.message_update.branch_id,
    ).toBe(session.activeBranchId);
    // a user message is created and completed when it is stored
    expect(lifecycle(events, user?.id ?? "")).toEqual(["created:user:text", "completed"]);
  });

  it("an answer cut off mid-stream ends incomplete, and one with tool calls keeps its id", async () => {
    const h = harness([
      {
        blocks: [{ type: "text", text: "Half an answer that goes on" }],
        chunkSize: 4,
        interruptAfterChunks: 2,
      },
    ]);
    const session = await h.manager.create();
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    const answer = session.messages().messages.find((m) => m.role === "assistant");
    expect(answer?.status).toBe("incomplete");
    const steps = lifecycle(events, answer?.id ?? "");
    expect(steps[0]).toBe("created:assistant:text");
    expect(steps.at(-1)).toBe("status:incomplete");
    expect(steps).not.toContain("completed");

    const tools = harness(
      [{ blocks: [{ type: "toolCall", name: "echo", arguments: { text: "x" } }] }, say("done")],
      {},
    );
    const withTools = await tools.manager.create({
      config: { approval_policy: { type: "auto_approve_all" } },
    });
    const toolEvents = await collect(withTools.sendMessage({ type: "text", text: "echo" }));
    const request = withTools
      .messages()
      .messages.find((m) => m.body.message_type === "tool_request");
    const toolSteps = lifecycle(toolEvents, request?.id ?? "");
    expect(toolSteps[0]).toBe("created:assistant:text");
    expect(toolSteps.slice(-2)).toEqual(["status:complete", "completed"]);
  });
});
