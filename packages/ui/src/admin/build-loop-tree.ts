import type { LoopTreeLoop } from "@arbor/core/browser";

// The admin viewer's loop tree as plain data. Loops hang under their parent loop (continuations
// and sub-agents alike); siblings that belong to one parallel evaluation group are gathered into a
// group node where the first of them started. A loop whose parent is not in the list (or is
// itself) is a root.

export type LoopTreeNode =
  | { kind: "loop"; loop: LoopTreeLoop; children: LoopTreeNode[] }
  | {
      kind: "parallel";
      groupId: string;
      selectedLoopId: string | undefined;
      children: Array<Extract<LoopTreeNode, { kind: "loop" }>>;
    };

export function buildLoopTree(loops: readonly LoopTreeLoop[]): LoopTreeNode[] {
  const byId = new Map(loops.map((loop) => [loop.loop_id, loop]));
  const childrenOf = new Map<string | undefined, LoopTreeLoop[]>();
  for (const loop of loops) {
    // a loop stored as its own parent (records from before loop numbers came from the store) is
    // a root: under itself it would never be reached
    const parent =
      loop.parent_loop_id !== undefined &&
      loop.parent_loop_id !== loop.loop_id &&
      byId.has(loop.parent_loop_id)
        ? loop.parent_loop_id
        : undefined;
    const list = childrenOf.get(parent) ?? [];
    list.push(loop);
    childrenOf.set(parent, list);
  }
  const visited = new Set<string>();

  const loopNode = (loop: LoopTreeLoop): Extract<LoopTreeNode, { kind: "loop" }> => {
    visited.add(loop.loop_id);
    return { kind: "loop", loop, children: level(loop.loop_id) };
  };

  const level = (parent: string | undefined): LoopTreeNode[] => {
    const siblings = (childrenOf.get(parent) ?? [])
      // a record that names itself (or a cycle) as parent must not recurse forever
      .filter((loop) => !visited.has(loop.loop_id))
      .sort((a, b) => a.started_at - b.started_at);
    const out: LoopTreeNode[] = [];
    const groups = new Map<string, Extract<LoopTreeNode, { kind: "parallel" }>>();
    for (const loop of siblings) {
      if (visited.has(loop.loop_id)) continue;
      const group = loop.parallel_group;
      if (!group) {
        out.push(loopNode(loop));
        continue;
      }
      let node = groups.get(group.group_id);
      if (!node) {
        node = {
          kind: "parallel",
          groupId: group.group_id,
          selectedLoopId: group.selected_loop_id,
          children: [],
        };
        groups.set(group.group_id, node);
        out.push(node);
      }
      node.selectedLoopId ??= group.selected_loop_id;
      node.children.push(loopNode(loop));
    }
    return out;
  };

  return level(undefined);
}

/** Elapsed time of a loop: its recorded duration, or end − start, or undefined while it runs. */
export function loopDuration(loop: LoopTreeLoop): number | undefined {
  if (loop.duration_ms !== undefined) return loop.duration_ms;
  if (loop.ended_at !== undefined) return loop.ended_at - loop.started_at;
  return undefined;
}
