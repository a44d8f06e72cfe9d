import { EventStream } from "../agent/event-stream.js";
import { classifyProviderError } from "../llm/errors.js";
import type {
  ProviderError,
  ProviderEvent,
  StreamProvider,
  StreamRequest,
} from "../llm/provider.js";
import { abortableDelay } from "../model/cancellation.js";
import { type AssistantMessage, emptyUsage, type Usage } from "../model/llm-messages.js";
import {
  defaultStopReason,
  type Script,
  type ScriptedBlock,
  type ScriptedError,
  type ScriptedTurn,
} from "./script.js";

// The in-process fake model (REQ-030): plays a `Script` as a StreamProvider. It keeps the provider
// contract exactly — never throws, always ends with `done` or `error` — so tests exercise the same
// paths real providers take. Turns without delays are pushed synchronously into the returned
// EventStream, which keeps this fake cheap enough to serve as the baseline of the loop bench.

export interface ScriptedProviderOptions {
  /** what to answer once a list script is exhausted (default: an empty "stop" response) */
  fallback?: ScriptedTurn;
}

export class ScriptedProvider implements StreamProvider {
  readonly providerId = "mock";
  /** every request received, in order */
  readonly requests: StreamRequest[] = [];
  private readonly script: Script;
  private readonly fallback: ScriptedTurn;
  private toolCallCounter = 0;

  constructor(script: Script = [], options: ScriptedProviderOptions = {}) {
    this.script = script;
    this.fallback = options.fallback ?? { blocks: [] };
  }

  /** How many scripted turns of a list script have not been served yet. */
  get remaining(): number {
    return Array.isArray(this.script) ? Math.max(0, this.script.length - this.requests.length) : 0;
  }

  stream(
    request: StreamRequest,
    signal: AbortSignal,
  ): EventStream<ProviderEvent, AssistantMessage> {
    const index = this.requests.length;
    this.requests.push(request);
    const out = new EventStream<ProviderEvent, AssistantMessage>();
    let turn: ScriptedTurn;
    try {
      turn = Array.isArray(this.script)
        ? (this.script[index] ?? this.fallback)
        : this.script({
            protocol: request.model.protocol,
            model: request.model.model,
            index,
            body: request,
          });
    } catch (error) {
      const partial = this.emptyMessage(request, undefined);
      const message = error instanceof Error ? error.message : String(error);
      finish(out, { type: "error", error: { kind: "other", message }, partial });
      return out;
    }
    void this.play(turn, request, signal, out);
    return out;
  }

  private emptyMessage(request: StreamRequest, turn: ScriptedTurn | undefined): AssistantMessage {
    return {
      role: "assistant",
      content: [],
      stopReason: "stop",
      model: turn?.model ?? request.model.model,
      provider: this.providerId,
      usage: emptyUsage(),
      timestamp: Date.now(),
    };
  }

  /** Runs synchronously up to the first delay, so delay-free turns are fully buffered on return. */
  private async play(
    turn: ScriptedTurn,
    request: StreamRequest,
    signal: AbortSignal,
    out: EventStream<ProviderEvent, AssistantMessage>,
  ): Promise<void> {
    const partial = this.emptyMessage(request, turn);
    const cancelled = (): void =>
      finish(out, {
        type: "error",
        error: { kind: "cancelled", message: "Request was aborted." },
        partial,
      });

    if (turn.firstChunkDelayMs && !(await abortableDelay(turn.firstChunkDelayMs, signal)))
      return cancelled();
    if (signal.aborted) return cancelled();
    if (turn.error) {
      return finish(out, { type: "error", error: scriptedProviderError(turn.error), partial });
    }
    out.push({ type: "start", partial });

    const chunkSize = Math.max(1, turn.chunkSize ?? 16);
    const chunkDelay = turn.chunkDelayMs ?? 0;
    const interruptAfter = turn.interruptAfterChunks;
    let chunks = 0;
    let outputChars = 0;
    for (const block of turn.blocks ?? []) {
      const streamed = pieces(block, chunkSize);
      // the content block is created with its first piece and grows in place (ProviderEvent contract)
      const target = this.contentFor(block);
      partial.content.push(target);
      for (const piece of streamed) {
        if (interruptAfter !== undefined && chunks >= interruptAfter) {
          const error: ProviderError = { kind: "network", message: "stream interrupted" };
          return finish(out, { type: "error", error, partial });
        }
        // Between two pushes without a delay no other code runs (a push settles promises, whose
        // callbacks wait for this synchronous run to end), so the signal can only have changed
        // across a delay: checking it per chunk would be work no real stream does per part.
        if (chunkDelay > 0) {
          if (!(await abortableDelay(chunkDelay, signal))) return cancelled();
          if (signal.aborted) return cancelled();
        }
        chunks++;
        outputChars += piece.length;
        switch (target.type) {
          case "text":
            target.text += piece;
            out.push({ type: "textDelta", delta: piece, partial });
            break;
          case "thinking":
            target.thinking += piece;
            out.push({ type: "thinkingDelta", delta: piece, partial });
            break;
          case "toolCall":
            out.push({
              type: "toolCallDelta",
              id: target.id,
              name: target.name,
              delta: piece,
              partial,
            });
            break;
          default:
            target satisfies never;
        }
      }
      // tool arguments are parsed once complete, as real providers do
      if (target.type === "toolCall" && block.type === "toolCall")
        target.arguments = block.arguments;
    }
    partial.stopReason = defaultStopReason(turn);
    partial.usage = scriptedUsage(turn, request, outputChars);
    finish(out, { type: "done", message: partial });
  }

  private contentFor(block: ScriptedBlock): AssistantMessage["content"][number] {
    switch (block.type) {
      case "text":
        return { type: "text", text: "" };
      case "thinking":
        return block.signature !== undefined
          ? { type: "thinking", thinking: "", signature: block.signature }
          : { type: "thinking", thinking: "" };
      case "toolCall":
        return {
          type: "toolCall",
          id: block.id ?? `call_${++this.toolCallCounter}`,
          name: block.name,
          arguments: {},
        };
      default:
        return block satisfies never;
    }
  }
}

/** The streamed pieces of one block: text/thinking by `chunkSize`, tool arguments in 2 halves. */
function pieces(block: ScriptedBlock, chunkSize: number): string[] {
  if (block.type === "toolCall") {
    const whole = JSON.stringify(block.arguments);
    const mid = Math.ceil(whole.length / 2);
    return [whole.slice(0, mid), whole.slice(mid)];
  }
  const whole = block.type === "text" ? block.text : block.thinking;
  const out: string[] = [];
  for (let i = 0; i < whole.length; i += chunkSize) out.push(whole.slice(i, i + chunkSize));
  return out;
}

function finish(out: EventStream<ProviderEvent, AssistantMessage>, last: ProviderEvent): void {
  out.push(last);
  out.end(last.type === "done" ? last.message : last.partial);
}

/** ScriptedError (an HTTP status) → the ProviderError a real provider would report for it. */
export function scriptedProviderError(error: ScriptedError): ProviderError {
  return classifyProviderError({
    status: error.status,
    message: error.message ?? error.body ?? "",
    ...(error.headers ? { headers: error.headers } : {}),
  });
}

function scriptedUsage(turn: ScriptedTurn, request: StreamRequest, outputChars: number): Usage {
  let inputChars = request.systemPrompt.length;
  for (const m of request.messages) {
    for (const block of m.content) inputChars += block.type === "text" ? block.text.length : 16;
  }
  const input = turn.usage?.input ?? Math.ceil(inputChars / 4);
  const output = turn.usage?.output ?? Math.ceil(outputChars / 4);
  const cacheRead = turn.usage?.cacheRead ?? 0;
  const cacheWrite = turn.usage?.cacheWrite ?? 0;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
  };
}
