import type { Branch, MergeStrategyName } from "@arbor/core/browser";
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
/** a versions group: a header, then one row per branch in it */
export const VERSIONS_NODE = { width: 200, header: 28, row: 34, padding: 8 } as const;

export function versionsNodeSize(members: number): { width: number; height: number } {
  return {
    width: VERSIONS_NODE.width,
    height: VERSIONS_NODE.header + members * VERSIONS_NODE.row + VERSIONS_NODE.padding,
  };
}

export type BranchLayoutNode =
  | { kind: "branch"; id: string; branch: Branch; x: number; y: number }
  | {
      kind: "fork";
      id: string;
      parent_branch_id: string;
      fork_message_id: string;
      x: number;
      y: number;
    }
  | {
      /**
       * The versions of one message (regenerated answers, edits, forks that went on differently
       * there), in one node instead of one node each: `branches` hold the other versions,
       * oldest first; the first version is `base`'s own message `message_id`.
       */
      kind: "versions";
      id: string;
      base_branch_id: string;
      message_id: string;
      branches: Branch[];
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

export function versionsNodeId(baseBranchId: string, messageId: string): string {
  return `versions:${baseBranchId}:${messageId}`;
}

/** Where a version branch belongs: the branch whose message it is a version of, and that message. */
interface VersionPlace {
  base: Branch;
  message_id: string;
}

/**
 * The version branches, by id, with their place. A branch is a version when its parent went on
 * past the fork point and the branch holds a different message right there: what the transcript's
 * ‹ 1/N › switcher offers as versions (messageVersions). A version of a version of the same
 * message belongs to the first one's place, so all answers regenerated from one question are one
 * group however they were chained.
 */
export function versionPlaces(branches: readonly Branch[]): Map<string, VersionPlace> {
  const byId = new Map(branches.map((b) => [b.id, b]));
  const direct = (branch: Branch): { parent: Branch; at: number } | undefined => {
    const parent = byId.get(branch.parent_branch_id ?? "");
    if (parent === undefined) return undefined;
    const at =
      branch.fork_message_id === null ? 0 : branch.message_ids.indexOf(branch.fork_message_id) + 1;
    if (at === 0 && branch.fork_message_id !== null) return undefined;
    const own = branch.message_ids[at];
    const theirs = parent.message_ids[at];
    if (own === undefined || theirs === undefined || own === theirs) return undefined;
    // the parent must hold the same messages before that place (a fork copies them)
    for (let i = 0; i < at; i++)
      if (parent.message_ids[i] !== branch.message_ids[i]) return undefined;
    return { parent, at };
  };
  const out = new Map<string, VersionPlace>();
  for (const branch of branches) {
    const first = direct(branch);
    if (first === undefined) continue;
    let base = first.parent;
    const seen = new Set([branch.id]);
    // climb while the parent is itself a version at the same place
    for (let up = direct(base); up !== undefined && up.at === first.at && !seen.has(base.id); ) {
      seen.add(base.id);
      base = up.parent;
      up = direct(base);
    }
    out.set(branch.id, { base, message_id: base.message_ids[first.at] as string });
  }
  return out;
}

export interface LayoutOptions {
  /** draw the versions of one message as one node (versionPlaces); off: one node per branch */
  groupVersions?: boolean;
}

export function layoutBranches(
  branches: readonly Branch[],
  options: LayoutOptions = {},
): BranchLayout {
  const places = options.groupVersions ? versionPlaces(branches) : new Map<string, VersionPlace>();
  // a grouped branch's node is its group's
  const nodeOf = (id: string): string => {
    const place = places.get(id);
    return place === undefined ? id : versionsNodeId(place.base.id, place.message_id);
  };
  const groups = new Map<string, { base: Branch; message_id: string; members: Branch[] }>();
  for (const branch of branches) {
    const place = places.get(branch.id);
    if (place === undefined) continue;
    const id = versionsNodeId(place.base.id, place.message_id);
    const group = groups.get(id) ?? { ...place, members: [] };
    group.members.push(branch);
    groups.set(id, group);
  }
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
    if (!places.has(branch.id)) graph.setNode(branch.id, { ...BRANCH_NODE_SIZE });
  }
  for (const [id, group] of groups) graph.setNode(id, versionsNodeSize(group.members.length));
  // a group hangs from its base branch's fork point, as its first member would; the other
  // members' own parent edges are inside the group
  const hung = new Set<string>();
  for (const branch of branches) {
    const place = places.get(branch.id);
    const target = nodeOf(branch.id);
    let parent = branch.parent_branch_id;
    let forkMessage = branch.fork_message_id;
    if (place !== undefined) {
      if (hung.has(target)) continue;
      hung.add(target);
      // the group's fork point: where the first version left its base
      const first = groups.get(target)?.members.find((m) => m.parent_branch_id === place.base.id);
      parent = place.base.id;
      forkMessage = first?.fork_message_id ?? branch.fork_message_id;
    }
    // A branch whose parent was deleted is drawn as a root of its own.
    if (parent === null || !byId.has(parent)) continue;
    const source = nodeOf(parent);
    if (source === target) continue;
    if (forkMessage === null) {
      parentEdges.push({ kind: "parent", id: `parent:${target}`, source, target });
      continue;
    }
    const forkId = forkNodeId(source, forkMessage);
    if (!forks.has(forkId)) {
      forks.set(forkId, { parent_branch_id: parent, fork_message_id: forkMessage });
      graph.setNode(forkId, { ...FORK_NODE_SIZE });
      parentEdges.push({ kind: "parent", id: `parent:${forkId}`, source, target: forkId });
    }
    parentEdges.push({
      kind: "parent",
      id: `parent:${target}`,
      source: forkId,
      target,
    });
  }
  for (const edge of parentEdges) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);

  const topLeft = (id: string, size: { width: number; height: number }) => {
    const laid = graph.node(id);
    return { x: (laid.x ?? 0) - size.width / 2, y: (laid.y ?? 0) - size.height / 2 };
  };
  const nodes: BranchLayoutNode[] = [
    ...branches
      .filter((branch) => !places.has(branch.id))
      .map((branch) => ({
        kind: "branch" as const,
        id: branch.id,
        branch,
        ...topLeft(branch.id, BRANCH_NODE_SIZE),
      })),
    ...[...groups].map(([id, group]) => ({
      kind: "versions" as const,
      id,
      base_branch_id: group.base.id,
      message_id: group.message_id,
      branches: group.members,
      ...topLeft(id, versionsNodeSize(group.members.length)),
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
      .filter((merge) => byId.has(merge.branch_id) && nodeOf(merge.branch_id) !== nodeOf(target.id))
      .map((merge) => ({
        kind: "merge" as const,
        id: `merge:${merge.merge_id}`,
        source: nodeOf(merge.branch_id),
        target: nodeOf(target.id),
        strategy: merge.strategy,
        ...mergeSides(
          graph.node(nodeOf(merge.branch_id)).x ?? 0,
          graph.node(nodeOf(target.id)).x ?? 0,
        ),
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
