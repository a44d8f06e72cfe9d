import type {
  LanguageModelV3,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from "@ai-sdk/provider";
import type { ModelConfig } from "../model/llm-config.js";
import type {
  AssistantMessage,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCallContent,
  Usage,
} from "../model/llm-messages.js";
import { toCallOptions } from "./ai-sdk-prompt.js";
import { classifyThrown } from "./errors.js";
import {
  type AiSdkProtocol,
  createLanguageModel,
  type FetchFunction,
  PROVIDER_IDS,
} from "./model-factory.js";
import type { ProviderError, ProviderEvent, StreamProvider, StreamRequest } from "./provider.js";

// One StreamProvider over `LanguageModelV3.doStream()` for every AI SDK protocol. It reads the
// model's parts directly (not `streamText`, whose per-chunk cost is ~50× higher) and assembles
// the AssistantMessage in place. Contract (provider.ts): never throws; ends with exactly one
// `done` or `error` event.
//
// Tool arguments that are not valid JSON (a truncated stream, a model mistake) are kept as
// `{ __raw: "<text>" }` rather than dropped: the loop's schema validation then fails with an
// invalidArgs result the model can see and correct, and the raw text stays visible in the UI.

export interface AiSdkProviderOptions {
  /** which protocol's provider id to report when the request does not say otherwise */
  protocol: AiSdkProtocol;
  /** custom fetch for every model this provider creates (tests, proxies) */
  fetch?: FetchFunction;
  /** replaces createLanguageModel (tests inject MockLanguageModelV3 here) */
  createModel?: (config: ModelConfig) => LanguageModelV3 | Promise<LanguageModelV3>;
}

export const RAW_ARGUMENTS_KEY = "__raw";

export class AiSdkProvider implements StreamProvider {
  readonly providerId: string;
  private readonly createModel: (config: ModelConfig) => LanguageModelV3 | Promise<LanguageModelV3>;
  /**
   * Models are cached per ModelConfig object: configs are long-lived and treated as immutable
   * (build a new config to change a key or URL); building a model is not free (the first one of
   * a protocol loads its provider's package). A config that fails is not kept: the next request
   * tries again.
   */
  private readonly models = new WeakMap<ModelConfig, Promise<LanguageModelV3>>();

  constructor(options: AiSdkProviderOptions) {
    this.providerId = PROVIDER_IDS[options.protocol];
    const fetch = options.fetch;
    this.createModel = options.createModel ?? ((config) => createLanguageModel(config, fetch));
  }

  stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return this.run(request, signal);
  }

  private modelFor(config: ModelConfig): Promise<LanguageModelV3> {
    let model = this.models.get(config);
    if (!model) {
      model = (async () => this.createModel(config))();
      this.models.set(config, model);
      model.catch(() => this.models.delete(config));
    }
    return model;
  }

  private async *run(request: StreamRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const protocol = request.model.protocol;
    const partial: AssistantMessage = {
      role: "assistant",
      content: [],
      stopReason: "stop",
      model: request.model.model,
      provider: protocol === "offline" ? this.providerId : PROVIDER_IDS[protocol],
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      timestamp: Date.now(),
    };
    yield { type: "start", partial };

    let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
    let drained = false;
    const onAbort = () => {
      reader?.cancel().catch(() => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal.aborted) {
        yield fail(partial, { kind: "cancelled", message: "Request was aborted." });
        return;
      }
      const model = await this.modelFor(request.model);
      const result = await model.doStream(toCallOptions(request, signal));
      reader = result.stream.getReader();
      if (signal.aborted) {
        yield fail(partial, { kind: "cancelled", message: "Request was aborted." });
        return;
      }
      const state = new AssemblyState(partial);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          drained = true;
          break;
        }
        const event = state.apply(value);
        if (event === undefined) continue;
        if (event.type === "streamError") {
          yield fail(partial, classifyThrown(event.error, signal));
          return;
        }
        yield event;
      }
      if (signal.aborted) {
        yield fail(partial, { kind: "cancelled", message: "Request was aborted." });
        return;
      }
      if (!state.finished) {
        yield fail(partial, {
          kind: "network",
          message: "Stream ended before the response finished.",
        });
        return;
      }
      if (partial.stopReason === "error") {
        yield fail(partial, {
          kind: "api",
          message: state.finishError ?? "The provider reported an error.",
        });
        return;
      }
      yield { type: "done", message: partial };
    } catch (error) {
      yield fail(partial, classifyThrown(error, signal));
    } finally {
      signal.removeEventListener("abort", onAbort);
      // early exit (error part, consumer stopped iterating): release the HTTP response
      if (reader && !drained) reader.cancel().catch(() => {});
    }
  }
}

function fail(partial: AssistantMessage, error: ProviderError): ProviderEvent {
  partial.stopReason = error.kind === "cancelled" ? "aborted" : "error";
  partial.errorMessage = error.message;
  return { type: "error", error, partial };
}

interface PendingToolCall {
  block: ToolCallContent;
  sawDelta: boolean;
}

/** what one stream part turns into: an event to yield, a stream failure, or nothing */
type Applied = ProviderEvent | { type: "streamError"; error: unknown } | undefined;

/** Folds stream parts into the partial message. One instance per request. */
class AssemblyState {
  finished = false;
  finishError: string | undefined;
  private readonly texts = new Map<string, TextContent>();
  private readonly thoughts = new Map<string, ThinkingContent>();
  private readonly tools = new Map<string, PendingToolCall>();

  constructor(private readonly partial: AssistantMessage) {}

  apply(part: LanguageModelV3StreamPart): Applied {
    const partial = this.partial;
    switch (part.type) {
      case "text-delta": {
        let block = this.texts.get(part.id);
        if (!block) block = this.startText(part.id);
        block.text += part.delta;
        return { type: "textDelta", delta: part.delta, partial };
      }
      case "text-start":
        this.startText(part.id);
        return undefined;
      case "reasoning-delta": {
        let block = this.thoughts.get(part.id);
        if (!block) block = this.startThinking(part.id, part.providerMetadata);
        else readSignature(block, part.providerMetadata);
        if (part.delta === "") return undefined;
        block.thinking += part.delta;
        return { type: "thinkingDelta", delta: part.delta, partial };
      }
      case "reasoning-start":
        this.startThinking(part.id, part.providerMetadata);
        return undefined;
      case "reasoning-end": {
        const block = this.thoughts.get(part.id);
        if (block) readSignature(block, part.providerMetadata);
        return undefined;
      }
      case "tool-input-start": {
        const block: ToolCallContent = {
          type: "toolCall",
          id: part.id,
          name: part.toolName,
          arguments: {},
        };
        if (part.providerExecuted) return undefined;
        partial.content.push(block);
        this.tools.set(part.id, { block, sawDelta: false });
        return undefined;
      }
      case "tool-input-delta": {
        const pending = this.tools.get(part.id);
        if (!pending) return undefined;
        pending.sawDelta = true;
        return {
          type: "toolCallDelta",
          id: part.id,
          name: pending.block.name,
          delta: part.delta,
          partial,
        };
      }
      case "tool-call": {
        if (part.providerExecuted) return undefined;
        let pending = this.tools.get(part.toolCallId);
        if (!pending) {
          const block: ToolCallContent = {
            type: "toolCall",
            id: part.toolCallId,
            name: part.toolName,
            arguments: {},
          };
          partial.content.push(block);
          pending = { block, sawDelta: false };
          this.tools.set(part.toolCallId, pending);
        }
        pending.block.name = part.toolName;
        pending.block.arguments = parseToolArguments(part.input);
        // providers that send whole calls (Gemini, Bedrock sometimes) still get one delta for UIs
        if (!pending.sawDelta && part.input !== "") {
          pending.sawDelta = true;
          return {
            type: "toolCallDelta",
            id: part.toolCallId,
            name: part.toolName,
            delta: part.input,
            partial,
          };
        }
        return undefined;
      }
      case "finish":
        this.finished = true;
        partial.usage = toUsage(part.usage);
        partial.stopReason = toStopReason(part.finishReason, this.tools.size > 0);
        if (part.finishReason.unified === "content-filter") {
          this.finishError = "The provider stopped the response (content filter).";
        }
        return undefined;
      case "response-metadata":
        if (part.modelId) partial.model = part.modelId;
        return undefined;
      case "error":
        return { type: "streamError", error: part.error };
      case "text-end":
      case "tool-input-end":
      case "stream-start":
      case "tool-result":
      case "tool-approval-request":
      case "file":
      case "source":
      case "raw":
        return undefined;
      default:
        return part satisfies never;
    }
  }

  private startText(id: string): TextContent {
    const block: TextContent = { type: "text", text: "" };
    this.partial.content.push(block);
    this.texts.set(id, block);
    return block;
  }

  private startThinking(id: string, meta: SharedV3ProviderMetadata | undefined): ThinkingContent {
    const block: ThinkingContent = { type: "thinking", thinking: "" };
    readSignature(block, meta);
    this.partial.content.push(block);
    this.thoughts.set(id, block);
    return block;
  }
}

/** Anthropic and Bedrock report signatures/redacted data under their own metadata key. */
function readSignature(block: ThinkingContent, meta: SharedV3ProviderMetadata | undefined): void {
  if (!meta) return;
  const source = meta.anthropic ?? meta.bedrock;
  if (!source) return;
  const signature = source.signature;
  if (typeof signature === "string") block.signature = signature;
  const redacted = source.redactedData;
  if (typeof redacted === "string") {
    // redacted thinking: the encrypted payload is what must be sent back, kept in `signature`
    block.signature = redacted;
    block.redacted = true;
  }
}

export function parseToolArguments(input: string): Record<string, unknown> {
  if (input.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(input);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
    return { [RAW_ARGUMENTS_KEY]: input };
  } catch {
    return { [RAW_ARGUMENTS_KEY]: input };
  }
}

/** REQ-043. Tool calls win over a plain "stop" (some compatible servers say stop with tool calls). */
export function toStopReason(
  reason: LanguageModelV3FinishReason,
  hasToolCalls: boolean,
): StopReason {
  switch (reason.unified) {
    case "tool-calls":
      return "toolUse";
    case "length":
      return "length";
    case "error":
    case "content-filter":
      return "error";
    case "stop":
    case "other":
      return hasToolCalls ? "toolUse" : "stop";
    default:
      return reason.unified satisfies never;
  }
}

/** REQ-006 / REQ-128: input excludes cached tokens; totalTokens sums all four. */
export function toUsage(usage: LanguageModelV3Usage): Usage {
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  const input =
    usage.inputTokens.noCache ??
    Math.max(0, (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite);
  const output = usage.outputTokens.total ?? 0;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
  };
}
