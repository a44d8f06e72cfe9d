import { RECENT_FILES_HEADING } from "../../context/optimization/recent-files.js";
import { SUMMARY_REQUEST_PREFIX } from "../../context/optimization/summarizer.js";
import type { ScriptedTurn } from "../script.js";
import { lastUserText } from "./request-body.js";

// The fake model's answer to a summary request (optimization's LLM summarizer, issue #15): it
// actually summarizes the transcript it is shown, as a model would, instead of taking a scripted
// turn. Like a careful model it keeps the facts — every sentence of the conversation that holds a
// number, a code or a path, and the fact lines of earlier summaries — drops chit-chat and raw tool
// output (each tool result becomes one line), and stops at the request's max_tokens (stop reason
// "length"). Summary requests therefore never consume the queued turns of a test's script.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A request from the LLM summarizer: its user prompt starts with SUMMARY_REQUEST_PREFIX. */
export function isSummaryRequest(body: unknown): boolean {
  return lastUserText(body).startsWith(SUMMARY_REQUEST_PREFIX);
}

/** The output cap the request asks for, whatever the wire format; undefined when none. */
export function requestedMaxTokens(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const inference = isRecord(body.inferenceConfig) ? body.inferenceConfig : {};
  for (const value of [
    body.max_tokens,
    body.max_completion_tokens,
    body.max_output_tokens,
    config.maxOutputTokens,
    inference.maxTokens,
  ]) {
    if (typeof value === "number" && value > 0) return value;
  }
  return undefined;
}

/** Characters a token stands for in the cap: code-like facts tokenize densely, so be strict. */
const CHARS_PER_TOKEN = 3;

const FACT = /\d|\/[\w.-]+\.\w+|https?:\/\//;

/** The summary text of a transcript (the summary prompt's body: `### role (type)` sections). */
export function summarizeTranscript(
  prompt: string,
  maxTokens = 600,
): { text: string; cut: boolean } {
  const transcript = prompt.slice(prompt.indexOf("\n") + 1);
  const sections = transcript.split(/^### /m).filter((s) => s.trim() !== "");
  const lines: string[] = [];
  const seen = new Set<string>();
  const keep = (line: string): void => {
    const key = line.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    lines.push(line);
  };
  for (const section of sections) {
    const newline = section.indexOf("\n");
    const head = newline < 0 ? section : section.slice(0, newline);
    const body = newline < 0 ? "" : section.slice(newline + 1);
    const turn = head.match(/, turn (\d+)\)/)?.[1];
    const tag = turn === undefined ? "" : `[t${turn}] `;
    if (head.includes("(tool_result")) {
      const status = body.match(/^\[(\S+) result: (\w+)\]/);
      if (status) keep(`- ${status[1]} ran (${status[2]}).`);
      continue;
    }
    const summary = head.includes("(system_control");
    // like a model told so, it leaves re-read file contents out of a summary of a summary
    const said = summary ? body.split(RECENT_FILES_HEADING)[0]! : body;
    for (const raw of said.split(/(?<=[.!?])\s+|\n+/)) {
      const sentence = raw.replace(/^[-*]\s*/, "").trim();
      if (sentence === "" || sentence.startsWith("[Summary of")) continue;
      if (
        !FACT.test(sentence) ||
        (summary && /^(Facts|Tools called|Files touched):/.test(sentence))
      )
        continue;
      // an earlier summary's facts keep their own turn tags
      keep(`- ${summary ? "" : tag}${sentence.replace(/\s*\((?:user|assistant)[^)]*\)$/, "")}`);
    }
  }
  const cap = maxTokens * CHARS_PER_TOKEN;
  const out: string[] = [];
  let chars = 0;
  let cut = false;
  for (const line of lines) {
    if (chars + line.length + 1 > cap) {
      cut = true;
      break;
    }
    out.push(line);
    chars += line.length + 1;
  }
  if (out.length === 0) out.push("- Nothing specific was decided or stated.");
  return { text: out.join("\n"), cut };
}

/** The scripted turn that answers a summary request. */
export function summaryTurn(body: unknown): ScriptedTurn {
  const { text, cut } = summarizeTranscript(lastUserText(body), requestedMaxTokens(body));
  return {
    blocks: [{ type: "text", text }],
    chunkSize: 400,
    ...(cut ? { stopReason: "length" as const } : {}),
  };
}
