import { DEFAULT_CACHE_CONFIG, type ModelConfig } from "../model/llm-config.js";
import { userMessage } from "../model/llm-messages.js";
import type { StreamProvider } from "./provider.js";

// One request, one text answer: for the small jobs a session asks of its model beside the
// conversation (a title, a summary). No tools, no thinking; a failure is thrown with the provider
// and model named, so the caller can fall back.

export interface CompleteTextRequest {
  provider: StreamProvider;
  model: ModelConfig;
  systemPrompt: string;
  prompt: string;
  maxTokens: number;
}

export async function completeText(
  request: CompleteTextRequest,
  signal: AbortSignal,
): Promise<string> {
  signal.throwIfAborted();
  const { provider, model } = request;
  const where = `${provider.providerId}/${model.model}`;
  const stream = provider.stream(
    {
      model,
      systemPrompt: request.systemPrompt,
      messages: [userMessage(request.prompt)],
      tools: [],
      thinkingLevel: "off",
      maxTokens: request.maxTokens,
      cache: DEFAULT_CACHE_CONFIG,
    },
    signal,
  );
  for await (const event of stream) {
    if (event.type === "error") {
      throw new Error(`${where} failed (${event.error.kind}): ${event.error.message}`);
    }
    if (event.type !== "done") continue;
    const { message } = event;
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      throw new Error(
        `${where} stopped (${message.stopReason}): ${message.errorMessage ?? "no message"}`,
      );
    }
    const text = message.content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("\n")
      .trim();
    if (!text) throw new Error(`${where} returned no text`);
    return text;
  }
  throw new Error(`${where} ended without a response`);
}
