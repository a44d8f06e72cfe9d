import { completeText } from "../../llm/complete-text.js";
import type { StreamProvider } from "../../llm/provider.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import { toModelText } from "./model-view.js";

// Turning a batch of old messages into the text of one summary. Two implementations: the LLM one
// (spec "Message summarization") and an extractive one that needs no model — used when no model is
// configured, and by the optimizer as the fallback when the LLM fails.

export interface SummarizeOptions {
  /** the summary's share of the window, in tokens (the optimizer's; see optimizer.ts) */
  maxTokens?: number;
  /** the turn a message belongs to (1 = the branch's first user message), when known */
  turnOf?: (message: ContextMessage) => number | undefined;
}

export interface Summarizer {
  /** "llm" or "extractive"; recorded on the summary message */
  readonly kind: string;
  /** what made the summary, for the transcript ("anthropic-messages/claude-…"); optional */
  readonly label?: string;
  /** The batch's summary text. Throws on failure (the caller falls back); honours `signal`. */
  summarize(
    messages: readonly ContextMessage[],
    signal: AbortSignal,
    options?: SummarizeOptions,
  ): Promise<string>;
}

export class SummarizationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SummarizationError";
  }
}

/** How the summarizer's user prompt begins (the fake LLM server recognizes summary requests by it). */
export const SUMMARY_REQUEST_PREFIX = "Summarize these";

export const SUMMARIZATION_SYSTEM_PROMPT = `You compress the early part of a conversation between a user and a coding agent so the agent can continue without it.
Write a concise summary in plain text, as a list of short lines. Keep: the user's goals and decisions, constraints and preferences, files and identifiers that were read or changed, commands run and their outcomes, errors met and how they were resolved, open questions and unfinished work.
Keep every identifier, number, code, file path, URL and name exactly as written, with the turn it came from when the transcript gives one; an earlier summary's facts stay in yours.
Drop pleasantries, repeated content and raw tool output. Do not invent anything. Do not address the user.`;

/** The length the summary may take, said in words (a model keeps to words better than tokens). */
function lengthRule(maxTokens: number): string {
  return `Use at most about ${Math.max(50, Math.floor(maxTokens * 0.6))} words.`;
}

/** Per-message cap in the prompt, so one huge message cannot crowd out the rest of the batch. */
const PROMPT_MESSAGE_CHARS = 4_000;
/** Whole-prompt cap; messages are clipped harder when a batch is long. */
const PROMPT_TOTAL_CHARS = 120_000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} chars omitted ...]\n${text.slice(text.length - half)}`;
}

/** The batch as the transcript the summarizing model reads (`turnOf` numbers its turns). */
export function transcriptOf(
  messages: readonly ContextMessage[],
  turnOf?: SummarizeOptions["turnOf"],
): string {
  const perMessage = Math.max(
    200,
    Math.min(PROMPT_MESSAGE_CHARS, Math.floor(PROMPT_TOTAL_CHARS / Math.max(1, messages.length))),
  );
  return messages
    .map((message) => {
      const turn = turnOf?.(message);
      const where = turn === undefined ? "" : `, turn ${turn}`;
      return `### ${message.role} (${message.body.message_type}${where})\n${clip(toModelText(message), perMessage)}`;
    })
    .join("\n\n");
}

export interface LlmSummarizerOptions {
  provider: StreamProvider;
  model: ModelConfig;
  /** cap on the summary's length when the optimizer gives no share; default 600 tokens */
  maxTokens?: number;
  systemPrompt?: string;
}

export class LlmSummarizer implements Summarizer {
  readonly kind = "llm";
  readonly label: string;
  private readonly options: LlmSummarizerOptions;

  constructor(options: LlmSummarizerOptions) {
    this.options = options;
    this.label = `${options.model.protocol}/${options.model.model}`;
  }

  async summarize(
    messages: readonly ContextMessage[],
    signal: AbortSignal,
    options: SummarizeOptions = {},
  ): Promise<string> {
    signal.throwIfAborted();
    const maxTokens = options.maxTokens ?? this.options.maxTokens ?? 600;
    const prompt = `${SUMMARY_REQUEST_PREFIX} ${messages.length} messages:\n\n${transcriptOf(messages, options.turnOf)}`;
    try {
      return await completeText(
        {
          provider: this.options.provider,
          model: this.options.model,
          systemPrompt: `${this.options.systemPrompt ?? SUMMARIZATION_SYSTEM_PROMPT}\n${lengthRule(maxTokens)}`,
          prompt,
          maxTokens,
        },
        signal,
      );
    } catch (error) {
      throw new SummarizationError(
        `LLM summarization with ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
