import { type BuiltInEdge, MarkerType } from "@xyflow/react";
import type { BranchLayoutEdge, MergeSide } from "./layout-branches.js";

// The branch graph's layout edges as React Flow edges, and the ids of the node handles they
// attach to. Every edge names both its handles: a branch node has several handles of each type,
// and React Flow attaches an edge that names none to the first one it finds.

/** top of branch and fork nodes: where the edge from the parent (or fork point) comes in */
export const PARENT_IN_HANDLE = "parent-in";
/** bottom of branch and fork nodes: where edges to fork points and children leave */
export const PARENT_OUT_HANDLE = "parent-out";

/** the side handles of branch nodes, used only by merge edges so they stay clear of fork points */
export function mergeHandleId(type: "source" | "target", side: MergeSide): string {
  return `merge-${type === "source" ? "out" : "in"}-${side}`;
}

export function toFlowEdge(edge: BranchLayoutEdge): BuiltInEdge {
  switch (edge.kind) {
    case "parent":
      return {
        id: edge.id,
        source: edge.source,
        target: edge.target,
        sourceHandle: PARENT_OUT_HANDLE,
        targetHandle: PARENT_IN_HANDLE,
        type: "smoothstep",
        className: "branch-edge-parent",
        style: { stroke: "#a1a1aa", strokeWidth: 1.5 },
      };
    case "merge":
      return {
        id: edge.id,
        source: edge.source,
        target: edge.target,
        sourceHandle: mergeHandleId("source", edge.sourceSide),
        targetHandle: mergeHandleId("target", edge.targetSide),
        // Right angles keep the edge in the gaps between columns; a bezier between two handles on
        // the same side has no bulge and would run straight down the nodes' edges.
        type: "smoothstep",
        pathOptions: { offset: 20, borderRadius: 8 },
        animated: true,
        label: edge.strategy.replace("_", "-"),
        className: "branch-edge-merge",
        style: { stroke: "#8b5cf6", strokeWidth: 2, strokeDasharray: "6 4" },
        markerEnd: { type: MarkerType.ArrowClosed, color: "#8b5cf6" },
      };
    default: {
      const unhandled: never = edge;
      throw new Error(`unknown edge ${JSON.stringify(unhandled)}`);
    }
  }
}
