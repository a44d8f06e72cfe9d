import { describe, expect, it } from "vitest";
import { EventStream } from "./event-stream.js";

describe("EventStream", () => {
  it("REQ-032: push never blocks; 1,000 events arrive in order; result() gives end's value", async () => {
    const stream = new EventStream<number, string>();
    for (let i = 0; i < 1000; i++) stream.push(i);
    stream.end("done");
    const seen: number[] = [];
    for await (const n of stream) seen.push(n);
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    await expect(stream.result()).resolves.toBe("done");
  });

  it("REQ-032: a waiting consumer is woken by push and by end", async () => {
    const stream = new EventStream<string, number>();
    const collected = (async () => {
      const out: string[] = [];
      for await (const s of stream) out.push(s);
      return out;
    })();
    await Promise.resolve();
    stream.push("a");
    await new Promise((r) => setImmediate(r));
    stream.push("b");
    stream.end(2);
    expect(await collected).toEqual(["a", "b"]);
  });

  it("REQ-032: ending twice is a no-op and pushes after end are dropped", async () => {
    const stream = new EventStream<number, string>();
    stream.push(1);
    stream.end("first");
    stream.end("second");
    stream.push(2);
    const seen: number[] = [];
    for await (const n of stream) seen.push(n);
    expect(seen).toEqual([1]);
    await expect(stream.result()).resolves.toBe("first");
  });

  it("REQ-032: the batch API hands over everything buffered and wakes on push", async () => {
    const stream = new EventStream<number, void>();
    stream.push(1);
    stream.push(2);
    expect(stream.takeBuffered()).toEqual([1, 2]);
    expect(stream.takeBuffered()).toEqual([]);
    const woke = stream.waitForEvents();
    stream.push(3);
    await woke;
    expect(stream.takeBuffered()).toEqual([3]);
    stream.end();
    await stream.waitForEvents();
    expect(stream.isDone).toBe(true);
  });

  it("REQ-032: a consumer that breaks early detaches; result() still resolves", async () => {
    const stream = new EventStream<number, string>();
    stream.push(1);
    stream.push(2);
    for await (const n of stream) {
      expect(n).toBe(1);
      break;
    }
    stream.push(3);
    expect(stream.takeBuffered()).toEqual([]);
    stream.end("ok");
    await expect(stream.result()).resolves.toBe("ok");
  });

  it("REQ-032: interleaved pushes and reads stay in FIFO order past the buffer's compaction point", async () => {
    const stream = new EventStream<number, void>();
    let next = 0;
    for (let i = 0; i < 5000; i++) stream.push(next++);
    const seen: number[] = [];
    for (let i = 0; i < 9000; i++) {
      const r = await stream.next();
      if (r.done) throw new Error("ended early");
      seen.push(r.value);
      if (i % 2 === 0) stream.push(next++);
    }
    expect(seen).toEqual(Array.from({ length: 9000 }, (_, i) => i));
  });
  it("a consumer that stops wakes a waiting next(), ends the stream for the producer and calls onDetach once", async () => {
    let detached = 0;
    const stream = new EventStream<number>(() => detached++);
    const waiting = stream.next();
    await stream.return();
    await expect(waiting).resolves.toEqual({ value: undefined, done: true });
    expect(stream.ended).toBe(true);
    expect(detached).toBe(1);
    stream.push(1);
    await stream.return();
    expect(detached).toBe(1);
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it("a stream that ended first does not call onDetach when its consumer stops", async () => {
    let detached = 0;
    const stream = new EventStream<number>(() => detached++);
    stream.push(1);
    stream.end();
    expect(stream.ended).toBe(true);
    for await (const n of stream) {
      expect(n).toBe(1);
      break;
    }
    expect(detached).toBe(0);
  });
});
