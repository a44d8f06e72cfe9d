import { describe, expect, it } from "vitest";
import { ParallelApprovals } from "./parallel-approvals.js";

describe("ParallelApprovals", () => {
  it("holds a call until it is decided, and says whose it was", async () => {
    const approvals = new ParallelApprovals();
    const waiting = approvals.wait("c1", 2, "read_file", new AbortController().signal);
    expect(approvals.holds("c1")).toBe(true);
    expect(approvals.decide("other", "approve")).toBeUndefined();
    expect(approvals.decide("c1", "approve")).toEqual({ candidate: 2, toolName: "read_file" });
    await expect(waiting).resolves.toBe("approve");
    expect(approvals.holds("c1")).toBe(false);
    expect(approvals.decide("c1", "deny")).toBeUndefined();
  });

  it("an abort denies what waits, and a call after the abort at once", async () => {
    const approvals = new ParallelApprovals();
    const controller = new AbortController();
    const waiting = approvals.wait("c1", 0, "bash", controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBe("deny");
    expect(approvals.size).toBe(0);
    await expect(approvals.wait("c2", 0, "bash", controller.signal)).resolves.toBe("deny");
    expect(approvals.holds("c2")).toBe(false);
  });
});
