import type { Branch, MergeStrategyName } from "@arbor/core";
import dagre from "@dagrejs/dagre";

// The branch graph's geometry, apart from React Flow so it can be tested as plain data.
// Branches are nodes; where a branch was forked from its parent, a small fork-point node sits
// between them (siblings forked at the same message share it). Parent edges go parent → fork →
// child. Merge edges (from merged_from) are returned but left out of the layout: they point
// "upwards" across the tree and would pull dagre's ranks out of the fork order. Instead each merge
// edge says which side of its two branch nodes it attaches to, so it runs beside the tree rather
// than into the tops and bottoms where parent edges and fork points sit.

export const BRANCH_NODE_SIZE = { width: 180, height: 56 } as const;
export const FORK_NODE_SIZE = { width: 20, height: 20 } as const;

export type BranchLayoutNode =
  | { kind: "branch"; id: string; branch: Branch; x: number; y: number }
  | {
      kind: "fork";
      id: string;
      parent_branch_id: string;
      fork_message_id: string;
      x: number;
      y: number;
    };

/** the side of a branch node a merge edge leaves or enters by */
export type MergeSide = "left" | "right";

export type BranchLayoutEdge =
  | { kind: "parent"; id: string; source: string; target: string }
  | {
      kind: "merge";
      id: string;
      source: string;
      target: string;
      strategy: MergeStrategyName;
      sourceSide: MergeSide;
      targetSide: MergeSide;
    };

export interface BranchLayout {
  /** x/y are top-left corners, as React Flow positions nodes */
  nodes: BranchLayoutNode[];
  edges: BranchLayoutEdge[];
}

export function forkNodeId(parentBranchId: string, forkMessageId: string): string {
  return `fork:${parentBranchId}:${forkMessageId}`;
}

export function layoutBranches(branches: readonly Branch[]): BranchLayout {
  const byId = new Map(branches.map((b) => [b.id, b]));
  const graph = new dagre.graphlib.Graph<
    object,
    { width: number; height: number; x?: number; y?: number }
  >();
  graph.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 40, marginx: 10, marginy: 10 });
  graph.setDefaultEdgeLabel(() => ({}));

  const forks = new Map<string, { parent_branch_id: string; fork_message_id: string }>();
  const parentEdges: BranchLayoutEdge[] = [];
  for (const branch of branches) {
    graph.setNode(branch.id, { ...BRANCH_NODE_SIZE });
  }
  for (const branch of branches) {
    const parent = branch.parent_branch_id;
    // A branch whose parent was deleted is drawn as a root of its own.
    if (parent === null || !byId.has(parent)) continue;
    if (branch.fork_message_id === null) {
      parentEdges.push({
        kind: "parent",
        id: `parent:${branch.id}`,
        source: parent,
        target: branch.id,
      });
      continue;
    }
    const forkId = forkNodeId(parent, branch.fork_message_id);
    if (!forks.has(forkId)) {
      forks.set(forkId, { parent_branch_id: parent, fork_message_id: branch.fork_message_id });
      graph.setNode(forkId, { ...FORK_NODE_SIZE });
      parentEdges.push({ kind: "parent", id: `parent:${forkId}`, source: parent, target: forkId });
    }
    parentEdges.push({
      kind: "parent",
      id: `parent:${branch.id}`,
      source: forkId,
      target: branch.id,
    });
  }
  for (const edge of parentEdges) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);

  const topLeft = (id: string, size: { width: number; height: number }) => {
    const laid = graph.node(id);
    return { x: (laid.x ?? 0) - size.width / 2, y: (laid.y ?? 0) - size.height / 2 };
  };
  const nodes: BranchLayoutNode[] = [
    ...branches.map((branch) => ({
      kind: "branch" as const,
      id: branch.id,
      branch,
      ...topLeft(branch.id, BRANCH_NODE_SIZE),
    })),
    ...[...forks].map(([id, fork]) => ({
      kind: "fork" as const,
      id,
      ...fork,
      ...topLeft(id, FORK_NODE_SIZE),
    })),
  ];

  const mergeEdges: BranchLayoutEdge[] = branches.flatMap((target) =>
    target.merged_from
      .filter((merge) => byId.has(merge.branch_id))
      .map((merge) => ({
        kind: "merge" as const,
        id: `merge:${merge.merge_id}`,
        source: merge.branch_id,
        target: target.id,
        strategy: merge.strategy,
        ...mergeSides(graph.node(merge.branch_id).x ?? 0, graph.node(target.id).x ?? 0),
      })),
  );
  return { nodes, edges: [...parentEdges, ...mergeEdges] };
}

// Branches side by side: the edge crosses the gap between them, leaving by the side that faces
// the target. Branches that overlap horizontally (typically one below the other, with the fork
// points of the chain between them centred in that column): the edge leaves and enters on the
// right, bracketing the column instead of running down through it.
function mergeSides(
  sourceCenterX: number,
  targetCenterX: number,
): { sourceSide: MergeSide; targetSide: MergeSide } {
  if (Math.abs(sourceCenterX - targetCenterX) < BRANCH_NODE_SIZE.width) {
    return { sourceSide: "right", targetSide: "right" };
  }
  return sourceCenterX < targetCenterX
    ? { sourceSide: "right", targetSide: "left" }
    : { sourceSide: "left", targetSide: "right" };
}
