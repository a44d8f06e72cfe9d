import { EventStream, type SessionEvent } from "@arbor/core";
import { describe, expect, it, vi } from "vitest";
import { formatSseEvent, sseStream } from "./sse";

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

  it("writes the first event of a turn at once and the later ones of that turn as one chunk", async () => {
    const channel = new EventStream<SessionEvent>();
    const reader = sseStream(channel, { heartbeatMs: 0 }).getReader();
    expect(await readChunk(reader)).toBe(": stream open\n\n");

    let turnEnded = false;
    setImmediate(() => {
      turnEnded = true;
    });
    channel.push(delta(1, "a"));
    // two more events later in the same turn (after the first has been taken)
    void Promise.resolve()
      .then(() => Promise.resolve())
      .then(() => {
        channel.push(delta(2, "b"));
        return Promise.resolve();
      })
      .then(() => channel.push(delta(3, "c")));
    // the first is not held for the others: it arrives before the turn ends
    expect(await readChunk(reader)).toBe(formatSseEvent(delta(1, "a")));
    expect(turnEnded).toBe(false);
    // the others arrive together, once the turn has ended
    expect(await readChunk(reader)).toBe(
      formatSseEvent(delta(2, "b")) + formatSseEvent(delta(3, "c")),
    );
    expect(turnEnded).toBe(true);
    channel.end();
    expect(await readChunk(reader)).toBe("<end>");
  });

  it("serializes an event once however many clients stream it", async () => {
    const shared = [delta(1, "a"), delta(2, "b"), delta(3, "c")];
    const clients = [new EventStream<SessionEvent>(), new EventStream<SessionEvent>()];
    const readers = clients.map((channel) => sseStream(channel, { heartbeatMs: 0 }).getReader());
    for (const reader of readers) expect(await readChunk(reader)).toBe(": stream open\n\n");
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      // the session hands every subscriber the same event objects
      for (const event of shared) for (const channel of clients) channel.push(event);
      for (const channel of clients) channel.end();
      const expected = shared.map((event) => formatSseEvent(event)).join("");
      for (const reader of readers) {
        let text = "";
        for (
          let chunk = await readChunk(reader);
          chunk !== "<end>";
          chunk = await readChunk(reader)
        )
          text += chunk;
        expect(text).toBe(expected);
      }
      expect(stringify).toHaveBeenCalledTimes(shared.length);
    } finally {
      stringify.mockRestore();
    }
  });
});
