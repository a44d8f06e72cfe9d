import { abortableDelay } from "../../model/cancellation.js";
import { type ModelConfig, modelConfig } from "../../model/llm-config.js";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type Usage,
} from "../../model/llm-messages.js";
import type { ProviderEvent, StreamProvider, StreamRequest } from "../provider.js";
import { composeAnswer, OFFLINE_MODEL_ID, OFFLINE_MODEL_NAME } from "./answers.js";

// The built-in offline model: a StreamProvider that needs no key and no network, so a new user
// sees a working agent at once. It answers by rules (intent.ts, answers.ts) and is deterministic:
// the same request always streams the same deltas, tool calls and usage. It keeps the provider
// contract — never throws, ends with exactly one `done` or `error`, cancellation is an error of
// kind "cancelled" whose partial message has stopReason "aborted".

export interface OfflineProviderOptions {
  /** pause before each streamed chunk, in ms, to make streaming visible in a UI (default 0) */
  chunkDelayMs?: number;
  /** about how many characters each text delta holds; deltas end at word ends (default 24) */
  chunkChars?: number;
  /** clock for message timestamps (default Date.now) */
  now?: () => number;
}

/** A ModelConfig that selects the offline model. */
export function offlineModelConfig(): ModelConfig {
  return modelConfig({ protocol: "offline", model: OFFLINE_MODEL_ID, name: OFFLINE_MODEL_NAME });
}

export class OfflineProvider implements StreamProvider {
  readonly providerId = "offline";
  readonly #chunkDelayMs: number;
  readonly #chunkChars: number;
  readonly #now: () => number;

  constructor(options: OfflineProviderOptions = {}) {
    this.#chunkDelayMs = Math.max(0, options.chunkDelayMs ?? 0);
    this.#chunkChars = Math.max(1, options.chunkChars ?? 24);
    this.#now = options.now ?? Date.now;
  }

  stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    return this.#play(request, signal);
  }

  async *#play(request: StreamRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const partial: AssistantMessage = {
      role: "assistant",
      content: [],
      stopReason: "stop",
      model: OFFLINE_MODEL_ID,
      provider: this.providerId,
      usage: emptyUsage(),
      timestamp: this.#now(),
    };
    let inputTokens = 0;
    let outputChars = 0;
    const cancelled = (): ProviderEvent => {
      partial.stopReason = "aborted";
      partial.usage = usageOf(inputTokens, estimateTokens(outputChars));
      return {
        type: "error",
        error: { kind: "cancelled", message: "Request was aborted." },
        partial,
      };
    };
    try {
      inputTokens = estimateTokens(requestChars(request));
      if (signal.aborted) {
        yield cancelled();
        return;
      }
      const answer = composeAnswer(request);
      yield { type: "start", partial };

      const text = { type: "text" as const, text: "" };
      partial.content.push(text);
      for (const piece of textChunks(answer.text, this.#chunkChars)) {
        if (!(await this.#pause(signal))) {
          yield cancelled();
          return;
        }
        text.text += piece;
        outputChars += piece.length;
        yield { type: "textDelta", delta: piece, partial };
      }

      if (answer.kind === "toolCall") {
        const call = {
          type: "toolCall" as const,
          id: answer.toolCallId,
          name: answer.toolName,
          arguments: {},
        };
        partial.content.push(call);
        // Arguments stream as JSON text and are parsed once complete, as real providers do.
        const json = JSON.stringify(answer.arguments);
        const half = Math.ceil(json.length / 2);
        for (const piece of [json.slice(0, half), json.slice(half)]) {
          if (!(await this.#pause(signal))) {
            yield cancelled();
            return;
          }
          outputChars += piece.length;
          yield { type: "toolCallDelta", id: call.id, name: call.name, delta: piece, partial };
        }
        call.arguments = answer.arguments;
        outputChars += call.name.length;
      }

      partial.stopReason = answer.kind === "toolCall" ? "toolUse" : "stop";
      partial.usage = usageOf(inputTokens, estimateTokens(outputChars));
      yield { type: "done", message: partial };
    } catch (error) {
      // Rules code should not fail; if it does, the contract still holds: an error event, no throw.
      partial.stopReason = "error";
      const message = error instanceof Error ? error.message : String(error);
      partial.errorMessage = message;
      yield { type: "error", error: { kind: "other", message }, partial };
    }
  }

  /** Waits the chunk delay; false when the request was aborted meanwhile (or before). */
  async #pause(signal: AbortSignal): Promise<boolean> {
    if (this.#chunkDelayMs > 0 && !(await abortableDelay(this.#chunkDelayMs, signal))) return false;
    return !signal.aborted;
  }
}

/** Splits text into deltas of about `size` characters that end after whitespace. */
export function textChunks(text: string, size: number): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const word of text.split(/(?<=\s)/)) {
    current += word;
    if (current.length >= size) {
      chunks.push(current);
      current = "";
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/** The usual rough estimate: a token is about four characters. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function usageOf(input: number, output: number): Usage {
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output };
}

/** Characters the model "reads": system prompt, every message, the tool definitions. */
function requestChars(request: StreamRequest): number {
  let chars = request.systemPrompt.length;
  for (const message of request.messages) chars += messageChars(message);
  for (const tool of request.tools) {
    chars += tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length;
  }
  return chars;
}

function messageChars(message: Message): number {
  let chars = 0;
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        chars += block.text.length;
        break;
      case "thinking":
        chars += block.thinking.length;
        break;
      case "toolCall":
        chars += block.name.length + JSON.stringify(block.arguments).length;
        break;
      case "image":
        // images are not read offline; count a nominal amount so meters still move
        chars += 1_000;
        break;
      default:
        block satisfies never;
    }
  }
  return chars;
}
