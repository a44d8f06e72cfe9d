import { Agent, DEFAULT_CACHE_CONFIG, modelConfig, type StreamRequest } from "@arbor/core";
import { ScriptedProvider, type ScriptedTurn } from "@arbor/core/testing";
import { CHUNK_CHARS, type LoopSystem, TEXT } from "./shared.js";

// Arbor: the Agent with default settings (compaction, limits and retry on, as a user runs it) on
// the ScriptedProvider, which hands over all chunks at once.

const model = modelConfig({ protocol: "offline", model: "bench" });
const turn: ScriptedTurn = { blocks: [{ type: "text", text: TEXT }], chunkSize: CHUNK_CHARS };

export const system: LoopSystem = {
  name: "Arbor Agent",
  async raw() {
    const provider = new ScriptedProvider([turn]);
    const request: StreamRequest = {
      model,
      systemPrompt: "",
      messages: [{ role: "user", content: [{ type: "text", text: "go" }], timestamp: 0 }],
      tools: [],
      thinkingLevel: "off",
      cache: DEFAULT_CACHE_CONFIG,
    };
    let deltas = 0;
    for await (const event of provider.stream(request, new AbortController().signal)) {
      if (event.type === "textDelta") deltas++;
    }
    return deltas;
  },
  async loop() {
    const agent = new Agent({ provider: new ScriptedProvider([turn]), model });
    let updates = 0;
    for await (const event of agent.prompt("go")) {
      if (event.type === "messageUpdate") updates++;
    }
    return updates;
  },
};
