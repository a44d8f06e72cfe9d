import type { LoopTreeLoop } from "@arbor/core/browser";

export function loop(loop_id: string, overrides: Partial<LoopTreeLoop> = {}): LoopTreeLoop {
  return {
    loop_id,
    session_id: "s1",
    agent_id: "main",
    status: "completed",
    started_at: 1000,
    ended_at: 2500,
    usage: {
      input: 100,
      output: 50,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 150,
      cost_usd: 0.0042,
      cost_complete: true,
    },
    turns: 2,
    messages: [],
    child_loop_ids: [],
    child_loop_refs: [],
    ...overrides,
  };
}

export const group = (selected: boolean) => ({
  group_id: "g1",
  loop_ids: ["p1", "p2"],
  selected_loop_id: "p2",
  is_selected: selected,
});

export const loops: LoopTreeLoop[] = [
  loop("root", {
    child_loop_ids: ["sub", "p1", "p2"],
    config: { model: "m-1", provider: "x" },
    started_by: { id: "u-ana", name: "Ana" },
  }),
  loop("sub", {
    parent_loop_id: "root",
    agent_id: "researcher",
    started_at: 1100,
    status: "error",
    error: "boom",
    // a sub-agent on a model without a price
    usage: {
      input: 100,
      output: 50,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 150,
      cost_usd: null,
      cost_complete: false,
    },
  }),
  loop("p1", { parent_loop_id: "root", started_at: 1200, parallel_group: group(false) }),
  loop("p2", {
    parent_loop_id: "root",
    started_at: 1201,
    parallel_group: group(true),
    duration_ms: 900,
  }),
  loop("next", { started_at: 3000, status: "running", ended_at: undefined }),
];
