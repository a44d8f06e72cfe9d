import { type AgentMessage, agentLoop } from "@mariozechner/pi-agent-core";
import {
  fauxAssistantMessage,
  type Message,
  registerFauxProvider,
  streamSimple,
} from "@mariozechner/pi-ai";
import { type LoopSystem, TEXT } from "./shared.js";

// pi-agent-core's agentLoop on pi-ai's own faux provider: 2 tokens × 4 characters = 8-character
// chunks like the others; no tokensPerSecond, so no pacing (it yields a microtask per chunk).

const faux = registerFauxProvider({ tokenSize: { min: 2, max: 2 } });
const model = faux.getModel();
const prompt = (): AgentMessage => ({ role: "user", content: "go", timestamp: Date.now() });

export const system: LoopSystem = {
  name: "pi agentLoop",
  async raw() {
    faux.setResponses([fauxAssistantMessage(TEXT)]);
    let deltas = 0;
    for await (const event of streamSimple(model, { systemPrompt: "", messages: [prompt()] })) {
      if (event.type === "text_delta") deltas++;
    }
    return deltas;
  },
  async loop() {
    faux.setResponses([fauxAssistantMessage(TEXT)]);
    const stream = agentLoop(
      [prompt()],
      { systemPrompt: "", messages: [], tools: [] },
      {
        model,
        // the loop's documented default: keep the LLM's own message roles
        convertToLlm: (messages) =>
          messages.filter(
            (m): m is Message =>
              m.role === "user" || m.role === "assistant" || m.role === "toolResult",
          ),
      },
    );
    let updates = 0;
    for await (const event of stream) {
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
        updates++;
    }
    return updates;
  },
};
