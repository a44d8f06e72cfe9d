import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { AgentMessage, Content } from "../model/llm-messages.js";
import type { TokenCounter } from "./types.js";

// Token counting (REQ-054, REQ-055, REQ-162). Counts are estimates: each provider tokenizes
// differently, so the budget check only needs to be close and cheap. The provider-reported usage
// (ContextTracker, REQ-136) is the ground truth when it exists.

/**
 * Texts longer than this are not tokenized whole: tokenizing runs at 3–20 M chars/s (base64 is the
 * slow end), so a 2 MB tool output would cost up to ~700 ms, and the exact figure does not matter
 * since tier 1 truncates it. Instead three windows (start, middle, end) of SAMPLE_WINDOW chars are
 * tokenized and their tokens-per-char ratio is applied to the whole length. Plain bytes/4 would be
 * cheaper but under-counts dense text such as base64 by ~2.7×.
 */
export const TOKENIZER_MAX_CHARS = 200_000;
const SAMPLE_WINDOW = 16_000;

/**
 * BPE merging is quadratic in the length of one pre-token (a run of letters, CJK text, a long
 * whitespace run): 10k "a"s take ~80 ms, 100k take ~9 s. Runs of at least this many characters are
 * counted in chunks of this size, which over-counts by at most one token per chunk boundary.
 */
const LONG_RUN_CHUNK = 128;
const LONG_RUN = /\S{128,}|\s{128,}/;
const LONG_RUN_GLOBAL = /\S{128,}|\s{128,}/g;

/**
 * Special-token strings such as "<|endoftext|>" in user text are counted as plain text; with
 * gpt-tokenizer's defaults they would throw.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** REQ-054 (`estimate_tokens`): ceil(utf8 bytes / 4); "hello" → 2. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

/**
 * Counts of recent texts of medium length, by content. The same system prompt and tool
 * definitions are counted for every session and every request (they are rebuilt per session, so
 * the per-object caches below miss them); tokenizing them costs milliseconds, a lookup
 * microseconds. Bounded, oldest first out; short texts are cheaper to count than to key.
 */
const TEXT_MEMO_MIN_CHARS = 256;
const TEXT_MEMO_MAX_CHARS = 64_000;
const TEXT_MEMO_ENTRIES = 256;
const textMemo = new Map<string, number>();

function countWithTokenizer(text: string): number {
  if (text.length === 0) return 0;
  if (text.length > TOKENIZER_MAX_CHARS) return countSampled(text);
  if (text.length < TEXT_MEMO_MIN_CHARS || text.length > TEXT_MEMO_MAX_CHARS) {
    return countExact(text);
  }
  const known = textMemo.get(text);
  if (known !== undefined) return known;
  const count = countExact(text);
  if (textMemo.size >= TEXT_MEMO_ENTRIES) {
    const oldest = textMemo.keys().next().value;
    if (oldest !== undefined) textMemo.delete(oldest);
  }
  textMemo.set(text, count);
  return count;
}

function countSampled(text: string): number {
  const middle = Math.floor((text.length - SAMPLE_WINDOW) / 2);
  const windows = [
    text.slice(0, SAMPLE_WINDOW),
    text.slice(middle, middle + SAMPLE_WINDOW),
    text.slice(text.length - SAMPLE_WINDOW),
  ];
  let sampleTokens = 0;
  for (const window of windows) sampleTokens += countExact(window);
  return Math.ceil((sampleTokens * text.length) / (SAMPLE_WINDOW * windows.length));
}

function countExact(text: string): number {
  if (!LONG_RUN.test(text)) return countTokens(text, PLAIN_TEXT);
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN_GLOBAL)) {
    const start = match.index;
    if (start > last) total += countTokens(text.slice(last, start), PLAIN_TEXT);
    const run = match[0];
    for (let i = 0; i < run.length; i += LONG_RUN_CHUNK) {
      total += countTokens(run.slice(i, i + LONG_RUN_CHUNK), PLAIN_TEXT);
    }
    last = start + run.length;
  }
  if (last < text.length) total += countTokens(text.slice(last), PLAIN_TEXT);
  return total;
}

const DEFAULT_COUNTER: TokenCounter = Object.freeze({ countText: countWithTokenizer });
const HEURISTIC_COUNTER: TokenCounter = Object.freeze({ countText: estimateTextTokens });

/**
 * REQ-162: gpt-tokenizer with the o200k_base encoding (GPT-4o/GPT-5 family); a good-enough proxy
 * for other providers' tokenizers. Returns one shared instance so the per-message cache is shared.
 */
export function defaultTokenCounter(): TokenCounter {
  return DEFAULT_COUNTER;
}

/** REQ-054: ceil(utf8 bytes / 4). Shared instance. */
export function heuristicTokenCounter(): TokenCounter {
  return HEURISTIC_COUNTER;
}

/**
 * The most tokens `counter` can count in `text`, found without tokenizing it; undefined for a
 * counter whose bound is not known. The default counter's count is at most 3 per UTF-16 unit:
 * every o200k token stands for at least one UTF-8 byte of what is encoded, and a unit encodes to
 * at most 3 bytes (a lone surrogate, even one a long run's chunking split off its pair, to
 * U+FFFD's 3); the sampled count of a long text scales such a count by the length. The heuristic
 * counter is cheap: its own count.
 */
export function textTokensAtMost(text: string, counter: TokenCounter): number | undefined {
  if (counter === DEFAULT_COUNTER) return 3 * text.length;
  if (counter === HEURISTIC_COUNTER) return estimateTextTokens(text);
  return undefined;
}

/** REQ-055 */
export const USER_ASSISTANT_OVERHEAD = 4;
/** REQ-055 */
export const TOOL_RESULT_OVERHEAD = 8;
export const IMAGE_MIN_TOKENS = 85;
export const IMAGE_MAX_TOKENS = 16_000;

/** Decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
  let padding = 0;
  if (data.endsWith("==")) padding = 2;
  else if (data.endsWith("=")) padding = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** REQ-055: clamp(raw_bytes / 750, 85, 16000), rounded up. */
export function imageTokens(base64Data: string): number {
  const raw = Math.ceil(base64Bytes(base64Data) / 750);
  return Math.min(IMAGE_MAX_TOKENS, Math.max(IMAGE_MIN_TOKENS, raw));
}

/** REQ-055: text and thinking count their text; a tool call counts its name plus JSON arguments. */
export function contentTokens(content: readonly Content[], counter: TokenCounter): number {
  let total = 0;
  for (const block of content) {
    switch (block.type) {
      case "text":
        total += counter.countText(block.text);
        break;
      case "thinking":
        total += counter.countText(block.thinking);
        break;
      case "image":
        total += imageTokens(block.data);
        break;
      case "toolCall":
        total += counter.countText(block.name) + counter.countText(JSON.stringify(block.arguments));
        break;
    }
  }
  return total;
}

/**
 * Extension messages are not sent to the model by default (REQ-044), so they count 0 — unless
 * they carry text (`data` is a string or has a string `text` field), which a custom convertToLlm
 * may well send; then they count like a user message.
 */
function extensionText(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (typeof data === "object" && data !== null && "text" in data) {
    const text: unknown = data.text;
    if (typeof text === "string") return text;
  }
  return undefined;
}

function computeMessageTokens(message: AgentMessage, counter: TokenCounter): number {
  switch (message.role) {
    case "user":
    case "assistant":
      return USER_ASSISTANT_OVERHEAD + contentTokens(message.content, counter);
    case "toolResult":
      return TOOL_RESULT_OVERHEAD + contentTokens(message.content, counter);
    case "extension": {
      const text = extensionText(message.data);
      return text === undefined ? 0 : USER_ASSISTANT_OVERHEAD + counter.countText(text);
    }
  }
}

/**
 * Messages are immutable once appended to a history, so each message is counted once per counter;
 * the budget check before every model request is then a sum of cached numbers. Weak maps keep the
 * cache from holding on to dropped messages or counters.
 */
const cache = new WeakMap<TokenCounter, WeakMap<AgentMessage, number>>();

function cacheFor(counter: TokenCounter): WeakMap<AgentMessage, number> {
  let perCounter = cache.get(counter);
  if (!perCounter) {
    perCounter = new WeakMap();
    cache.set(counter, perCounter);
  }
  return perCounter;
}

/**
 * Tool results that optimization cut (tier 1) → the result they were cut from. The cut keeps whole
 * lines of the original, so when the original has been counted its cut is estimated from it (its
 * text tokens scaled by the characters kept) instead of being tokenized again: the one place a
 * long history would otherwise pay the tokenizer twice.
 */
const cutFrom = new WeakMap<AgentMessage, AgentMessage>();

/** Records that `cut` holds a part of `source`'s text (see cutFrom). */
export function noteCutMessage(cut: AgentMessage, source: AgentMessage): void {
  cutFrom.set(cut, source);
}

function textChars(message: AgentMessage): number {
  if (message.role === "extension") return 0;
  let chars = 0;
  for (const block of message.content) if (block.type === "text") chars += block.text.length;
  return chars;
}

/** Tokens that do not scale with the text: the overhead and the images. */
function fixedTokens(message: AgentMessage): number {
  if (message.role !== "toolResult") return 0;
  let tokens = TOOL_RESULT_OVERHEAD;
  for (const block of message.content)
    if (block.type === "image") tokens += imageTokens(block.data);
  return tokens;
}

function estimateCut(message: AgentMessage, perCounter: WeakMap<AgentMessage, number>) {
  const source = cutFrom.get(message);
  const sourceTokens = source === undefined ? undefined : perCounter.get(source);
  if (source === undefined || sourceTokens === undefined) return undefined;
  const sourceChars = textChars(source);
  if (sourceChars === 0) return undefined;
  const textTokens = Math.max(0, sourceTokens - fixedTokens(source));
  return fixedTokens(message) + Math.ceil((textTokens * textChars(message)) / sourceChars);
}

function countMessage(
  message: AgentMessage,
  counter: TokenCounter,
  perCounter: WeakMap<AgentMessage, number>,
): number {
  let tokens = perCounter.get(message);
  if (tokens === undefined) {
    tokens = estimateCut(message, perCounter) ?? computeMessageTokens(message, counter);
    perCounter.set(message, tokens);
  }
  return tokens;
}

/** REQ-055: tokens of one message including its per-message overhead. Cached per message object. */
export function messageTokens(
  message: AgentMessage,
  counter: TokenCounter = DEFAULT_COUNTER,
): number {
  return countMessage(message, counter, cacheFor(counter));
}

export function totalTokens(
  messages: readonly AgentMessage[],
  counter: TokenCounter = DEFAULT_COUNTER,
): number {
  const perCounter = cacheFor(counter);
  let total = 0;
  for (const message of messages) total += countMessage(message, counter, perCounter);
  return total;
}
