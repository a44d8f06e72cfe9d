import { describe, expect, it } from "vitest";
import { collect, testModel } from "../../test/support/agent-fixtures.js";
import { LoopRecorder } from "../recording/recorder.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { Agent } from "./agent.js";

// REQ-215 (issue #26 finding 10): an Agent rotates its session: newSession() starts a new session
// id with fresh loop counters and no parent loop; checkAndRotate(threshold) does so once the agent
// has been idle longer than the threshold, measured from lastActiveAt (its last prompt).

const say = (text: string) => ({ blocks: [{ type: "text" as const, text }] });

describe("Agent session rotation", () => {
  it("newSession(): a new session id, loop numbers from 1, no parent; the history stays", async () => {
    const provider = new ScriptedProvider([say("a"), say("b"), say("c")]);
    const agent = new Agent({ provider, model: testModel, configId: "cfg" });
    const recorder = new LoopRecorder();
    const first = agent.sessionId;
    for (const e of await collect(agent.prompt("one"))) recorder.onEvent(e);
    for (const e of await collect(agent.prompt("two"))) recorder.onEvent(e);
    expect(agent.lastLoopId).toBe(`${first}.cfg.2`);

    const returned = agent.newSession();
    expect(returned).toBe(agent.sessionId);
    expect(agent.sessionId).not.toBe(first);
    expect(agent.lastLoopId).toBeUndefined();
    expect(agent.messages).toHaveLength(4);
    // the counters start again: the new session's first loop is number 1 and a root
    for (const e of await collect(agent.prompt("three"))) recorder.onEvent(e);
    expect(agent.lastLoopId).toBe(`${agent.sessionId}.cfg.1`);
    const tree = recorder.getSession(agent.sessionId);
    expect(tree?.loops.map((l) => [l.loopId, l.parentLoopId])).toEqual([
      [`${agent.sessionId}.cfg.1`, undefined],
    ]);
    expect(recorder.getSession(first)?.loops).toHaveLength(2);
  });

  it("lastActiveAt is set by a prompt; checkAndRotate rotates only past the threshold", async () => {
    const provider = new ScriptedProvider([say("a")]);
    const agent = new Agent({ provider, model: testModel });
    expect(agent.lastActiveAt).toBeUndefined();
    // never active: nothing to rotate
    expect(agent.checkAndRotate(0)).toBe(false);
    const before = Date.now();
    await collect(agent.prompt("hi"));
    const active = agent.lastActiveAt;
    expect(active).toBeInstanceOf(Date);
    expect(active?.getTime()).toBeGreaterThanOrEqual(before);
    const session = agent.sessionId;
    const at = active?.getTime() ?? 0;
    expect(agent.checkAndRotate(60_000, new Date(at + 60_000))).toBe(false);
    expect(agent.sessionId).toBe(session);
    expect(agent.checkAndRotate(60_000, new Date(at + 60_001))).toBe(true);
    expect(agent.sessionId).not.toBe(session);
    // rotation starts the idle clock again: the next check does not rotate once more
    expect(agent.lastActiveAt).toBeUndefined();
    expect(agent.checkAndRotate(60_000, new Date(at + 120_000))).toBe(false);
  });

  it("refuses to rotate while a run is active", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const provider = new ScriptedProvider([say("slow")]);
    const agent = new Agent({
      provider,
      model: testModel,
      hooks: { beforeTurn: () => gate.then(() => true) },
    });
    const stream = agent.prompt("hi");
    expect(() => agent.newSession()).toThrow(/while a run is active/);
    release();
    await collect(stream);
    expect(() => agent.newSession()).not.toThrow();
  });
});
