import type { StreamProvider } from "../../llm/provider.js";
import type { ModelConfig } from "../../model/llm-config.js";
import { DEFAULT_CACHE_CONFIG } from "../../model/llm-config.js";
import { userMessage } from "../../model/llm-messages.js";
import type { ContextMessage } from "../../model/message-types.js";
import { toModelText } from "./model-view.js";

// Turning a batch of old messages into the text of one summary. Two implementations: the LLM one
// (spec "Message summarization") and an extractive one that needs no model — used when no model is
// configured, and by the optimizer as the fallback when the LLM fails.

export interface Summarizer {
  /** "llm" or "extractive"; recorded on the summary message */
  readonly kind: string;
  /** The batch's summary text. Throws on failure (the caller falls back); honours `signal`. */
  summarize(messages: readonly ContextMessage[], signal: AbortSignal): Promise<string>;
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
Write a concise summary (at most about 250 words) in plain text. Keep: the user's goals and decisions, constraints and preferences, files and identifiers that were read or changed, commands run and their outcomes, errors met and how they were resolved, open questions and unfinished work.
Drop pleasantries, repeated content and raw tool output. Do not invent anything. Do not address the user.`;

/** Per-message cap in the prompt, so one huge message cannot crowd out the rest of the batch. */
const PROMPT_MESSAGE_CHARS = 4_000;
/** Whole-prompt cap; messages are clipped harder when a batch is long. */
const PROMPT_TOTAL_CHARS = 120_000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} chars omitted ...]\n${text.slice(text.length - half)}`;
}

/** The batch as the transcript the summarizing model reads. */
export function transcriptOf(messages: readonly ContextMessage[]): string {
  const perMessage = Math.max(
    200,
    Math.min(PROMPT_MESSAGE_CHARS, Math.floor(PROMPT_TOTAL_CHARS / Math.max(1, messages.length))),
  );
  return messages
    .map(
      (message) =>
        `### ${message.role} (${message.body.message_type})\n${clip(toModelText(message), perMessage)}`,
    )
    .join("\n\n");
}

export interface LlmSummarizerOptions {
  provider: StreamProvider;
  model: ModelConfig;
  /** cap on the summary's length; default 600 tokens */
  maxTokens?: number;
  systemPrompt?: string;
}

export class LlmSummarizer implements Summarizer {
  readonly kind = "llm";
  private readonly options: LlmSummarizerOptions;

  constructor(options: LlmSummarizerOptions) {
    this.options = options;
  }

  async summarize(messages: readonly ContextMessage[], signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    const prompt = `${SUMMARY_REQUEST_PREFIX} ${messages.length} messages:\n\n${transcriptOf(messages)}`;
    const stream = this.options.provider.stream(
      {
        model: this.options.model,
        systemPrompt: this.options.systemPrompt ?? SUMMARIZATION_SYSTEM_PROMPT,
        messages: [userMessage(prompt)],
        tools: [],
        thinkingLevel: "off",
        maxTokens: this.options.maxTokens ?? 600,
        cache: DEFAULT_CACHE_CONFIG,
      },
      signal,
    );
    const where = `${this.options.provider.providerId}/${this.options.model.model}`;
    for await (const event of stream) {
      if (event.type === "error") {
        throw new SummarizationError(
          `LLM summarization with ${where} failed (${event.error.kind}): ${event.error.message}`,
        );
      }
      if (event.type !== "done") continue;
      const { message } = event;
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        throw new SummarizationError(
          `LLM summarization with ${where} stopped (${message.stopReason}): ${message.errorMessage ?? "no message"}`,
        );
      }
      const text = message.content
        .flatMap((block) => (block.type === "text" ? [block.text] : []))
        .join("\n")
        .trim();
      if (!text) throw new SummarizationError(`LLM summarization with ${where} returned no text`);
      return text;
    }
    throw new SummarizationError(`LLM summarization with ${where} ended without a response`);
  }
}

const LINE_CHARS = 140;
const MAX_LINES = 12;
const MAX_LIST = 10;
const MAX_CHARS = 2_000;
/** a kept fact sentence is cut here */
const FACT_CHARS = 200;

/**
 * What makes a sentence worth keeping word for word (issue #15): identifiers and codes (letters
 * with digits: R12, garnet-1084, v2), numbers, file paths, URLs, decisions, errors and their fixes,
 * and open questions.
 */
const FACT_PATTERNS: readonly RegExp[] = [
  /\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{2,}\b/,
  /\b\d[\d,.:]*\d\b/,
  /\bhttps?:\/\/\S+/,
  /(?:^|\s)\.{0,2}\/?[\w.-]+\/[\w./-]+/,
  /\b[\w-]+\.(?:ts|tsx|js|mjs|json|md|py|rs|go|java|rb|yml|yaml|toml|txt|sql|sh|css|html)\b/,
  /\b(?:we will|we'll|let's|decided|decision|going with|agreed|must|never|always)\b/i,
  /\b(?:error|exception|failed|fails|failing|broken|fix|fixed|fixes)\b/i,
  /\?$/,
];

/** The sentences of `text` that hold a fact, each cut to FACT_CHARS. */
export function factSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "" && FACT_PATTERNS.some((p) => p.test(sentence)))
    .map((sentence) =>
      sentence.length > FACT_CHARS ? `${sentence.slice(0, FACT_CHARS - 1)}…` : sentence,
    );
}

/** "14:02:11" of a message: where a kept fact came from. */
function turnOf(message: ContextMessage): string {
  const at = message.created_at.match(/T(\d{2}:\d{2}:\d{2})/);
  return at ? `, ${at[1]}` : "";
}

function firstLine(text: string): string {
  const line = (text.trim().split("\n", 1)[0] ?? "").trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

/** Tool arguments that usually name a file. */
const PATH_KEYS = ["path", "file", "file_path", "filename", "target"];

function list(items: Iterable<string>): string {
  const all = [...items];
  const shown = all.slice(0, MAX_LIST).join(", ");
  return all.length > MAX_LIST ? `${shown}, +${all.length - MAX_LIST} more` : shown;
}

/**
 * Deterministic, model-free. First the facts, word for word and deduplicated: every sentence of
 * the user's and the assistant's texts that holds an identifier, a code, a number, a path, a URL,
 * a decision, an error or an open question, with who said it and when. Then the first line of
 * each other conversational message (at most MAX_LINES), the tools called with their counts, the
 * files touched, and the errors met. At most MAX_CHARS characters; facts come first.
 */
export class ExtractiveSummarizer implements Summarizer {
  readonly kind = "extractive";

  async summarize(messages: readonly ContextMessage[], signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    return extractiveSummary(messages);
  }
}

export function extractiveSummary(messages: readonly ContextMessage[]): string {
  const lines: string[] = [];
  const facts: string[] = [];
  const seenFacts = new Set<string>();
  let omitted = 0;
  const tools = new Map<string, number>();
  const files = new Set<string>();
  const errors: string[] = [];
  const say = (line: string): void => {
    if (!line) return;
    if (lines.length < MAX_LINES) lines.push(`- ${line}`);
    else omitted++;
  };
  for (const message of messages) {
    const body = message.body;
    switch (body.message_type) {
      case "text": {
        const found = factSentences(body.text);
        if (found.length === 0) {
          say(`${message.role}: ${firstLine(body.text)}`);
          break;
        }
        for (const fact of found) {
          if (seenFacts.has(fact)) continue;
          seenFacts.add(fact);
          facts.push(`- ${fact} (${message.role}${turnOf(message)})`);
        }
        break;
      }
      case "file_reference":
        files.add(body.path);
        break;
      case "tool_request":
        if (body.text.trim()) say(`assistant: ${firstLine(body.text)}`);
        for (const call of body.calls) {
          tools.set(call.name, (tools.get(call.name) ?? 0) + 1);
          for (const key of PATH_KEYS) {
            const value = call.arguments[key];
            if (typeof value === "string" && value) files.add(value);
          }
        }
        break;
      case "tool_result":
        if (body.status !== "success") {
          const text = body.content.find((block) => block.type === "text");
          const detail = text?.type === "text" ? `: ${firstLine(text.text)}` : "";
          errors.push(`${body.tool_name} ${body.status}${detail}`);
        }
        break;
      case "mcp_resource":
        files.add(body.resource_uri);
        break;
      case "attachment":
        files.add(body.name);
        break;
      case "system_control":
        say(body.kind === "summary" ? `earlier: ${firstLine(body.text)}` : firstLine(body.text));
        break;
      case "plan":
        say(
          `plan (${body.steps.length} steps): ${firstLine(body.summary || body.steps[0]?.title || "")}`,
        );
        break;
      case "question":
        say(`question: ${firstLine(body.question)}`);
        break;
      default:
        body satisfies never;
    }
  }
  const out = [`Summary of ${messages.length} earlier messages:`];
  if (facts.length > 0) out.push("Facts:", ...facts);
  out.push(...lines);
  if (omitted > 0) out.push(`- … ${omitted} more messages`);
  if (tools.size > 0) {
    out.push(
      `Tools called: ${list([...tools].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)))}`,
    );
  }
  if (files.size > 0) out.push(`Files touched: ${list(files)}`);
  if (errors.length > 0) out.push(`Errors: ${list(errors)}`);
  const text = out.join("\n");
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}
