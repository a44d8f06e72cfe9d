import { describe, expect, it } from "vitest";
import { call, collect, errors, harness, say } from "../../../test/support/session-harness.js";
import { emptyUsage } from "../../model/llm-messages.js";
import { loopTreesFromRecords, rootLoops } from "../../recording/index.js";
import { InMemorySessionStore } from "../../store/memory-store.js";

// Loop ids of a session's runs come from the store (SessionStore.nextLoopNumber): a new process
// (a new SessionManager, a new recorder, the same store) goes on numbering where the last one
// stopped, so no loop record is overwritten and no loop becomes its own parent.

describe("loop ids that survive restarts", () => {
  it("run, restart, resume an approval, restart, run again: every loop is kept, each with its own id", async () => {
    const store = new InMemorySessionStore();
    const script = [call("write_note", { text: "a" }, "w1"), say("Written."), say("Again.")];
    const first = harness(script, { store });
    const session = await first.manager.create();
    await collect(session.sendMessage({ type: "text", text: "write" }));
    expect(session.state.type).toBe("AwaitingToolApproval");

    // a new process: new manager and recorder over the same store; the model goes on
    const second = harness(script.slice(1), { store });
    const reloaded = await second.manager.get(session.id);
    if (!reloaded) throw new Error("session not reloaded");
    await collect(reloaded.decideToolCalls([{ tool_call_id: "w1", decision: "approve" }]));
    expect(reloaded.state.type).toBe("Idle");

    const third = harness(script.slice(2), { store });
    const again = await third.manager.get(session.id);
    if (!again) throw new Error("session not reloaded");
    const events = await collect(again.sendMessage({ type: "text", text: "more" }));
    expect(errors(events)).toEqual([]);

    const loops = await store.listLoops(session.id);
    // the scripted provider is "mock"; model "scripted-model"
    const prefix = `${session.id}.mock.scripted-model`;
    expect(loops.map((l) => l.loopId)).toEqual([`${prefix}.1`, `${prefix}.2`, `${prefix}.3`]);
    expect(loops.map((l) => l.status)).toEqual(["completed", "completed", "completed"]);
    expect(loops.map((l) => l.parentLoopId)).toEqual([undefined, `${prefix}.1`, undefined]);
    for (const loop of loops) expect(loop.parentLoopId).not.toBe(loop.loopId);
    // the admin tree (rebuilt from the stored records) holds all three
    const [tree] = loopTreesFromRecords(loops);
    expect(tree?.loops).toHaveLength(3);
    expect(rootLoops(tree!).map((l) => l.loopId)).toEqual([`${prefix}.1`, `${prefix}.3`]);
    // each assistant row names the loop that wrote it
    const written = again
      .messages()
      .messages.filter((m) => m.role === "assistant")
      .map((m) => m.meta?.loop_id);
    expect(written).toEqual([`${prefix}.1`, `${prefix}.2`, `${prefix}.3`]);
  });

  it("records an earlier process left in the store are never overwritten: numbering goes on after them", async () => {
    const store = new InMemorySessionStore();
    const h = harness([say("After the restart.")], { store });
    const session = await h.manager.create();
    const prefix = `${session.id}.mock.scripted-model`;
    // what a process that has since stopped stored (this process's counters never saw it)
    const earlier = {
      sessionId: session.id,
      agentId: "arbor",
      status: "completed" as const,
      startedAt: 1,
      usage: emptyUsage(),
      turns: 1,
      messages: [],
      childLoopIds: [],
      childLoopRefs: [],
    };
    await store.upsertLoop({ ...earlier, loopId: `${prefix}.1` });
    await store.upsertLoop({ ...earlier, loopId: `${prefix}.2`, parentLoopId: `${prefix}.1` });
    await collect(session.sendMessage({ type: "text", text: "hi" }));
    const loops = await store.listLoops(session.id);
    expect(loops.map((l) => [l.loopId, l.turns])).toEqual([
      [`${prefix}.1`, 1],
      [`${prefix}.2`, 1],
      [`${prefix}.3`, 1],
    ]);
    expect(loops[2]?.messages.length).toBeGreaterThan(0);
  });

  it("a store that cannot number the loop fails the run as a storage failure; nothing is sent", async () => {
    const store = new InMemorySessionStore();
    const h = harness([say("never")], { store });
    const session = await h.manager.create();
    store.nextLoopNumber = async () => {
      throw new Error("database is down");
    };
    const events = await collect(session.sendMessage({ type: "text", text: "hi" }));
    expect(h.provider.requests).toHaveLength(0);
    expect(errors(events)).toMatchObject([{ code: "storage" }]);
    expect(errors(events)[0]?.message).toContain("database is down");
    expect(session.state.type).toBe("Failed");
  });
});

describe("the ask-N-ways judge's loop id", () => {
  // the judge answers "1"; each candidate answers its own text
  const judged = (request: { body: unknown }) =>
    JSON.stringify(request.body).includes("impartial judge")
      ? say("1. The clearest.")
      : say("four");
  const askTwoWays = {
    payload: { type: "text" as const, text: "What is 2+2?" },
    candidates: [{ label: "A" }, { label: "B" }],
    judge: { strategy: "llm_judge" as const },
  };

  it("a judge after a restart (another process, one store) keeps the earlier judge's loop record", async () => {
    const store = new InMemorySessionStore();
    const h = harness(judged, { store });
    const session = await h.manager.create();
    const judgeId = `${session.id}.judge-mock.scripted-model`;
    // what an earlier process (or another instance) stored: its judge's loop; this process's
    // counters never saw it
    const earlier = {
      sessionId: session.id,
      agentId: "arbor",
      status: "completed" as const,
      startedAt: 1,
      usage: emptyUsage(),
      turns: 1,
      messages: [],
      childLoopIds: [],
      childLoopRefs: [],
    };
    await store.upsertLoop({ ...earlier, loopId: `${judgeId}.1` });
    await store.upsertLoop({ ...earlier, loopId: `${judgeId}.2` });
    const events = await collect(session.askParallel({ session_id: session.id, ...askTwoWays }));
    expect(errors(events)).toEqual([]);

    const judges = (await store.listLoops(session.id)).filter((l) => l.loopId.startsWith(judgeId));
    expect(judges.map((l) => [l.loopId, l.startedAt])).toEqual([
      [`${judgeId}.1`, 1],
      [`${judgeId}.2`, 1],
      [`${judgeId}.3`, expect.any(Number)],
    ]);
    expect(judges[2]?.startedAt).toBeGreaterThan(1);
    expect(judges[2]?.messages.length).toBeGreaterThan(0);
  });

  it("two sessions of one process number their judges each from their own records", async () => {
    const store = new InMemorySessionStore();
    const h = harness(judged, { store });
    const a = await h.manager.create();
    const b = await h.manager.create();
    await collect(a.askParallel({ session_id: a.id, ...askTwoWays }));
    await collect(b.askParallel({ session_id: b.id, ...askTwoWays }));
    await collect(a.askParallel({ session_id: a.id, ...askTwoWays }));
    const judgeIds = async (id: string) =>
      (await store.listLoops(id)).map((l) => l.loopId).filter((l) => l.includes("judge"));
    expect(await judgeIds(a.id)).toEqual([
      expect.stringMatching(/\.1$/),
      expect.stringMatching(/\.2$/),
    ]);
    expect(await judgeIds(b.id)).toEqual([expect.stringMatching(/\.1$/)]);
  });
});
