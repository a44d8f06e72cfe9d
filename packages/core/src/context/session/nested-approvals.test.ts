import { describe, expect, it } from "vitest";
import type { SessionEventBody } from "../../protocol/events.js";
import { NestedApprovals, type NestedCall } from "./nested-approvals.js";

function call(toolName: string): NestedCall {
  return {
    toolName,
    decisionEvent: (status): SessionEventBody => ({
      name: "fold_tool",
      payload: {
        context_id: "s",
        fold_id: "f",
        tool_call_id: "c",
        tool_name: toolName,
        status,
      },
    }),
  };
}

describe("NestedApprovals", () => {
  it("holds a call until it is decided, then remembers how", async () => {
    const approvals = new NestedApprovals();
    const read = call("read_file");
    const waiting = approvals.wait("c1", read, new AbortController().signal);
    expect(approvals.holds("c1")).toBe(true);
    expect(approvals.waiting("c1")).toBe(read);
    expect(approvals.decidedAs("c1")).toBeUndefined();
    expect(approvals.decide("other", "approve")).toBe(false);
    expect(approvals.decide("c1", "approve")).toBe(true);
    await expect(waiting).resolves.toEqual({ decision: "approve" });
    expect(approvals.holds("c1")).toBe(false);
    expect(approvals.decidedAs("c1")).toBe("approved");
    // a second decision finds nothing waiting
    expect(approvals.decide("c1", "deny")).toBe(false);
    expect(approvals.claim("c1", "deny")).toBeUndefined();
  });

  it("a denial hands the waiting call the person's reason (issue #27)", async () => {
    const approvals = new NestedApprovals();
    const waiting = approvals.wait("c1", call("bash"), new AbortController().signal);
    approvals.claim("c1", "deny");
    approvals.decide("c1", "deny", "use pnpm");
    await expect(waiting).resolves.toEqual({ decision: "deny", reason: "use pnpm" });
  });

  it("a claim refuses a second decision until it is released", async () => {
    const approvals = new NestedApprovals();
    const waiting = approvals.wait("c1", call("bash"), new AbortController().signal);
    expect(approvals.claim("c1", "deny")?.toolName).toBe("bash");
    expect(approvals.decidedAs("c1")).toBe("denied");
    // the decision could not be stored: it waits for one again
    approvals.release("c1");
    expect(approvals.decidedAs("c1")).toBeUndefined();
    expect(approvals.holds("c1")).toBe(true);
    approvals.claim("c1", "approve");
    approvals.decide("c1", "approve");
    await expect(waiting).resolves.toEqual({ decision: "approve" });
  });

  it("an abort denies what waits, and a call after the abort at once", async () => {
    const approvals = new NestedApprovals();
    const controller = new AbortController();
    const waiting = approvals.wait("c1", call("bash"), controller.signal);
    controller.abort();
    await expect(waiting).resolves.toEqual({ decision: "deny" });
    expect(approvals.size).toBe(0);
    expect(approvals.decidedAs("c1")).toBe("denied");
    await expect(approvals.wait("c2", call("bash"), controller.signal)).resolves.toEqual({
      decision: "deny",
    });
    expect(approvals.holds("c2")).toBe(false);
  });
});
