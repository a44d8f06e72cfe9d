import { describe, expect, it } from "vitest";
import { PARENT_IN_HANDLE, PARENT_OUT_HANDLE, toFlowEdge } from "./branch-flow-edges.js";

describe("toFlowEdge", () => {
  it("attaches parent edges to the top and bottom handles", () => {
    expect(toFlowEdge({ kind: "parent", id: "p", source: "main", target: "b" })).toMatchObject({
      sourceHandle: PARENT_OUT_HANDLE,
      targetHandle: PARENT_IN_HANDLE,
    });
  });

  it("attaches merge edges to the side handles the layout chose, not the parent handles", () => {
    const edge = toFlowEdge({
      kind: "merge",
      id: "merge:mg1",
      source: "b",
      target: "c",
      strategy: "cherry_pick",
      sourceSide: "left",
      targetSide: "right",
    });
    expect(edge).toMatchObject({
      source: "b",
      target: "c",
      sourceHandle: "merge-out-left",
      targetHandle: "merge-in-right",
      label: "cherry-pick",
    });
  });
});
