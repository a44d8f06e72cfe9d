import { describe, expect, it } from "vitest";
import { emptyUsage, type Usage } from "../model/llm-messages.js";
import type { LoopRecord, SessionLoopTree } from "../model/loop-records.js";
import { LoopTreeResponseSchema, loopTreeResponse } from "./loop-tree.js";

const usage = { ...emptyUsage(), input: 10, output: 5, totalTokens: 15 };

// dollars per token of a model "m" and "judge"; any other model has no price
const RATE: Record<string, number> = { m: 0.001, judge: 0.01 };
const priceOf = (u: Usage, model: string): number | undefined =>
  RATE[model] === undefined ? undefined : u.totalTokens * RATE[model];

const full: LoopRecord = {
  loopId: "s.cfg.2",
  sessionId: "s",
  agentId: "main",
  parentLoopId: "s.cfg.1",
  continuationKind: { type: "default" },
  status: "completed",
  startedAt: 1000,
  endedAt: 2000,
  durationMs: 1000,
  usage,
  turns: 2,
  messages: [],
  childLoopIds: ["c.1"],
  childLoopRefs: [{ toolCallId: "t1", toolName: "agent", childSessionId: "c", childLoopId: "c.1" }],
  spawnRef: { parentSessionId: "p", parentLoopId: "p.1", parentAgentId: "pa", toolCallId: "t0" },
  config: { model: "m", provider: "anthropic", configId: "cfg" },
  error: "late",
  parallelGroup: {
    groupId: "g",
    loopIds: ["s.cfg.2"],
    selectedLoopId: "s.cfg.2",
    selectedConfigIndex: 0,
    isSelected: true,
    evaluationUsage: usage,
  },
};

/** Every key of an object tree outside `usage`/`messages`, dotted. */
function keys(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => keys(v, path));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    /usage$/.test(key) || key === "messages" || key === "continuation_kind"
      ? [`${path}${key}`]
      : [`${path}${key}`, ...keys(inner, `${path}${key}.`)],
  );
}

describe("loopTreeResponse", () => {
  it("answers snake_case: loop_id, parent_loop_id and every other field name", () => {
    const tree: SessionLoopTree = {
      sessionId: "s",
      agentId: "main",
      loops: [full, { ...full, loopId: "s.cfg.1", parentLoopId: undefined }],
      parentSpawnRef: { parentSessionId: "p", parentLoopId: "p.1", parentAgentId: "pa" },
    };
    const wire = loopTreeResponse(tree, priceOf);
    expect(LoopTreeResponseSchema.parse(wire)).toEqual(wire);
    for (const key of keys(wire)) expect(key).toMatch(/^[a-z_.]+$/);
    expect(wire.loops[0]).toMatchObject({
      loop_id: "s.cfg.2",
      parent_loop_id: "s.cfg.1",
      started_at: 1000,
      duration_ms: 1000,
      child_loop_refs: [{ tool_call_id: "t1", child_loop_id: "c.1" }],
      spawn_ref: { parent_loop_id: "p.1", tool_call_id: "t0" },
      config: { config_id: "cfg" },
      parallel_group: { group_id: "g", selected_loop_id: "s.cfg.2", is_selected: true },
    });
    expect(wire.parent_spawn_ref).toEqual({
      parent_session_id: "p",
      parent_loop_id: "p.1",
      parent_agent_id: "pa",
    });
  });

  it("leaves absent optional fields absent (no undefined keys in the JSON)", () => {
    const bare: LoopRecord = {
      loopId: "s.1",
      sessionId: "s",
      agentId: "main",
      status: "running",
      startedAt: 5,
      usage: emptyUsage(),
      turns: 0,
      messages: [],
      childLoopIds: [],
      childLoopRefs: [],
    };
    const wire = loopTreeResponse({ sessionId: "s", agentId: "main", loops: [bare] }, priceOf);
    expect(Object.keys(wire.loops[0]!).sort()).toEqual(
      [
        "agent_id",
        "child_loop_ids",
        "child_loop_refs",
        "loop_id",
        "messages",
        "session_id",
        "started_at",
        "status",
        "turns",
        "usage",
      ].sort(),
    );
    expect(Object.keys(wire)).toEqual(["session_id", "agent_id", "loops", "usage"]);
    // a run that spent nothing costs nothing, whatever its model
    expect(wire.loops[0]!.usage).toMatchObject({ cost_usd: 0, cost_complete: true });
  });

  it("prices each loop by its model and sums the whole tree: sub-agents, folds, candidates, judge", () => {
    const loopOf = (loopId: string, model: string | undefined, tokens: number): LoopRecord => ({
      loopId,
      sessionId: "s",
      agentId: "main",
      status: "completed",
      startedAt: 1,
      usage: { ...emptyUsage(), input: tokens, totalTokens: tokens },
      turns: 1,
      messages: [
        {
          role: "assistant",
          content: [{ type: "text", text: "hi" }],
          stopReason: "stop",
          model: model ?? "",
          provider: "p",
          usage: { ...emptyUsage(), input: tokens, totalTokens: tokens },
          timestamp: 1,
        },
      ],
      childLoopIds: [],
      childLoopRefs: [],
      ...(model === undefined ? {} : { config: { model, provider: "p" } }),
    });
    const priced: SessionLoopTree = {
      sessionId: "s",
      agentId: "main",
      loops: [
        loopOf("s.m.1", "m", 1000), // the run
        loopOf("s.m.2", "m", 200), // a sub-agent
        loopOf("s.m.fold.3", "m", 300), // a fold
        loopOf("s.judge.4", "judge", 10), // the judge
      ],
    };
    const wire = loopTreeResponse(priced, priceOf);
    expect(LoopTreeResponseSchema.parse(wire)).toEqual(wire);
    expect(wire.loops.map((l) => l.usage.cost_usd)).toEqual([1, 0.2, 0.3, 0.1]);
    expect(wire.loops[0]!.messages[0]).toMatchObject({
      usage: { cost_usd: 1, cost_complete: true },
    });
    expect(wire.usage).toMatchObject({ totalTokens: 1510, cost_complete: true });
    expect(wire.usage.cost_usd).toBeCloseTo(1.6, 12);

    // a candidate on a model without a price: null on its loop, the tree's total incomplete
    const mixed = loopTreeResponse(
      { ...priced, loops: [...priced.loops, loopOf("s.local.5", "local-llama", 5000)] },
      priceOf,
    );
    expect(mixed.loops[4]!.usage).toMatchObject({ cost_usd: null, cost_complete: false });
    expect(mixed.loops[4]!.messages[0]).toMatchObject({ usage: { cost_usd: null } });
    expect(mixed.usage).toMatchObject({ totalTokens: 6510, cost_complete: false });
    expect(mixed.usage.cost_usd).toBeCloseTo(1.6, 12);

    // nothing priced at all: null, never 0
    const none = loopTreeResponse(
      {
        sessionId: "s",
        agentId: "main",
        loops: [loopOf("s.x.1", "x", 10), loopOf("s.y.2", undefined, 3)],
      },
      priceOf,
    );
    expect(none.usage).toMatchObject({ totalTokens: 13, cost_usd: null, cost_complete: false });
  });

  it("prices the judge's evaluation_usage by the judge's model, and the tree counts it once", () => {
    const judged = (group: Partial<NonNullable<LoopRecord["parallelGroup"]>>): SessionLoopTree => ({
      sessionId: "s",
      agentId: "main",
      loops: [
        {
          ...full,
          spawnRef: undefined,
          parallelGroup: { ...full.parallelGroup!, ...group },
        },
        { ...full, loopId: "s.judge.3", config: { model: "judge", provider: "p" } },
      ],
    });
    const wire = loopTreeResponse(judged({ evaluationModel: "judge" }), priceOf);
    expect(LoopTreeResponseSchema.parse(wire)).toEqual(wire);
    // 15 tokens at the judge's rate, not the candidate's (m)
    expect(wire.loops[0]!.parallel_group?.evaluation_usage).toMatchObject({
      totalTokens: 15,
      cost_usd: 0.15,
      cost_complete: true,
    });
    // the tree's total is the loops' (candidate at m + the judge's own loop), not the repeat
    expect(wire.usage.cost_usd).toBeCloseTo(0.015 + 0.15, 12);

    // a strategy that asks no model spent nothing: $0, whatever the model
    const free = loopTreeResponse(judged({ evaluationUsage: emptyUsage() }), priceOf);
    expect(free.loops[0]!.parallel_group?.evaluation_usage).toMatchObject({
      cost_usd: 0,
      cost_complete: true,
    });
    // a group recorded before the judge's model was kept, or a judge model with no price: null
    for (const group of [{}, { evaluationModel: "local-llama" }]) {
      const unpriced = loopTreeResponse(judged(group), priceOf);
      expect(unpriced.loops[0]!.parallel_group?.evaluation_usage).toMatchObject({
        cost_usd: null,
        cost_complete: false,
      });
    }
  });
});
