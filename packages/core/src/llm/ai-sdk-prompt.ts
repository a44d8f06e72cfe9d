import type {
  JSONSchema7,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { ApiProtocol, ToolDefinition } from "../model/llm-config.js";
import type {
  AssistantMessage,
  Message,
  ToolResultMessage,
  UserMessage,
} from "../model/llm-messages.js";
import { cacheBreakpoints, cacheMarker, shapeCall } from "./cache-and-thinking.js";
import type { StreamRequest } from "./provider.js";

// StreamRequest → LanguageModelV3CallOptions. Pure; no I/O. Kept apart from the stream mapping so
// token counting and tests can inspect exactly what the adapter sends.

/**
 * Thinking blocks are replayed only where the API needs them back and can verify them:
 * Anthropic (and Anthropic models on Bedrock) require signed thinking blocks before tool results
 * when thinking is on. OpenAI/Gemini reasoning is opaque and tied to provider item ids we do not
 * keep, so it is dropped on the way back (the model does not need it to continue).
 */
function replaysThinking(protocol: ApiProtocol): boolean {
  return protocol === "anthropic-messages" || protocol === "bedrock-converse";
}

export function toCallOptions(
  request: StreamRequest,
  signal: AbortSignal | undefined,
): LanguageModelV3CallOptions {
  const protocol = request.model.protocol;
  const breakpoints = cacheBreakpoints(request.cache, request.messages.length);
  const shape = shapeCall(request);
  const options: LanguageModelV3CallOptions = {
    prompt: toPrompt(request, breakpoints.system, breakpoints.messageIndex),
    providerOptions: shape.providerOptions,
  };
  if (request.tools.length > 0) {
    options.tools = toTools(
      request.tools,
      breakpoints.lastTool ? cacheMarker(protocol, "tool") : undefined,
    );
  }
  if (shape.maxOutputTokens !== undefined) options.maxOutputTokens = shape.maxOutputTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (signal) options.abortSignal = signal;
  return options;
}

export function toTools(
  tools: ToolDefinition[],
  lastToolOptions: SharedV3ProviderOptions | undefined,
): LanguageModelV3FunctionTool[] {
  const last = tools.length - 1;
  return tools.map((tool, i) => {
    const out: LanguageModelV3FunctionTool = {
      type: "function",
      name: tool.name,
      description: tool.description,
      // ToolDefinition.parameters is JSON Schema by contract (REQ-016)
      inputSchema: tool.parameters as JSONSchema7,
    };
    if (i === last && lastToolOptions) out.providerOptions = lastToolOptions;
    return out;
  });
}

/**
 * Messages map one to one, except assistant messages that would be empty on the wire (the APIs
 * reject empty assistant turns); a cache breakpoint on a skipped message moves to the previous one.
 */
export function toPrompt(
  request: StreamRequest,
  cacheSystem: boolean,
  cacheMessageIndex: number | undefined,
): LanguageModelV3Prompt {
  const protocol = request.model.protocol;
  const prompt: LanguageModelV3Prompt = [];
  if (request.systemPrompt !== "") {
    const system: LanguageModelV3Message = { role: "system", content: request.systemPrompt };
    const marker = cacheSystem ? cacheMarker(protocol, "system") : undefined;
    if (marker) system.providerOptions = marker;
    prompt.push(system);
  }
  const firstMessage = prompt.length;
  request.messages.forEach((message, i) => {
    const converted = toMessage(message, protocol);
    if (converted) prompt.push(converted);
    if (i === cacheMessageIndex && prompt.length > firstMessage) {
      const marker = cacheMarker(protocol, "message");
      const target = prompt[prompt.length - 1];
      if (marker && target) target.providerOptions = marker;
    }
  });
  return prompt;
}

export function toMessage(
  message: Message,
  protocol: ApiProtocol,
): LanguageModelV3Message | undefined {
  switch (message.role) {
    case "user":
      return toUserMessage(message);
    case "assistant":
      return toAssistantMessage(message, protocol);
    case "toolResult":
      return toToolMessage(message);
    default:
      // REQ-044: only LLM messages are ever sent; an extension message that slipped past the
      // types (plain JS callers, restored JSON) is dropped rather than sent malformed
      message satisfies never;
      return undefined;
  }
}

function toUserMessage(message: UserMessage): LanguageModelV3Message {
  return {
    role: "user",
    content: message.content.map((block) =>
      block.type === "text"
        ? { type: "text", text: block.text }
        : { type: "file", data: block.data, mediaType: block.mimeType },
    ),
  };
}

function toAssistantMessage(
  message: AssistantMessage,
  protocol: ApiProtocol,
): LanguageModelV3Message | undefined {
  const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        if (block.text !== "") content.push({ type: "text", text: block.text });
        break;
      case "thinking": {
        if (!replaysThinking(protocol) || block.signature === undefined) break;
        // redacted thinking keeps the encrypted payload in `signature` (see ai-sdk-adapter.ts)
        const meta = block.redacted
          ? { redactedData: block.signature }
          : { signature: block.signature };
        content.push({
          type: "reasoning",
          text: block.thinking,
          providerOptions: { anthropic: meta, bedrock: meta },
        });
        break;
      }
      case "toolCall":
        content.push({
          type: "tool-call",
          toolCallId: block.id,
          toolName: block.name,
          input: block.arguments,
        });
        break;
      default:
        return block satisfies never;
    }
  }
  return content.length > 0 ? { role: "assistant", content } : undefined;
}

function toToolMessage(message: ToolResultMessage): LanguageModelV3Message {
  return {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: toToolOutput(message),
      },
    ],
  };
}

function toToolOutput(message: ToolResultMessage): LanguageModelV3ToolResultOutput {
  const hasImage = message.content.some((b) => b.type === "image");
  if (!hasImage) {
    const text = message.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    return message.isError ? { type: "error-text", value: text } : { type: "text", value: text };
  }
  // images cannot be marked as errors in the AI SDK's content output: say so in the text instead
  const value: Extract<LanguageModelV3ToolResultOutput, { type: "content" }>["value"] = [];
  if (message.isError) value.push({ type: "text", text: "[tool error]" });
  for (const block of message.content) {
    value.push(
      block.type === "text"
        ? { type: "text", text: block.text }
        : { type: "image-data", data: block.data, mediaType: block.mimeType },
    );
  }
  return { type: "content", value };
}
