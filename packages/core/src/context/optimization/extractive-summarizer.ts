import { defaultTokenCounter } from "../../agent/token-count.js";
import type { ContextMessage } from "../../model/message-types.js";
import { RECENT_FILES_HEADING } from "./recent-files.js";
import type { SummarizeOptions, Summarizer } from "./summarizer.js";

// The extractive summarizer: deterministic and model-free, used when no model is configured (the
// offline model), as the optimizer's fallback when a model summary fails or is cancelled, and as
// the summary the benches can reproduce. Issue #15: it keeps the FACTS word for word — the
// sentences holding identifiers, numbers and codes, file paths, URLs, names, decisions ("we
// will…", "use…"), errors and their fixes, and open questions — each tagged with the turn it came
// from, deduplicated, within the token share the optimizer gives it. A summary made earlier is
// carried over line by line when it is summarized again, so facts survive repeated optimization.

/** Default share when the optimizer gives none (about the size of a model summary). */
export const DEFAULT_SUMMARY_TOKENS = 600;
const LINE_CHARS = 140;
/** a kept fact sentence is cut here */
const FACT_CHARS = 240;
const MAX_LIST = 10;

export type FactKind = "decision" | "error" | "question" | "fact";

const DECISION =
  /\b(?:we will|we'll|we're going to|let's|let us|decided|decision|going with|agreed|we should|we must|must|never|always|use|switch to|prefer)\b/i;
const ERROR =
  /\b(?:error|errors|exception|failed|fails|failing|failure|broken|crash(?:es|ed)?|fix|fixed|fixes|workaround|resolved)\b/i;
const QUESTION = /\?["')\]]*$/;
/** identifiers and codes (letters with digits: R12, garnet-1084, v2), numbers, paths, URLs, names */
const FACT_PATTERNS: readonly RegExp[] = [
  /\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{2,}\b/,
  /\b\d[\d,.:]*\d\b|\b\d\b/,
  /\bhttps?:\/\/\S+/,
  /(?:^|\s)\.{0,2}\/?[\w.-]+\/[\w./-]+/,
  /\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|rs|go|java|rb|yml|yaml|toml|txt|sql|sh|css|html|lock)\b/,
  /\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b/,
  // a name: a capitalized word that does not start the sentence
  /\S\s+(?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+)*\b/,
];

/** The kind of fact a sentence holds, or undefined when it holds none. */
export function factKind(sentence: string): FactKind | undefined {
  if (QUESTION.test(sentence)) return "question";
  if (ERROR.test(sentence)) return "error";
  if (DECISION.test(sentence)) return "decision";
  if (FACT_PATTERNS.some((p) => p.test(sentence))) return "fact";
  return undefined;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The sentences of `text` that hold a fact, each cut to FACT_CHARS. */
export function factSentences(text: string): string[] {
  return splitSentences(text)
    .filter((sentence) => factKind(sentence) !== undefined)
    .map((sentence) => cut(sentence, FACT_CHARS));
}

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.replace(/^[-*•]\s+/, "").trim())
    .filter((sentence) => sentence !== "");
}

function firstLine(text: string): string {
  return cut((text.trim().split("\n", 1)[0] ?? "").trim(), LINE_CHARS);
}

/** Tool arguments that usually name a file. */
const PATH_KEYS = ["path", "file", "file_path", "filename", "target"];

interface Line {
  kind: FactKind | "said";
  /** the tag: "12 user", "12 assistant", "earlier" */
  tag: string;
  text: string;
  /** order in the output */
  order: number;
}

const HEADINGS: Record<FactKind, string> = {
  decision: "Decisions:",
  error: "Errors and fixes:",
  question: "Open questions:",
  fact: "Facts:",
};
/** what survives first when the share is small */
const PRIORITY: readonly (FactKind | "said")[] = ["decision", "error", "question", "fact", "said"];
const KIND_OF_HEADING = new Map(
  Object.entries(HEADINGS).map(([kind, heading]) => [heading, kind as FactKind]),
);

class Collector {
  readonly lines: Line[] = [];
  readonly tools = new Map<string, number>();
  readonly files = new Set<string>();
  readonly #seen = new Set<string>();

  add(kind: Line["kind"], tag: string, text: string): void {
    const key = text.toLowerCase().replace(/\s+/g, " ");
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.lines.push({ kind, tag, text, order: this.lines.length });
  }

  /** every fact sentence of `text`, or (none found) its first line as what was said */
  addText(text: string, tag: string, keepFirstLine: boolean): void {
    let found = false;
    for (const sentence of splitSentences(text)) {
      const kind = factKind(sentence);
      if (kind === undefined) continue;
      found = true;
      this.add(kind, tag, cut(sentence, FACT_CHARS));
    }
    if (!found && keepFirstLine && text.trim() !== "") this.add("said", tag, firstLine(text));
  }

  /** An earlier summary: its own tagged lines carried over, anything else read as text. */
  addSummary(text: string): void {
    let section: FactKind | "said" | "other" = "other";
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      // files re-read at the last optimization: old contents are never carried over
      if (line === RECENT_FILES_HEADING) break;
      const heading = KIND_OF_HEADING.get(line);
      if (heading !== undefined) {
        section = heading;
        continue;
      }
      if (line === "Said:") {
        section = "said";
        continue;
      }
      const tagged = line.match(/^- \[([^\]]+)\] (.*)$/);
      if (tagged && section !== "other") {
        this.add(section, tagged[1]!, tagged[2]!);
        continue;
      }
      const tools = line.match(/^Tools called: (.*)$/);
      if (tools) {
        for (const entry of tools[1]!.split(", ")) {
          const [name, times] = entry.split(" ×");
          if (name && !name.startsWith("+")) {
            this.tools.set(name, (this.tools.get(name) ?? 0) + Number(times ?? 1));
          }
        }
        continue;
      }
      const files = line.match(/^Files touched: (.*)$/);
      if (files) {
        for (const file of files[1]!.split(", "))
          if (!/^\+\d+ more$/.test(file)) this.files.add(file);
        continue;
      }
      if (/^Summary of \d+ earlier messages/.test(line)) continue;
      section = "other";
      this.addText(line, "earlier", false);
    }
  }
}

function list(items: Iterable<string>): string {
  const all = [...items];
  const shown = all.slice(0, MAX_LIST).join(", ");
  return all.length > MAX_LIST ? `${shown}, +${all.length - MAX_LIST} more` : shown;
}

function collect(messages: readonly ContextMessage[], options: SummarizeOptions): Collector {
  const out = new Collector();
  const tagOf = (message: ContextMessage): string => {
    const turn = options.turnOf?.(message);
    return turn === undefined ? message.role : `${turn} ${message.role}`;
  };
  for (const message of messages) {
    const body = message.body;
    switch (body.message_type) {
      case "text":
        out.addText(body.text, tagOf(message), true);
        break;
      case "file_reference":
        out.files.add(body.path);
        break;
      case "tool_request":
        if (body.text.trim()) out.addText(body.text, tagOf(message), false);
        for (const call of body.calls) {
          out.tools.set(call.name, (out.tools.get(call.name) ?? 0) + 1);
          for (const key of PATH_KEYS) {
            const value = call.arguments[key];
            if (typeof value === "string" && value) out.files.add(value);
          }
        }
        break;
      case "tool_result":
        if (body.status !== "success") {
          const text = body.content.find((block) => block.type === "text");
          const detail = text?.type === "text" ? `: ${firstLine(text.text)}` : "";
          out.add("error", tagOf(message), `${body.tool_name} ${body.status}${detail}`);
        }
        break;
      case "mcp_resource":
        out.files.add(body.resource_uri);
        break;
      case "attachment":
        out.files.add(body.name);
        break;
      case "system_control":
        if (body.kind === "summary") out.addSummary(body.text);
        else out.add("said", tagOf(message), firstLine(body.text));
        break;
      case "plan":
        out.add(
          "decision",
          tagOf(message),
          `plan: ${firstLine(body.summary || body.steps[0]?.title || "")}`,
        );
        break;
      case "question":
        out.add("question", tagOf(message), firstLine(body.question));
        break;
      default:
        body satisfies never;
    }
  }
  return out;
}

/**
 * Deterministic, model-free. The facts of the batch grouped by kind (decisions, errors and fixes,
 * open questions, facts), each `- [turn role] sentence` word for word; then the first line of
 * messages without facts ("Said:"), the tools called with their counts, and the files touched.
 * Within `maxTokens` (default DEFAULT_SUMMARY_TOKENS): when the share is too small, what is said
 * goes first, then the oldest lines of the lowest kinds (PRIORITY).
 */
export function extractiveSummary(
  messages: readonly ContextMessage[],
  options: SummarizeOptions = {},
): string {
  const counter = defaultTokenCounter();
  const found = collect(messages, options);
  const head = `Summary of ${messages.length} earlier messages:`;
  const tail: string[] = [];
  if (found.tools.size > 0) {
    tail.push(
      `Tools called: ${list([...found.tools].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)))}`,
    );
  }
  if (found.files.size > 0) tail.push(`Files touched: ${list(found.files)}`);
  const budget = options.maxTokens ?? DEFAULT_SUMMARY_TOKENS;
  let used = counter.countText([head, ...tail].join("\n")) + 8;
  const kept = new Set<Line>();
  // the newest lines of the highest kinds first, until the share is spent
  for (const kind of PRIORITY) {
    const lines = found.lines.filter((line) => line.kind === kind);
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      const cost = counter.countText(`- [${line.tag}] ${line.text}`) + 1;
      if (used + cost > budget) continue;
      used += cost;
      kept.add(line);
    }
  }
  const out = [head];
  for (const kind of PRIORITY) {
    const lines = found.lines.filter((line) => line.kind === kind && kept.has(line));
    if (lines.length === 0) continue;
    out.push(kind === "said" ? "Said:" : HEADINGS[kind]);
    for (const line of lines) out.push(`- [${line.tag}] ${line.text}`);
  }
  const omitted = found.lines.length - kept.size;
  if (omitted > 0) out.push(`(${omitted} more lines left out for space)`);
  out.push(...tail);
  return out.join("\n");
}

export class ExtractiveSummarizer implements Summarizer {
  readonly kind = "extractive";

  async summarize(
    messages: readonly ContextMessage[],
    signal: AbortSignal,
    options: SummarizeOptions = {},
  ): Promise<string> {
    signal.throwIfAborted();
    return extractiveSummary(messages, options);
  }
}
