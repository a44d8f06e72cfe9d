import { EventStream, type SessionEvent } from "@arbor/core";
import { describe, expect, it } from "vitest";
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
});
