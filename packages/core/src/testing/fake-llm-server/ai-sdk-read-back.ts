import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3FunctionTool,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";

// Test support: drives an AI SDK provider model's doStream against the fake server and gathers
// what came out, the way Arbor's provider adapter reads it.

export interface ReadBack {
  text: string;
  textDeltas: number;
  reasoning: string;
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  finishReason: LanguageModelV3FinishReason | undefined;
  usage: LanguageModelV3Usage | undefined;
  modelId: string | undefined;
  errors: unknown[];
}

export const weatherTool: LanguageModelV3FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  },
};

export function userPrompt(text: string): LanguageModelV3CallOptions {
  return {
    prompt: [{ role: "user", content: [{ type: "text", text }] }],
    tools: [weatherTool],
  };
}

export async function readBack(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions,
): Promise<ReadBack> {
  const { stream } = await model.doStream(options);
  const out: ReadBack = {
    text: "",
    textDeltas: 0,
    reasoning: "",
    toolCalls: [],
    finishReason: undefined,
    usage: undefined,
    modelId: undefined,
    errors: [],
  };
  const reader = stream.getReader();
  for (;;) {
    const { done, value: part } = await reader.read();
    if (done) break;
    switch (part.type) {
      case "text-delta":
        out.text += part.delta;
        out.textDeltas += 1;
        break;
      case "reasoning-delta":
        out.reasoning += part.delta;
        break;
      case "tool-call":
        out.toolCalls.push({
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: JSON.parse(part.input),
        });
        break;
      case "finish":
        out.finishReason = part.finishReason;
        out.usage = part.usage;
        break;
      case "response-metadata":
        out.modelId = part.modelId ?? out.modelId;
        break;
      case "error":
        out.errors.push(part.error);
        break;
      default:
        break;
    }
  }
  return out;
}
