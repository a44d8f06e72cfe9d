import { describe, expect, it, vi } from "vitest";
import type { LoopRecord } from "../model/loop-records.js";
import { InMemoryLoopRecordSink, type LoopRecordSink, SerializedSinkWriter } from "./sink.js";

function loop(loopId: string, turns = 0): LoopRecord {
  return {
    loopId,
    sessionId: "s",
    agentId: "a",
    status: "running",
    startedAt: 0,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    turns,
    messages: [],
    childLoopIds: [],
    childLoopRefs: [],
  };
}

describe("SerializedSinkWriter", () => {
  it("writes a snapshot: later changes to the record do not leak into an earlier write", async () => {
    const sink = new InMemoryLoopRecordSink();
    const writer = new SerializedSinkWriter(sink);
    const record = loop("l1");
    writer.write(record);
    record.turns = 5;
    record.childLoopIds.push("x");
    await writer.flush();
    expect(sink.writes).toHaveLength(1);
    expect(sink.writes[0]?.turns).toBe(0);
    expect(sink.writes[0]?.childLoopIds).toEqual([]);
  });

  it("falls back to a JSON copy for data structuredClone cannot copy", async () => {
    const sink = new InMemoryLoopRecordSink();
    const writer = new SerializedSinkWriter(sink);
    const record = loop("l1");
    record.messages.push({ role: "extension", kind: "ui", data: { label: "x", onClick: () => 1 } });
    writer.write(record);
    await writer.flush();
    expect(sink.latest("l1")?.messages[0]).toEqual({
      role: "extension",
      kind: "ui",
      data: { label: "x" },
    });
  });

  it("runs lanes of different loops independently and flush waits for all of them", async () => {
    const order: string[] = [];
    const release = new Map<string, () => void>();
    const gated: LoopRecordSink = {
      upsertLoop(record) {
        return new Promise<void>((resolve) => {
          release.set(record.loopId, () => {
            order.push(`${record.loopId}:${record.turns}`);
            resolve();
          });
        });
      },
    };
    const writer = new SerializedSinkWriter(gated);
    writer.write(loop("a", 1));
    writer.write(loop("b", 1));
    writer.write(loop("a", 2));
    // both lanes have an upsert in flight at once; "a:2" waits behind "a:1"
    expect([...release.keys()].sort()).toEqual(["a", "b"]);
    let flushed = false;
    const flushing = writer.flush().then(() => {
      flushed = true;
    });
    release.get("b")?.();
    release.get("a")?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(flushed).toBe(false);
    release.get("a")?.();
    await flushing;
    expect(order).toEqual(["b:1", "a:1", "a:2"]);
  });

  it("flush with nothing written resolves at once", async () => {
    await expect(new SerializedSinkWriter(new InMemoryLoopRecordSink()).flush()).resolves.toBe(
      undefined,
    );
  });
});

describe("SerializedSinkWriter with a delay", () => {
  it("gathers a lane's changes during the delay into one upsert of the newest record", async () => {
    vi.useFakeTimers();
    try {
      const sink = new InMemoryLoopRecordSink();
      const writer = new SerializedSinkWriter(sink, { delayMs: 100 });
      writer.write(loop("l1", 0));
      writer.write(loop("l1", 1));
      await vi.advanceTimersByTimeAsync(99);
      expect(sink.writes).toHaveLength(0);
      writer.write(loop("l1", 2));
      await vi.advanceTimersByTimeAsync(1);
      expect(sink.writes.map((w) => w.turns)).toEqual([2]);
      // after the first upsert the lane starts over: the next change waits again
      writer.write(loop("l1", 3));
      await vi.advanceTimersByTimeAsync(50);
      expect(sink.writes.map((w) => w.turns)).toEqual([2]);
      await vi.advanceTimersByTimeAsync(50);
      expect(sink.writes.map((w) => w.turns)).toEqual([2, 3]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("copies a lane's record once, when its upsert starts, not at every write", async () => {
    const sink = new InMemoryLoopRecordSink();
    const writer = new SerializedSinkWriter(sink, { delayMs: 60_000 });
    // each copy reads `turns` once
    let turn = 0;
    let copies = 0;
    const record = loop("l1");
    Object.defineProperty(record, "turns", {
      enumerable: true,
      get: () => {
        copies++;
        return turn;
      },
    });
    for (turn = 1; turn <= 5; turn++) writer.write(record);
    turn = 5;
    expect(copies).toBe(0);
    await writer.flush();
    expect(copies).toBe(1);
    expect(sink.writes.map((w) => w.turns)).toEqual([5]);
  });

  it("hands the sink a copy: a change after the upsert started goes in the next one", async () => {
    const sink = new InMemoryLoopRecordSink();
    const writer = new SerializedSinkWriter(sink, { delayMs: 60_000 });
    const record = loop("l1", 1);
    writer.write(record);
    await writer.flush();
    record.turns = 2;
    record.childLoopIds.push("x");
    expect(sink.writes[0]).not.toBe(record);
    expect(sink.writes[0]?.turns).toBe(1);
    expect(sink.writes[0]?.childLoopIds).toEqual([]);
    writer.write(record);
    await writer.flush();
    expect(sink.writes.map((w) => w.turns)).toEqual([1, 2]);
  });

  it("flush ends the wait at once and stores the newest record", async () => {
    const sink = new InMemoryLoopRecordSink();
    const writer = new SerializedSinkWriter(sink, { delayMs: 60_000 });
    writer.write(loop("a", 1));
    writer.write(loop("b", 1));
    writer.write(loop("a", 4));
    const started = performance.now();
    await writer.flush();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(sink.writes.map((w) => `${w.loopId}:${w.turns}`).sort()).toEqual(["a:4", "b:1"]);
  });
});

describe("InMemoryLoopRecordSink", () => {
  it("keeps the latest record per loop and the full history", async () => {
    const sink = new InMemoryLoopRecordSink();
    await sink.upsertLoop(loop("l1", 0));
    await sink.upsertLoop(loop("l2", 0));
    await sink.upsertLoop(loop("l1", 3));
    expect(sink.writes.map((w) => `${w.loopId}:${w.turns}`)).toEqual(["l1:0", "l2:0", "l1:3"]);
    expect(sink.latest("l1")?.turns).toBe(3);
    expect(sink.records().map((r) => r.loopId)).toEqual(["l1", "l2"]);
    expect(sink.sessions()).toHaveLength(1);
  });
});
