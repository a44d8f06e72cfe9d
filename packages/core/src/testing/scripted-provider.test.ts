import { describe, expect, it } from "vitest";
import type { ProviderEvent, StreamRequest } from "../llm/provider.js";
import { DEFAULT_CACHE_CONFIG, modelConfig } from "../model/llm-config.js";
import { ScriptedProvider } from "./scripted-provider.js";

const request: StreamRequest = {
  model: modelConfig({ protocol: "offline", model: "scripted" }),
  systemPrompt: "sys",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 }],
  tools: [],
  thinkingLevel: "off",
  cache: DEFAULT_CACHE_CONFIG,
};

async function collect(iterable: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

describe("ScriptedProvider", () => {
  it("REQ-030: plays turns in order, then a default stop response; records every request", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "hello world" }], chunkSize: 5 },
      { blocks: [{ type: "toolCall", id: "t1", name: "echo", arguments: { text: "x" } }] },
    ]);
    expect(provider.providerId).toBe("mock");
    const first = await collect(provider.stream(request, new AbortController().signal));
    expect(first.map((e) => e.type)).toEqual([
      "start",
      "textDelta",
      "textDelta",
      "textDelta",
      "done",
    ]);
    const done = first.at(-1);
    expect(done?.type === "done" && done.message.content).toEqual([
      { type: "text", text: "hello world" },
    ]);
    expect(done?.type === "done" && done.message.stopReason).toBe("stop");

    const second = await collect(provider.stream(request, new AbortController().signal));
    const end = second.at(-1);
    expect(second.filter((e) => e.type === "toolCallDelta")).toHaveLength(2);
    expect(end?.type === "done" && end.message.stopReason).toBe("toolUse");
    expect(end?.type === "done" && end.message.content).toEqual([
      { type: "toolCall", id: "t1", name: "echo", arguments: { text: "x" } },
    ]);

    const third = await collect(provider.stream(request, new AbortController().signal));
    expect(third.at(-1)).toMatchObject({
      type: "done",
      message: { stopReason: "stop", content: [] },
    });
    expect(provider.requests).toHaveLength(3);
  });

  it("REQ-030: scripted HTTP statuses become classified provider errors", async () => {
    const provider = new ScriptedProvider([
      { error: { status: 429, message: "slow down", headers: { "retry-after-ms": "7" } } },
      { error: { status: 401, message: "bad key" } },
      { error: { status: 400, message: "prompt is too long" } },
    ]);
    const kinds = [];
    for (let i = 0; i < 3; i++) {
      const events = await collect(provider.stream(request, new AbortController().signal));
      expect(events).toHaveLength(1);
      kinds.push(events[0]?.type === "error" ? events[0].error : undefined);
    }
    expect(kinds[0]).toMatchObject({ kind: "rate_limited", retryAfterMs: 7 });
    expect(kinds[1]).toMatchObject({ kind: "auth" });
    expect(kinds[2]).toMatchObject({ kind: "context_overflow" });
  });

  it("REQ-030: interruptAfterChunks ends with a network error after partial output", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "abcdefgh" }], chunkSize: 2, interruptAfterChunks: 2 },
    ]);
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events.map((e) => e.type)).toEqual(["start", "textDelta", "textDelta", "error"]);
    const last = events.at(-1);
    expect(last?.type === "error" && last.error.kind).toBe("network");
    expect(last?.type === "error" && last.partial.content).toEqual([
      { type: "text", text: "abcd" },
    ]);
  });

  it("REQ-030: aborting mid-stream ends with a cancelled error", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "abcdefgh" }], chunkSize: 1, chunkDelayMs: 5 },
    ]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const e of provider.stream(request, controller.signal)) {
      events.push(e);
      if (e.type === "textDelta") controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "cancelled" } });
  });

  it("REQ-030: a script function decides from the request", async () => {
    const provider = new ScriptedProvider(({ index, model }) => ({
      blocks: [{ type: "text", text: `${model}#${index}` }],
    }));
    const events = await collect(provider.stream(request, new AbortController().signal));
    expect(events.at(-1)).toMatchObject({
      type: "done",
      message: { content: [{ type: "text", text: "scripted#0" }] },
    });
  });
});
