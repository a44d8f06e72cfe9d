import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { abortableDelay, childAbortController } from "./cancellation.js";

describe("cancellation", () => {
  it("REQ-033/140: aborting the parent aborts every child; a child does not abort its parent", () => {
    const root = new AbortController();
    const a = childAbortController(root.signal);
    const b = childAbortController(root.signal);
    const grandchild = childAbortController(a.signal);
    b.abort();
    expect(root.signal.aborted).toBe(false);
    root.abort(new Error("stop"));
    expect(a.signal.aborted).toBe(true);
    expect(grandchild.signal.aborted).toBe(true);
    expect(a.signal.reason).toEqual(new Error("stop"));
  });

  it("REQ-140: a child of an already aborted parent starts aborted", () => {
    const root = new AbortController();
    root.abort();
    expect(childAbortController(root.signal).signal.aborted).toBe(true);
  });

  it("REQ-140: dispose removes the listener from the parent (no leak over many children)", () => {
    const root = new AbortController();
    for (let i = 0; i < 100; i++) childAbortController(root.signal).dispose();
    const live = childAbortController(root.signal);
    expect(getEventListeners(root.signal, "abort")).toHaveLength(1);
    live.dispose();
    live.dispose();
    expect(getEventListeners(root.signal, "abort")).toHaveLength(0);
  });

  it("REQ-074: abortableDelay resolves true after the delay, false at once on abort, and cleans up", async () => {
    const root = new AbortController();
    expect(await abortableDelay(1, root.signal)).toBe(true);
    expect(getEventListeners(root.signal, "abort")).toHaveLength(0);
    const pending = abortableDelay(60_000, root.signal);
    root.abort();
    expect(await pending).toBe(false);
  });
});
