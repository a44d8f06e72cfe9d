import { describe, expect, it } from "vitest";
import type { Usage } from "../model/llm-messages.js";
import {
  type LoopRecord,
  parseLoopRecord,
  parseSessionLoopTree,
  type SessionLoopTree,
} from "../model/loop-records.js";
import {
  childrenOf,
  getLoop,
  loopTreesFromRecords,
  parallelSiblings,
  rootLoops,
  totalUsage,
} from "./session-tree.js";

function usage(input: number, output: number, cacheRead = 0): Usage {
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead };
}

function loop(loopId: string, extra: Partial<LoopRecord> = {}): LoopRecord {
  return {
    loopId,
    sessionId: "s",
    agentId: "agent",
    status: "completed",
    startedAt: 0,
    usage: usage(1, 1),
    turns: 1,
    messages: [],
    childLoopIds: [],
    childLoopRefs: [],
    ...extra,
  };
}

/** A record with every optional field set, to prove the round trip keeps them all. */
function fullLoop(): LoopRecord {
  return loop("s.cfg.2", {
    parentLoopId: "s.cfg.1",
    continuationKind: { type: "branch", tag: "2025-06-01T00:00:00Z" },
    status: "error",
    startedAt: 10,
    endedAt: 30,
    durationMs: 20,
    usage: usage(100, 50, 25),
    turns: 3,
    messages: [
      { role: "user", content: [{ type: "text", text: "go" }], timestamp: 1 },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "toolCall", id: "c1", name: "read_file", arguments: { path: "a.ts" } },
        ],
        stopReason: "toolUse",
        model: "m",
        provider: "p",
        usage: usage(3, 4),
        timestamp: 2,
      },
      {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "read_file",
        content: [{ type: "text", text: "x" }],
        isError: false,
        timestamp: 3,
        details: { lines: 1 },
        childLoopId: "c.cfg.1",
      },
      { role: "extension", kind: "notice", data: { nested: [1, "two", null] } },
    ],
    childLoopIds: ["c.cfg.1"],
    childLoopRefs: [
      { toolCallId: "c1", toolName: "delegate", childSessionId: "c", childLoopId: "c.cfg.1" },
    ],
    spawnRef: {
      parentSessionId: "p",
      parentLoopId: "p.cfg.1",
      parentAgentId: "pa",
      toolCallId: "t",
      toolName: "delegate",
    },
    config: { model: "m", provider: "p", configId: "cfg" },
    error: "boom",
    parallelGroup: {
      groupId: "g",
      loopIds: ["s.cfg.2", "s.cfg.3"],
      selectedLoopId: "s.cfg.3",
      selectedConfigIndex: 1,
      isSelected: false,
      evaluationUsage: usage(7, 1),
    },
  });
}

describe("records", () => {
  it("a fully populated loop record survives a JSON round trip unchanged", () => {
    const original = fullLoop();
    expect(parseLoopRecord(JSON.parse(JSON.stringify(original)))).toEqual(original);
  });

  it("a session loop tree survives a JSON round trip unchanged", () => {
    const session: SessionLoopTree = {
      sessionId: "s",
      agentId: "agent",
      loops: [loop("s.cfg.1", { childLoopIds: ["s.cfg.2"] }), fullLoop()],
      parentSpawnRef: { parentSessionId: "p", parentLoopId: "p.cfg.1", parentAgentId: "pa" },
    };
    expect(parseSessionLoopTree(JSON.parse(JSON.stringify(session)))).toEqual(session);
  });

  it("rejects records that break the schema", () => {
    expect(() => parseLoopRecord({ ...loop("x"), status: "done" })).toThrow();
    expect(() => parseLoopRecord({ ...loop("x"), usage: { input: -1 } })).toThrow();
    expect(() => parseLoopRecord({ ...loop("x"), continuationKind: { type: "rerun" } })).toThrow();
  });
});

describe("session tree navigation", () => {
  // root ─┬─ cont (continuation)
  //       └─ (sub-agent in another session, not here)
  // b1, b2, b3: parallel branches continuing `cont`
  const group = (isSelected: boolean) => ({
    groupId: "g1",
    loopIds: ["b1", "b2", "b3"],
    selectedLoopId: "b2",
    isSelected,
  });
  const session: SessionLoopTree = {
    sessionId: "s",
    agentId: "agent",
    loops: [
      loop("root", { childLoopIds: ["cont", "other-session.1"], usage: usage(10, 2) }),
      loop("cont", { parentLoopId: "root", childLoopIds: ["b1", "b2", "b3"] }),
      loop("b1", { parentLoopId: "cont", parallelGroup: group(false) }),
      loop("b2", { parentLoopId: "cont", parallelGroup: group(true) }),
      loop("b3", { parentLoopId: "cont", parallelGroup: group(false) }),
      loop("adopted", { parentLoopId: "loop-in-an-older-session" }),
    ],
  };

  it("rootLoops: loops without a parent in this session", () => {
    expect(rootLoops(session).map((l) => l.loopId)).toEqual(["root", "adopted"]);
  });

  it("childrenOf: in-session children in start order", () => {
    expect(childrenOf(session, "root").map((l) => l.loopId)).toEqual(["cont"]);
    expect(childrenOf(session, "cont").map((l) => l.loopId)).toEqual(["b1", "b2", "b3"]);
    expect(childrenOf(session, "b1")).toEqual([]);
  });

  it("a loop stored as its own parent is a root, never its own child (it stays in the tree)", () => {
    const selfish: SessionLoopTree = {
      sessionId: "s",
      agentId: "agent",
      loops: [loop("s.c.1"), loop("s.c.2", { parentLoopId: "s.c.2" })],
    };
    expect(rootLoops(selfish).map((l) => l.loopId)).toEqual(["s.c.1", "s.c.2"]);
    expect(childrenOf(selfish, "s.c.2")).toEqual([]);
  });

  it("getLoop finds by id", () => {
    expect(getLoop(session, "b2")?.parallelGroup?.isSelected).toBe(true);
    expect(getLoop(session, "missing")).toBeUndefined();
  });

  it("parallelSiblings: the other branches of the same group", () => {
    expect(parallelSiblings(session, "b2").map((l) => l.loopId)).toEqual(["b1", "b3"]);
    expect(parallelSiblings(session, "cont")).toEqual([]);
    expect(parallelSiblings(session, "missing")).toEqual([]);
    const selected = ["b1", "b2", "b3"].filter(
      (id) => getLoop(session, id)?.parallelGroup?.isSelected,
    );
    expect(selected).toEqual(["b2"]);
  });

  it("totalUsage sums every loop", () => {
    expect(totalUsage(session)).toEqual(usage(10 + 5, 2 + 5));
    expect(totalUsage({ sessionId: "e", agentId: "a", loops: [] })).toEqual(usage(0, 0));
  });
});

describe("loopTreesFromRecords", () => {
  it("groups rows by session, orders loops by start and restores the spawn ref", () => {
    const spawnRef = { parentSessionId: "p", parentLoopId: "p.1", parentAgentId: "pa" };
    const rows = [
      loop("c.2", { sessionId: "c", agentId: "ca", startedAt: 30 }),
      loop("p.1", { sessionId: "p", agentId: "pa", startedAt: 5 }),
      loop("c.1", { sessionId: "c", agentId: "ca", startedAt: 20, spawnRef }),
    ];
    const sessions = loopTreesFromRecords(rows);
    expect(sessions.map((s) => s.sessionId)).toEqual(["p", "c"]);
    expect(sessions[1]?.loops.map((l) => l.loopId)).toEqual(["c.1", "c.2"]);
    expect(sessions[1]?.agentId).toBe("ca");
    expect(sessions[1]?.parentSpawnRef).toEqual(spawnRef);
    expect(sessions[0]?.parentSpawnRef).toBeUndefined();
  });
});
