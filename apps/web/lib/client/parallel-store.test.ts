import { describe, expect, it } from "vitest";
import { applyParallel, type LiveParallel } from "./parallel-store";
import type { StreamedEvent } from "./sse";

const usage = {
  input: 1,
  output: 2,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 3,
  cost_usd: 0.0001,
  cost_complete: true,
};

function started(group = "g1"): StreamedEvent {
  return {
    name: "parallel_started",
    sequence: 1,
    payload: {
      context_id: "s",
      group_id: group,
      message_id: "m",
      strategy: "llm_judge",
      candidates: [0, 1].map((index) => ({
        index,
        label: `Way ${index + 1}`,
        loop_id: `s.x.${index}`,
        model: "m",
        thinking_level: "off" as const,
      })),
    },
  };
}

function run(events: StreamedEvent[]): LiveParallel | undefined {
  let group: LiveParallel | undefined;
  for (const event of events) {
    if (
      event.name === "parallel_started" ||
      event.name === "candidate_delta" ||
      event.name === "candidate_tool" ||
      event.name === "candidate_finished" ||
      event.name === "parallel_verdict"
    ) {
      group = applyParallel(group, event);
    }
  }
  return group;
}

const base = { context_id: "s", group_id: "g1" };

describe("applyParallel", () => {
  it("streams each candidate into its own column, waits on approvals, then takes the verdict", () => {
    const group = run([
      started(),
      {
        name: "candidate_delta",
        sequence: 2,
        payload: { ...base, candidate: 1, delta: "B", channel: "text" },
      },
      {
        name: "candidate_delta",
        sequence: 3,
        payload: { ...base, candidate: 0, delta: "A", channel: "text" },
      },
      {
        name: "candidate_tool",
        sequence: 4,
        payload: {
          ...base,
          candidate: 0,
          tool_call_id: "c",
          tool_name: "read_file",
          arguments: { path: "x" },
          status: "pending_approval",
        },
      },
      {
        name: "candidate_delta",
        sequence: 5,
        payload: { ...base, candidate: 1, delta: "b", channel: "text" },
      },
    ]);
    expect(group?.candidates.map((c) => [c.text, c.status])).toEqual([
      ["A", "waiting"],
      ["Bb", "running"],
    ]);
    const done = run([
      started(),
      {
        name: "candidate_tool",
        sequence: 2,
        payload: {
          ...base,
          candidate: 0,
          tool_call_id: "c",
          tool_name: "read_file",
          arguments: { path: "x" },
          status: "pending_approval",
        },
      },
      {
        name: "candidate_tool",
        sequence: 3,
        payload: {
          ...base,
          candidate: 0,
          tool_call_id: "c",
          tool_name: "read_file",
          status: "approved",
        },
      },
      {
        name: "candidate_finished",
        sequence: 4,
        payload: { ...base, candidate: 0, loop_id: "l", status: "complete", text: "final", usage },
      },
      {
        name: "parallel_verdict",
        sequence: 5,
        payload: {
          ...base,
          strategy: "llm_judge",
          selected: 0,
          reason: "1. best",
          candidates: [],
          evaluation_usage: usage,
          usage,
        },
      },
    ]);
    expect(done?.candidates[0]?.tools[0]).toMatchObject({
      status: "approved",
      arguments: { path: "x" },
    });
    expect(done?.candidates[0]?.status).toBe("complete");
    expect(done?.candidates[0]?.text).toBe("final");
    expect(done?.verdict?.reason).toBe("1. best");
  });

  it("ignores another group's events", () => {
    const group = run([
      started("g1"),
      {
        name: "candidate_delta",
        sequence: 2,
        payload: { context_id: "s", group_id: "g2", candidate: 0, delta: "x", channel: "text" },
      },
    ]);
    expect(group?.candidates[0]?.text).toBe("");
  });
});
