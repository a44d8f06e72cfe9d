import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { CHUNK_CHARS, CHUNKS, type LoopSystem, TEXT } from "./shared.js";

// The AI SDK's streamText on a MockLanguageModelV3 whose doStream returns the chunks as
// LanguageModelV3 stream parts, all enqueued at once (as the ScriptedProvider does).

const parts: LanguageModelV3StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t0" },
  ...Array.from(
    { length: CHUNKS },
    (_, i): LanguageModelV3StreamPart => ({
      type: "text-delta",
      id: "t0",
      delta: TEXT.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS),
    }),
  ),
  { type: "text-end", id: "t0" },
  {
    type: "finish",
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: CHUNKS * 2, text: CHUNKS * 2, reasoning: 0 },
    },
  },
];
const model = () =>
  new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
  });

export const system: LoopSystem = {
  name: "AI SDK streamText",
  async raw() {
    const { stream } = await model().doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    });
    let deltas = 0;
    for await (const part of stream) {
      if (part.type === "text-delta") deltas++;
    }
    return deltas;
  },
  async loop() {
    const result = streamText({ model: model(), prompt: "go" });
    let deltas = 0;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") deltas++;
    }
    return deltas;
  },
};
