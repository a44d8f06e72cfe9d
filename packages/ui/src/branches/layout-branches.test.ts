import { describe, expect, it } from "vitest";
import { branch } from "../test-support/branches.js";
import { type BranchLayoutNode, forkNodeId, layoutBranches } from "./layout-branches.js";

const main = branch("main", { message_ids: ["m1", "m2", "m3"] });
const a = branch("a", {
  parent_branch_id: "main",
  fork_message_id: "m2",
  message_ids: ["m1", "m2", "a1"],
});
const b = branch("b", {
  parent_branch_id: "main",
  fork_message_id: "m2",
  message_ids: ["m1", "m2", "b1"],
});
const c = branch("c", {
  parent_branch_id: "a",
  fork_message_id: "a1",
  message_ids: ["m1", "m2", "a1", "c1"],
  merged_from: [
    { branch_id: "b", merge_id: "mg1", strategy: "rebase", at: "2025-06-10T12:01:00Z" },
  ],
});

function node(nodes: BranchLayoutNode[], id: string): BranchLayoutNode {
  const found = nodes.find((n) => n.id === id);
  if (!found) throw new Error(`no node ${id}`);
  return found;
}

describe("layoutBranches", () => {
  it("places a lone branch as a single node", () => {
    const { nodes, edges } = layoutBranches([main]);
    expect(nodes).toHaveLength(1);
    expect(edges).toEqual([]);
  });

  it("puts fork points between parents and children, shared by siblings", () => {
    const { nodes, edges } = layoutBranches([main, a, b, c]);
    const fork = forkNodeId("main", "m2");
    expect(
      nodes
        .filter((n) => n.kind === "fork")
        .map((n) => n.id)
        .sort(),
    ).toEqual([fork, forkNodeId("a", "a1")].sort());
    expect(edges.filter((e) => e.kind === "parent").map((e) => [e.source, e.target])).toEqual([
      ["main", fork],
      [fork, "a"],
      [fork, "b"],
      ["a", forkNodeId("a", "a1")],
      [forkNodeId("a", "a1"), "c"],
    ]);
    // top to bottom: parent above its fork point, the fork point above the children
    expect(node(nodes, "main").y).toBeLessThan(node(nodes, fork).y);
    expect(node(nodes, fork).y).toBeLessThan(node(nodes, "a").y);
    expect(node(nodes, "a").y).toBe(node(nodes, "b").y);
    expect(node(nodes, "c").y).toBeGreaterThan(node(nodes, "a").y);
    // siblings side by side without overlapping (180 wide)
    expect(Math.abs(node(nodes, "a").x - node(nodes, "b").x)).toBeGreaterThanOrEqual(180);
  });

  it("returns merge edges from merged_from without affecting ranks", () => {
    const { edges, nodes } = layoutBranches([main, a, b, c]);
    expect(edges.filter((e) => e.kind === "merge")).toEqual([
      expect.objectContaining({
        kind: "merge",
        id: "merge:mg1",
        source: "b",
        target: "c",
        strategy: "rebase",
      }),
    ]);
    const withoutMerge = layoutBranches([main, a, b, { ...c, merged_from: [] }]).nodes;
    expect(withoutMerge.map((n) => [n.id, n.y])).toEqual(nodes.map((n) => [n.id, n.y]));
  });

  it("attaches a merge between columns to the sides facing each other", () => {
    const { edges, nodes } = layoutBranches([main, a, b, c]);
    const merge = edges.find((e) => e.kind === "merge");
    // c sits under a, in the column next to b's: the edge crosses the gap between the columns
    // instead of ending on c's top, right under the fork point a → c
    const bIsLeft = node(nodes, "b").x < node(nodes, "c").x;
    expect(Math.abs(node(nodes, "b").x - node(nodes, "c").x)).toBeGreaterThanOrEqual(180);
    expect(merge).toMatchObject(
      bIsLeft
        ? { sourceSide: "right", targetSide: "left" }
        : { sourceSide: "left", targetSide: "right" },
    );
  });

  it("brackets a merge within one column on the right, clear of the fork points in it", () => {
    // c is merged back into main: both sit in one column with the fork points main → a → c
    // between them, so a side-to-side edge would have to cross it
    const back = { ...main, merged_from: [{ ...c.merged_from[0]!, branch_id: "c" }] };
    const { edges, nodes } = layoutBranches([back, a, { ...c, merged_from: [] }]);
    expect(node(nodes, "main").x).toBe(node(nodes, "c").x);
    expect(edges.find((e) => e.kind === "merge")).toMatchObject({
      source: "c",
      target: "main",
      sourceSide: "right",
      targetSide: "right",
    });
  });

  it("draws a branch whose parent is gone as a root, and ignores merges from gone branches", () => {
    const { nodes, edges } = layoutBranches([c]);
    expect(nodes.map((n) => n.id)).toEqual(["c"]);
    expect(edges).toEqual([]);
  });
});
