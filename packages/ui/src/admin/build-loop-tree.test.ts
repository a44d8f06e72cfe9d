import { describe, expect, it } from "vitest";
import { loop, loops } from "../test-support/loops.js";
import { buildLoopTree, loopDuration } from "./build-loop-tree.js";

describe("buildLoopTree", () => {
  it("nests sub-loops and gathers parallel groups", () => {
    const tree = buildLoopTree(loops);
    expect(tree.map((n) => (n.kind === "loop" ? n.loop.loopId : n.groupId))).toEqual([
      "root",
      "next",
    ]);
    const root = tree[0];
    if (root?.kind !== "loop") throw new Error("root is a loop");
    expect(
      root.children.map((n) => (n.kind === "loop" ? n.loop.loopId : `group:${n.groupId}`)),
    ).toEqual(["sub", "group:g1"]);
    const parallel = root.children[1];
    if (parallel?.kind !== "parallel") throw new Error("second child is the group");
    expect(parallel.children.map((c) => c.loop.loopId)).toEqual(["p1", "p2"]);
    expect(parallel.selectedLoopId).toBe("p2");
  });

  it("treats orphans as roots, and a loop stored as its own parent too (it never vanishes)", () => {
    const tree = buildLoopTree([
      loop("a", { parentLoopId: "gone" }),
      loop("b", { parentLoopId: "b" }),
    ]);
    expect(tree.map((n) => n.kind === "loop" && n.loop.loopId)).toEqual(["a", "b"]);
    expect(tree[1]?.kind === "loop" && tree[1].children).toEqual([]);
  });

  it("survives a cycle of parents without recursing forever", () => {
    const tree = buildLoopTree([
      loop("r"),
      loop("x", { parentLoopId: "y" }),
      loop("y", { parentLoopId: "x" }),
    ]);
    expect(tree.map((n) => n.kind === "loop" && n.loop.loopId)).toEqual(["r"]);
  });

  it("computes durations", () => {
    expect(loopDuration(loop("x"))).toBe(1500);
    expect(loopDuration(loop("x", { durationMs: 10 }))).toBe(10);
    expect(loopDuration(loop("x", { endedAt: undefined }))).toBeUndefined();
  });
});
