import { describe, expect, it } from "vitest";
import { readSseEvents, SESSION_EVENT_NAMES, SseParser, toSessionEvent } from "./sse";

const update = (state: string) =>
  JSON.stringify({
    context_id: "s",
    current_state: { type: state },
    timestamp: "2025-01-01T00:00:00Z",
    metadata: {},
  });

function responseOf(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

describe("SseParser", () => {
  it("dispatches on a blank line, skips comments and joins data lines", () => {
    const parser = new SseParser();
    const events = parser.push(": stream open\n\nid: 7\nevent: error\ndata: a\ndata: b\n\n");
    expect(events).toEqual([{ id: "7", event: "error", data: "a\nb" }]);
  });

  it("handles CRLF and CR line ends, also split across chunks", () => {
    const parser = new SseParser();
    const first = parser.push("id: 1\r");
    const second = parser.push("\nevent: x\r\ndata: 1\r\r");
    expect([...first, ...second]).toEqual([{ id: "1", event: "x", data: "1" }]);
  });

  it("keeps an event split mid-line until its blank line arrives", () => {
    const parser = new SseParser();
    expect(parser.push("id: 3\nevent: content_fi")).toEqual([]);
    expect(parser.push("nal\ndata: {}\n\n")).toEqual([
      { id: "3", event: "content_final", data: "{}" },
    ]);
  });
});

describe("readSseEvents", () => {
  it("yields typed session events with their sequence; unsequenced ones get 0", async () => {
    const response = responseOf([
      `: open\n\nid: 1\nevent: context_update\ndata: ${update("Idle")}\n\n`,
      'event: error\ndata: {"context_id":"s","code":"invalid_transition","message":"no","recoverable":true}\n\n',
      "id: 2\nevent: unknown_name\ndata: {}\n\n",
      'id: 3\nevent: subagent_update\ndata: {"context_id":"s","tool_call_id":"c","tool_name":"r","loop_id":"l","kind":"started"}\n\n',
    ]);
    const events = [];
    for await (const event of readSseEvents(response)) events.push(event);
    expect(events.map((e) => [e.name, e.sequence])).toEqual([
      ["context_update", 1],
      ["error", 0],
      ["subagent_update", 3],
    ]);
  });
});

describe("toSessionEvent", () => {
  it("knows every event name of the protocol (fold and progress events included)", () => {
    for (const name of SESSION_EVENT_NAMES) {
      expect(toSessionEvent({ id: "3", event: name, data: "{}" })?.name).toBe(name);
    }
    expect(toSessionEvent({ id: "3", event: "no_such_event", data: "{}" })).toBeUndefined();
  });
});
