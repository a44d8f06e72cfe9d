import type {
  AgentMessage,
  AssistantMessage,
  ToolResultMessage,
  UserMessage,
} from "../model/llm-messages.js";
import { blockIndexOf, headEnd, segmentBlocks, tailStart } from "./message-blocks.js";
import { noteCutMessage } from "./token-count.js";

// The three optimization tiers (REQ-057–059) as pure functions over a message list. Each returns the
// input array itself when it has nothing to do. Their outputs are deterministic and cached per
// source message, so re-running a tier on the next turn yields the very same message objects:
// token counts stay cached and the provider's prompt cache sees an unchanged prefix.

export interface TierOutput {
  messages: AgentMessage[];
  changed: boolean;
}

// ---------------------------------------------------------------------------------------------
// Tier 1: truncate tool outputs

/**
 * Lines longer than this many characters are cut to their first and last half with a
 * `[... N chars truncated ...]` marker: minified JSON or a base64 dump is one "line" that the line
 * limit alone would never shorten.
 */
export const TOOL_OUTPUT_MAX_LINE_CHARS = 2_000;

/** Slice end/start that never splits a UTF-16 surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

function capLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  const half = Math.floor(maxChars / 2);
  const headEndAt = safeCut(line, half);
  const tailStartAt = safeCut(line, line.length - half);
  const cut = tailStartAt - headEndAt;
  return `${line.slice(0, headEndAt)}[... ${cut} chars truncated ...]${line.slice(tailStartAt)}`;
}

/**
 * REQ-057: at most `maxLines` lines (the marker line included): the first ⌈(maxLines−1)/2⌉ and
 * the last ⌊(maxLines−1)/2⌋ lines around a `[... N lines truncated ...]` marker, then every kept
 * line capped at TOOL_OUTPUT_MAX_LINE_CHARS. A 200-line text with maxLines 50 keeps 25 + 24 lines.
 */
export function truncateText(text: string, maxLines: number): string {
  let lines = text.split("\n");
  const limit = Math.max(1, Math.floor(maxLines));
  let changed = false;
  if (lines.length > limit) {
    const keep = limit - 1;
    const head = Math.ceil(keep / 2);
    const tail = keep - head;
    const omitted = lines.length - keep;
    lines = [
      ...lines.slice(0, head),
      `[... ${omitted} lines truncated ...]`,
      ...(tail > 0 ? lines.slice(lines.length - tail) : []),
    ];
    changed = true;
  }
  if (text.length > TOOL_OUTPUT_MAX_LINE_CHARS) {
    const capped = lines.map((line) => capLine(line, TOOL_OUTPUT_MAX_LINE_CHARS));
    if (capped.some((line, i) => line !== lines[i])) {
      lines = capped;
      changed = true;
    }
  }
  return changed ? lines.join("\n") : text;
}

const truncatedCache = new WeakMap<
  ToolResultMessage,
  { maxLines: number; result: ToolResultMessage }
>();

function truncateToolResult(message: ToolResultMessage, maxLines: number): ToolResultMessage {
  const cached = truncatedCache.get(message);
  if (cached && cached.maxLines === maxLines) return cached.result;
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== "text") return block;
    const text = truncateText(block.text, maxLines);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  const result = changed ? { ...message, content } : message;
  if (changed) noteCutMessage(result, message);
  truncatedCache.set(message, { maxLines, result });
  return result;
}

/** REQ-057 */
export function truncateToolOutputs(messages: AgentMessage[], maxLines: number): TierOutput {
  let changed = false;
  const out = messages.map((message) => {
    if (message.role !== "toolResult") return message;
    const truncated = truncateToolResult(message, maxLines);
    if (truncated !== message) changed = true;
    return truncated;
  });
  return changed ? { messages: out, changed } : { messages, changed };
}

// ---------------------------------------------------------------------------------------------
// Tier 2: summarize old turns

const SUMMARY_MAX_CHARS = 600;
const SUMMARY_QUOTE_CHARS = 160;
const SUMMARY_MAX_TOOLS = 8;

function firstLine(text: string, max: number): string {
  const line = (text.trim().split("\n", 1)[0] ?? "").trim();
  return line.length > max ? `${line.slice(0, safeCut(line, max - 1))}…` : line;
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

function describeResult(result: ToolResultMessage | undefined): string {
  if (!result) return "no result";
  let text = "";
  let images = 0;
  for (const block of result.content) {
    if (block.type === "text") text = text ? `${text}\n${block.text}` : block.text;
    else images++;
  }
  if (result.isError) return `error: "${firstLine(text, 80)}"`;
  const parts = [text ? `ok, ${countLines(text)} lines` : "ok, empty"];
  if (images > 0) parts.push(`${images} image${images > 1 ? "s" : ""}`);
  return parts.join(", ");
}

/**
 * REQ-058: one line describing a run of assistant messages and their tool results: the first line
 * of the assistant's text, each tool called with its outcome and size, and any provider error.
 */
export function summarizeRun(run: readonly AgentMessage[]): UserMessage {
  const results = new Map<string, ToolResultMessage>();
  for (const message of run)
    if (message.role === "toolResult") results.set(message.toolCallId, message);
  const assistants = run.filter((m): m is AssistantMessage => m.role === "assistant");
  const parts: string[] = [];
  const said = assistants
    .map((m) => m.content.find((block) => block.type === "text")?.text ?? "")
    .find((text) => text.trim() !== "");
  if (said) parts.push(`assistant: "${firstLine(said, SUMMARY_QUOTE_CHARS)}"`);
  const tools: string[] = [];
  for (const assistant of assistants) {
    for (const block of assistant.content) {
      if (block.type === "toolCall")
        tools.push(`${block.name} → ${describeResult(results.get(block.id))}`);
    }
    if (assistant.errorMessage) parts.push(`error: "${firstLine(assistant.errorMessage, 80)}"`);
  }
  if (tools.length > 0) {
    const shown = tools.slice(0, SUMMARY_MAX_TOOLS).join("; ");
    const more =
      tools.length > SUMMARY_MAX_TOOLS ? `; +${tools.length - SUMMARY_MAX_TOOLS} more` : "";
    parts.push(`tools: ${shown}${more}`);
  }
  if (parts.length === 0) parts.push("assistant turn with no text or tool calls");
  let line = `[Summary] ${parts.join(" · ")}`.replace(/[\r\n]+/g, " ");
  if (line.length > SUMMARY_MAX_CHARS)
    line = `${line.slice(0, safeCut(line, SUMMARY_MAX_CHARS - 1))}…`;
  const timestamp = run.find((m) => m.timestamp !== undefined)?.timestamp ?? 0;
  return { role: "user", content: [{ type: "text", text: line }], timestamp };
}

/** Summaries keyed by the run's first message; reused only when the run is the very same. */
const summaryCache = new WeakMap<AgentMessage, { run: AgentMessage[]; summary: UserMessage }>();

function cachedSummary(run: AgentMessage[]): UserMessage {
  const first = run[0]!;
  const hit = summaryCache.get(first);
  if (hit && hit.run.length === run.length && hit.run.every((m, i) => m === run[i])) {
    return hit.summary;
  }
  const summary = summarizeRun(run);
  summaryCache.set(first, { run, summary });
  return summary;
}

/**
 * REQ-058: keep the last `keepRecent` messages (moved earlier to a block boundary) untouched;
 * before them, every run of consecutive assistant blocks (assistant + its tool results) becomes
 * one `[Summary] …` user message. User and extension messages are kept; a stray tool result with
 * no call is folded into the summary, since providers reject it.
 */
export function summarizeOldTurns(messages: AgentMessage[], keepRecent: number): TierOutput {
  const blocks = segmentBlocks(messages);
  const index = blockIndexOf(blocks, messages.length);
  const cut = tailStart(blocks, index, messages.length, Math.max(0, keepRecent));
  if (cut === 0) return { messages, changed: false };
  const out: AgentMessage[] = [];
  let run: AgentMessage[] = [];
  const flush = (): void => {
    if (run.length > 0) out.push(cachedSummary(run));
    run = [];
  };
  for (const { start, end } of blocks) {
    if (start >= cut) break;
    const first = messages[start]!;
    if (first.role === "assistant" || first.role === "toolResult") {
      for (let i = start; i < end; i++) run.push(messages[i]!);
    } else {
      flush();
      out.push(first);
    }
  }
  flush();
  if (out.length === cut && out.every((m, i) => m === messages[i])) {
    return { messages, changed: false };
  }
  for (let i = cut; i < messages.length; i++) out.push(messages[i]!);
  return { messages: out, changed: true };
}

// ---------------------------------------------------------------------------------------------
// Tier 3: drop the middle

/** The user message standing in for `omitted` dropped messages (tier 3 and keepWithinBudget). */
export function omissionMarker(omitted: number, timestamp: number): UserMessage {
  const text = `[Context compacted: ${omitted} earlier message${omitted === 1 ? "" : "s"} omitted]`;
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

/** Timestamp of the first message in [from, to) that has one, else 0. */
export function firstTimestamp(
  messages: readonly AgentMessage[],
  from: number,
  to: number,
): number {
  for (let i = from; i < to; i++) {
    const ts = messages[i]!.timestamp;
    if (ts !== undefined) return ts;
  }
  return 0;
}

/**
 * REQ-059: keep the first `keepFirst` messages (extended to the end of their block) and the last
 * `keepRecent` (extended back to the start of theirs), in order head, marker, tail. A no-op when
 * head and tail meet.
 */
export function dropMiddle(
  messages: AgentMessage[],
  keepFirst: number,
  keepRecent: number,
): TierOutput {
  const blocks = segmentBlocks(messages);
  const index = blockIndexOf(blocks, messages.length);
  const head = headEnd(blocks, index, Math.max(0, keepFirst));
  const tail = Math.max(head, tailStart(blocks, index, messages.length, Math.max(0, keepRecent)));
  if (tail <= head) return { messages, changed: false };
  const marker = omissionMarker(tail - head, firstTimestamp(messages, head, tail));
  return {
    messages: [...messages.slice(0, head), marker, ...messages.slice(tail)],
    changed: true,
  };
}
