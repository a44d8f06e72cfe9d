import type { LoopRecord } from "@arbor/core";

// The admin viewer's loop tree as plain data. Loops hang under their parent loop (continuations
// and sub-agents alike); siblings that belong to one parallel evaluation group are gathered into a
// group node where the first of them started. A loop whose parent is not in the list (or is
// itself) is a root.

export type LoopTreeNode =
  | { kind: "loop"; loop: LoopRecord; children: LoopTreeNode[] }
  | {
      kind: "parallel";
      groupId: string;
      selectedLoopId: string | undefined;
      children: Array<Extract<LoopTreeNode, { kind: "loop" }>>;
    };

export function buildLoopTree(loops: readonly LoopRecord[]): LoopTreeNode[] {
  const byId = new Map(loops.map((loop) => [loop.loopId, loop]));
  const childrenOf = new Map<string | undefined, LoopRecord[]>();
  for (const loop of loops) {
    // a loop stored as its own parent (records from before loop numbers came from the store) is
    // a root: under itself it would never be reached
    const parent =
      loop.parentLoopId !== undefined &&
      loop.parentLoopId !== loop.loopId &&
      byId.has(loop.parentLoopId)
        ? loop.parentLoopId
        : undefined;
    const list = childrenOf.get(parent) ?? [];
    list.push(loop);
    childrenOf.set(parent, list);
  }
  const visited = new Set<string>();

  const loopNode = (loop: LoopRecord): Extract<LoopTreeNode, { kind: "loop" }> => {
    visited.add(loop.loopId);
    return { kind: "loop", loop, children: level(loop.loopId) };
  };

  const level = (parent: string | undefined): LoopTreeNode[] => {
    const siblings = (childrenOf.get(parent) ?? [])
      // a record that names itself (or a cycle) as parent must not recurse forever
      .filter((loop) => !visited.has(loop.loopId))
      .sort((a, b) => a.startedAt - b.startedAt);
    const out: LoopTreeNode[] = [];
    const groups = new Map<string, Extract<LoopTreeNode, { kind: "parallel" }>>();
    for (const loop of siblings) {
      if (visited.has(loop.loopId)) continue;
      const group = loop.parallelGroup;
      if (!group) {
        out.push(loopNode(loop));
        continue;
      }
      let node = groups.get(group.groupId);
      if (!node) {
        node = {
          kind: "parallel",
          groupId: group.groupId,
          selectedLoopId: group.selectedLoopId,
          children: [],
        };
        groups.set(group.groupId, node);
        out.push(node);
      }
      node.selectedLoopId ??= group.selectedLoopId;
      node.children.push(loopNode(loop));
    }
    return out;
  };

  return level(undefined);
}

/** Elapsed time of a loop: its recorded duration, or end − start, or undefined while it runs. */
export function loopDuration(loop: LoopRecord): number | undefined {
  if (loop.durationMs !== undefined) return loop.durationMs;
  if (loop.endedAt !== undefined) return loop.endedAt - loop.startedAt;
  return undefined;
}
