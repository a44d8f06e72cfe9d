import { describe, expect, it, vi } from "vitest";
import { call, collect, harness, say } from "../../../test/support/session-harness.js";
import { LoopRecorder } from "../../recording/recorder.js";

// The manager's cache follows the sessions in use (issue #30: memory per idle session): a session
// at rest that nobody has asked for in `idleSessionMs` leaves it and is read again from the store
// on its next use, with nothing lost; one that runs, waits for a person or is followed by a stream
// stays. The clock the manager reads is moved an hour on instead of waiting; the sweep itself runs
// every second at this setting.

const IDLE_MS = 2_000;

function clockedHarness(script: Parameters<typeof harness>[0]) {
  let offset = 0;
  const recorder = new LoopRecorder();
  const h = harness(script, {
    idleSessionMs: IDLE_MS,
    now: () => new Date(Date.now() + offset),
    recorder,
  });
  return { ...h, recorder, later: () => (offset += 60 * 60_000) };
}

describe("the session cache", () => {
  it("drops a session at rest nobody asked for, and reads it back whole on its next use", async () => {
    const h = clockedHarness([say("first answer"), say("second answer")]);
    const session = await h.manager.create();
    const first = await collect(session.sendMessage({ type: "text", text: "one" }));
    await session.idle();
    expect(session.atRest).toBe(true);
    expect(h.manager.cachedSessions).toBe(1);
    expect(h.recorder.getSession(session.id)?.loops).toHaveLength(1);

    h.later();
    await vi.waitFor(() => expect(h.manager.cachedSessions).toBe(0), { timeout: 5_000 });
    // its loop tree leaves the recorder's memory at the next sweep (it is in the store)
    await vi.waitFor(() => expect(h.recorder.getSession(session.id)).toBeUndefined(), {
      timeout: 5_000,
    });

    const again = await h.manager.get(session.id);
    expect(again).toBeDefined();
    expect(again).not.toBe(session);
    expect(again?.messages().messages.map((m) => m.id)).toEqual(
      session.messages().messages.map((m) => m.id),
    );
    // the events go on from where they were: no sequence is used twice
    const second = await collect(again!.sendMessage({ type: "text", text: "two" }));
    const lastBefore = Math.max(...first.map((e) => e.sequence));
    const sequenced = second.map((e) => e.sequence).filter((s) => s > 0);
    expect(Math.min(...sequenced)).toBe(lastBefore + 1);
    expect(again?.messages().messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("keeps a session followed by a stream, one waiting for an approval and one just asked for", async () => {
    const h = clockedHarness([call("write_note", { text: "n" }, "w1")]);
    const followed = await h.manager.create();
    const stream = followed.events(0)[Symbol.asyncIterator]();
    const waiting = await h.manager.create({ config: { approval_policy: { type: "manual" } } });
    await collect(waiting.sendMessage({ type: "text", text: "write a note" }));
    expect(waiting.state.type).toBe("AwaitingToolApproval");
    const asked = await h.manager.create();
    const idle = await h.manager.create();
    expect(h.manager.cachedSessions).toBe(4);

    h.later();
    expect(await h.manager.get(asked.id)).toBe(asked);
    await vi.waitFor(() => expect(h.manager.cachedSessions).toBe(3), { timeout: 5_000 });
    expect(await h.manager.get(followed.id)).toBe(followed);
    expect(await h.manager.get(waiting.id)).toBe(waiting);
    expect(await h.manager.get(asked.id)).toBe(asked);
    expect(await h.manager.get(idle.id)).not.toBe(idle);

    // once its stream is closed, the followed session is at rest like any other
    await stream.return?.();
    expect(followed.atRest).toBe(true);
  });

  it("keeps every session with idleSessionMs 0", async () => {
    const h = harness([], { idleSessionMs: 0 });
    const session = await h.manager.create();
    expect(session.atRest).toBe(true);
    expect(await h.manager.get(session.id)).toBe(session);
    expect(h.manager.cachedSessions).toBe(1);
  });
});
