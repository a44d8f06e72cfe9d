import { describe, expect, it } from "vitest";
import { DEFAULT_CACHE_CONFIG, type ToolDefinition } from "../../model/llm-config.js";
import { type Message, userMessage } from "../../model/llm-messages.js";
import type { ProviderEvent, StreamRequest } from "../provider.js";
import {
  estimateTokens,
  OfflineProvider,
  offlineModelConfig,
  textChunks,
} from "./offline-provider.js";

const TOOLS: ToolDefinition[] = [
  {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
];

function request(
  text: string,
  tools: ToolDefinition[] = TOOLS,
  system = "You are helpful.",
): StreamRequest {
  const messages: Message[] = [userMessage(text, 1)];
  return {
    model: offlineModelConfig(),
    systemPrompt: system,
    messages,
    tools,
    thinkingLevel: "off",
    cache: DEFAULT_CACHE_CONFIG,
  };
}

async function collect(
  provider: OfflineProvider,
  req: StreamRequest,
  signal = new AbortController().signal,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  // partial is updated in place: snapshot each event so the assertions see it as it was
  for await (const event of provider.stream(req, signal)) events.push(structuredClone(event));
  return events;
}

describe("OfflineProvider", () => {
  it("identifies itself", () => {
    expect(new OfflineProvider().providerId).toBe("offline");
    expect(offlineModelConfig()).toMatchObject({
      protocol: "offline",
      model: "arbor-offline",
      name: "Arbor offline model",
    });
  });

  it("streams prose in small deltas and ends with done/stop", async () => {
    const events = await collect(new OfflineProvider(), request("hello"));
    expect(events[0]?.type).toBe("start");
    const deltas = events.flatMap((e) => (e.type === "textDelta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(10);
    for (const delta of deltas.slice(0, -1)) expect(delta.length).toBeLessThan(60);
    const last = events.at(-1);
    if (last?.type !== "done") throw new Error(`expected done, got ${last?.type}`);
    expect(last.message.stopReason).toBe("stop");
    expect(last.message.model).toBe("arbor-offline");
    expect(last.message.provider).toBe("offline");
    expect(last.message.content).toEqual([{ type: "text", text: deltas.join("") }]);
    expect(deltas.join("")).toMatch(/^Hello! I'm the \*\*Arbor offline model\*\*/);
    expect(events.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
  });

  it("streams a tool call whose argument deltas join to the final arguments", async () => {
    const events = await collect(new OfflineProvider(), request("read package.json"));
    const argText = events.flatMap((e) => (e.type === "toolCallDelta" ? [e.delta] : [])).join("");
    expect(JSON.parse(argText)).toEqual({ path: "package.json" });
    const last = events.at(-1);
    if (last?.type !== "done") throw new Error("expected done");
    expect(last.message.stopReason).toBe("toolUse");
    expect(last.message.content).toEqual([
      { type: "text", text: "Let me read `package.json`." },
      {
        type: "toolCall",
        id: expect.stringMatching(/^offline_call_1_/),
        name: "read_file",
        arguments: { path: "package.json" },
      },
    ]);
  });

  it("reports token estimates of ceil(chars / 4)", async () => {
    const req = request("hi", [], "sys");
    const events = await collect(new OfflineProvider(), req);
    const last = events.at(-1);
    if (last?.type !== "done") throw new Error("expected done");
    const text = last.message.content[0]?.type === "text" ? last.message.content[0].text : "";
    expect(last.message.usage).toEqual({
      input: Math.ceil(("sys".length + "hi".length) / 4),
      output: Math.ceil(text.length / 4),
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: Math.ceil(5 / 4) + Math.ceil(text.length / 4),
    });
    expect(estimateTokens(0)).toBe(0);
    expect(estimateTokens(9)).toBe(3);
  });

  it("is deterministic: the same request gives the same events", async () => {
    const provider = new OfflineProvider({ now: () => 42 });
    for (const text of ["hello", "read package.json", "tell me a story", "search for TODO"]) {
      const a = await collect(provider, request(text));
      const b = await collect(new OfflineProvider({ now: () => 42 }), request(text));
      expect(b).toEqual(a);
    }
  });

  it("honours an abort before the request starts", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(new OfflineProvider(), request("hello"), controller.signal);
    expect(events).toHaveLength(1);
    const only = events[0];
    if (only?.type !== "error") throw new Error("expected error");
    expect(only.error.kind).toBe("cancelled");
    expect(only.partial.stopReason).toBe("aborted");
  });

  it("honours an abort mid-stream, keeping the partial text", async () => {
    const controller = new AbortController();
    const provider = new OfflineProvider({ chunkDelayMs: 5 });
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream(request("hello"), controller.signal)) {
      events.push(structuredClone(event));
      if (event.type === "textDelta" && events.length === 3) controller.abort();
    }
    const last = events.at(-1);
    if (last?.type !== "error") throw new Error(`expected error, got ${last?.type}`);
    expect(last.error).toEqual({ kind: "cancelled", message: "Request was aborted." });
    expect(last.partial.stopReason).toBe("aborted");
    const streamed = events.flatMap((e) => (e.type === "textDelta" ? [e.delta] : [])).join("");
    expect(last.partial.content).toEqual([{ type: "text", text: streamed }]);
    expect(events.filter((e) => e.type === "textDelta")).toHaveLength(2);
  });

  it("also stops between deltas when there is no delay", async () => {
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const event of new OfflineProvider().stream(request("hello"), controller.signal)) {
      events.push(event);
      if (event.type === "textDelta") controller.abort();
    }
    expect(events.map((e) => e.type)).toEqual(["start", "textDelta", "error"]);
  });

  it("never throws, even on a malformed request: it ends with an error event", async () => {
    const broken = { ...request("hi"), messages: null } as unknown as StreamRequest;
    const events = await collect(new OfflineProvider(), broken);
    expect(events).toHaveLength(1);
    const only = events[0];
    if (only?.type !== "error") throw new Error("expected error");
    expect(only.error.kind).toBe("other");
    expect(only.partial.stopReason).toBe("error");
  });
});

describe("textChunks", () => {
  it("cuts after whitespace near the size and loses nothing", () => {
    const text = "one two three four five six seven eight nine ten";
    const chunks = textChunks(text, 10);
    expect(chunks.join("")).toBe(text);
    expect(chunks[0]).toBe("one two three ");
    expect(textChunks("", 10)).toEqual([]);
  });
});
