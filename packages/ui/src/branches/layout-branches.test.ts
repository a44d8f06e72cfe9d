import { describe, expect, it } from "vitest";
import { branch } from "../test-support/branches.js";
import {
  type BranchLayoutNode,
  forkNodeId,
  layoutBranches,
  versionPlaces,
  versionsNodeId,
} from "./layout-branches.js";

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

describe("layoutBranches with versions grouped", () => {
  // a question u1 answered three times (two regenerates, the second from the first's branch),
  // the question edited once, and a fork after the last answer that went nowhere yet
  const first = branch("first", { message_ids: ["u1", "a1"] });
  const regen1 = branch("regen1", {
    parent_branch_id: "first",
    fork_message_id: "u1",
    message_ids: ["u1", "a2"],
  });
  const regen2 = branch("regen2", {
    parent_branch_id: "regen1",
    fork_message_id: "u1",
    message_ids: ["u1", "a3"],
  });
  const edit = branch("edit", {
    parent_branch_id: "regen2",
    fork_message_id: null,
    message_ids: ["u1b", "a4"],
  });
  const fresh = branch("fresh", {
    parent_branch_id: "first",
    fork_message_id: "a1",
    message_ids: ["u1", "a1"],
  });

  it("finds each version's place: chained regenerates share the first one's", () => {
    const places = versionPlaces([first, regen1, regen2, edit, fresh]);
    expect(places.get("regen1")).toMatchObject({ base: { id: "first" }, message_id: "a1" });
    expect(places.get("regen2")).toMatchObject({ base: { id: "first" }, message_id: "a1" });
    // the edit is a version of the question on the branch it was made from
    expect(places.get("edit")).toMatchObject({ base: { id: "regen2" }, message_id: "u1" });
    // a fork with nothing of its own yet is no version
    expect(places.has("fresh")).toBe(false);
    expect(places.has("first")).toBe(false);
  });

  it("draws the versions of one message as one node under its fork point", () => {
    const { nodes, edges } = layoutBranches([first, regen1, regen2, edit, fresh], {
      groupVersions: true,
    });
    const answers = versionsNodeId("first", "a1");
    const questions = versionsNodeId("regen2", "u1");
    expect(nodes.map((n) => n.id).sort()).toEqual(
      [
        "first",
        "fresh",
        answers,
        questions,
        forkNodeId("first", "u1"),
        forkNodeId("first", "a1"),
      ].sort(),
    );
    const group = node(nodes, answers);
    expect(group.kind === "versions" && group.branches.map((b) => b.id)).toEqual([
      "regen1",
      "regen2",
    ]);
    expect(edges.map((e) => [e.source, e.target])).toEqual([
      ["first", forkNodeId("first", "u1")],
      [forkNodeId("first", "u1"), answers],
      // the edit came from regen2, inside the answers' group; it forked before the first message
      [answers, questions],
      ["first", forkNodeId("first", "a1")],
      [forkNodeId("first", "a1"), "fresh"],
    ]);
    expect(node(nodes, answers).y).toBeGreaterThan(node(nodes, "first").y);
    expect(node(nodes, questions).y).toBeGreaterThan(node(nodes, answers).y);
  });

  it("keeps a merge edge between groups and drops one inside a group", () => {
    const merged = {
      ...fresh,
      merged_from: [{ branch_id: "regen2", merge_id: "mg1", strategy: "append" as const, at: "x" }],
    };
    const inside = {
      ...regen2,
      merged_from: [{ branch_id: "regen1", merge_id: "mg2", strategy: "append" as const, at: "x" }],
    };
    const { edges } = layoutBranches([first, regen1, inside, merged], { groupVersions: true });
    expect(edges.filter((e) => e.kind === "merge").map((e) => [e.source, e.target])).toEqual([
      [versionsNodeId("first", "a1"), "fresh"],
    ]);
  });
});
