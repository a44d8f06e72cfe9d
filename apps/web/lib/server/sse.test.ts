import { EventStream, type SessionEvent } from "@arbor/core";
import { describe, expect, it, vi } from "vitest";
import { formatSseEvent, sseStream } from "./sse";

/** Resolves after the current event-loop turn (its I/O callbacks and microtasks) has ended. */
const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

function delta(sequence: number, text: string): SessionEvent {
  return {
    name: "content_delta",
    sequence,
    payload: {
      context_id: "s",
      message_id: "m",
      sequence,
      delta: text,
      channel: "text",
      is_final: false,
    },
  };
}

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value, done } = await reader.read();
  return done ? "<end>" : new TextDecoder().decode(value);
}

describe("sseStream", () => {
  it("sends the events that are ready together in one chunk, in order, and later ones after", async () => {
    const channel = new EventStream<SessionEvent>();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    expect(await readChunk(reader)).toBe(": stream open\n\n");

    // one store write emits its events together
    channel.push(delta(1, "a"));
    channel.push(delta(2, "b"));
    channel.push(delta(3, "c"));
    expect(await readChunk(reader)).toBe(
      formatSseEvent(delta(1, "a")) + formatSseEvent(delta(2, "b")) + formatSseEvent(delta(3, "c")),
    );

    // an event that comes later is its own chunk
    const later = readChunk(reader);
    setTimeout(() => channel.push(delta(4, "d")), 5);
    expect(await later).toBe(formatSseEvent(delta(4, "d")));

    channel.push(delta(5, "e"));
    channel.end();
    expect(await readChunk(reader)).toBe(formatSseEvent(delta(5, "e")));
    expect(await readChunk(reader)).toBe("<end>");
  });

  it("loses nothing when the events come from an async generator (never ready at once)", async () => {
    async function* events(): AsyncGenerator<SessionEvent> {
      for (let i = 1; i <= 50; i++) {
        if (i % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        yield delta(i, `t${i}`);
      }
    }
    const reader = sseStream(events(), { heartbeatMs: 0 }).getReader();
    let text = "";
    for (;;) {
      const chunk = await readChunk(reader);
      if (chunk === "<end>") break;
      text += chunk;
    }
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it("cuts a long burst into chunks of bounded size without dropping any event", async () => {
    const channel = new EventStream<SessionEvent>();
    const big = "x".repeat(20_000);
    for (let i = 1; i <= 10; i++) channel.push(delta(i, big));
    channel.end();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    const chunks: string[] = [];
    for (;;) {
      const chunk = await readChunk(reader);
      if (chunk === "<end>") break;
      chunks.push(chunk);
    }
    expect(chunks.length).toBeGreaterThan(2);
    const ids = [...chunks.join("").matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("writes the first event of a turn at once, before the turn ends", async () => {
    const channel = new EventStream<SessionEvent>();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    expect(await readChunk(reader)).toBe(": stream open\n\n");
    let turnEnded = false;
    setImmediate(() => {
      turnEnded = true;
    });
    const read = readChunk(reader);
    channel.push(delta(1, "first"));
    // on the client's side within the same turn: nothing waited for a later event or a timer
    expect(await read).toBe(formatSseEvent(delta(1, "first")));
    expect(turnEnded).toBe(false);
    channel.end();
    expect(await readChunk(reader)).toBe("<end>");
  });

  it("coalesces the later events of one turn into one write at the turn's end", async () => {
    const channel = new EventStream<SessionEvent>();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    expect(await readChunk(reader)).toBe(": stream open\n\n");
    const first = readChunk(reader);
    // three callbacks of one event-loop turn (timers due together run in one timers phase), as
    // store writes and provider chunks resolve in one turn; more from microtasks after them
    setTimeout(() => channel.push(delta(1, "a")), 0);
    setTimeout(() => channel.push(delta(2, "b")), 0);
    setTimeout(() => {
      channel.push(delta(3, "c"));
      queueMicrotask(() => channel.push(delta(4, "d")));
    }, 0);
    // the turn's first event at once, alone
    expect(await first).toBe(formatSseEvent(delta(1, "a")));
    // the rest of the turn: one chunk, in order
    expect(await readChunk(reader)).toBe(
      formatSseEvent(delta(2, "b")) + formatSseEvent(delta(3, "c")) + formatSseEvent(delta(4, "d")),
    );
    // a new turn: its first event goes at once again
    await turnEnd();
    const next = readChunk(reader);
    channel.push(delta(5, "e"));
    expect(await next).toBe(formatSseEvent(delta(5, "e")));
    channel.end();
    expect(await readChunk(reader)).toBe("<end>");
  });

  it("keeps every event, in order, with the same ids, whatever the timing, in fewer writes", async () => {
    const channel = new EventStream<SessionEvent>();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    const sent: SessionEvent[] = [];
    const producing = (async () => {
      let sequence = 0;
      // bursts of events from microtasks, spread over turns and timers (a seeded pattern)
      for (let turn = 0; turn < 60; turn++) {
        const burst = 1 + ((turn * 7) % 5);
        for (let i = 0; i < burst; i++) {
          const event = delta(++sequence, `t${sequence} `);
          sent.push(event);
          channel.push(event);
          if (i % 2 === 1) await Promise.resolve();
        }
        if (turn % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        else await turnEnd();
      }
      channel.end();
    })();
    const chunks: string[] = [];
    for (;;) {
      const chunk = await readChunk(reader);
      if (chunk === "<end>") break;
      chunks.push(chunk);
    }
    await producing;
    expect(chunks.shift()).toBe(": stream open\n\n");
    // byte for byte what one write per event would have sent
    expect(chunks.join("")).toBe(sent.map(formatSseEvent).join(""));
    const ids = [...chunks.join("").matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(sent.map((event) => event.sequence));
    // no chunk splits an event, and there are fewer writes than events
    for (const chunk of chunks) expect(chunk.endsWith("\n\n")).toBe(true);
    expect(chunks.length).toBeLessThan(sent.length);
  });

  it("serializes an event once however many clients stream it", () => {
    const event = delta(7, "shared");
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const texts = [formatSseEvent(event), formatSseEvent(event), formatSseEvent(event)];
      expect(new Set(texts).size).toBe(1);
      expect(stringify).toHaveBeenCalledTimes(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it("waits for a slow client with what it read, and loses nothing once it reads again", async () => {
    const channel = new EventStream<SessionEvent>();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    const big = "y".repeat(30_000);
    // the client reads nothing meanwhile: the stream holds at most about one chunk's worth
    for (let i = 1; i <= 12; i++) channel.push(delta(i, big));
    await turnEnd();
    await turnEnd();
    channel.end();
    let text = "";
    for (;;) {
      const chunk = await readChunk(reader);
      if (chunk === "<end>") break;
      text += chunk;
    }
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });
});
