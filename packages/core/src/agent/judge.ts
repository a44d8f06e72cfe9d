import { type AgentMessage, combineUsage, emptyUsage, userMessage } from "../model/llm-messages.js";
import {
  type EvaluationResult,
  type EvaluationStrategy,
  finalText,
  lastAssistant,
  type ParallelLoopOutcome,
  viableIndices,
} from "./evaluation.js";
import type { AgentEventSink } from "./event-sink.js";
import { nextBareLoopId, runAgentLoop } from "./loop.js";
import { effectiveConfigId } from "./loop-id.js";
import { defaultTokenCounter } from "./token-count.js";
import type { AgentContext, AgentLoopConfig, TokenCounter } from "./types.js";

// REQ-200–202, 207–209: the LLM judge. It reads the query (and the conversation before it), the
// final answer of each candidate that finished, numbered, and names the best by its number. What it
// reads must fit the judge model's budget at once (the comprehension criteria): when it does not,
// the material is optimized in two iterations, the prior context first, then the answers, each
// through three tiers (the last 80 lines, the first and last paragraphs, a hard character limit).
// The judge only reads optimized copies: the chosen candidate is returned whole.

export const DEFAULT_JUDGE_SYSTEM_PROMPT =
  "You are an impartial judge. You are shown a query, sometimes with the conversation before it, " +
  "and several candidate answers to it, numbered from 1. Choose the candidate that answers the " +
  "query best: correct first, then complete, then clear and concise. Reply with the number of " +
  "the best candidate first, then one or two sentences saying why.";

/** Tokens kept free for the judge's reply when its budget is checked. */
export const JUDGE_REPLY_RESERVE_TOKENS = 1_024;
/** Tier 1 keeps this many lines from the end. */
export const JUDGE_TIER1_LINES = 80;

export interface JudgeMaterial {
  /** the conversation before the query, as a transcript ("" in a fresh session) */
  priorContext: string;
  query: string;
  /** each candidate's final text, in the order they are numbered */
  outputs: string[];
}

export interface LlmJudgeOptions {
  /** the judge's model and settings; `contextConfig.maxContextTokens` is its budget */
  judgeConfig: AgentLoopConfig;
  /** default DEFAULT_JUDGE_SYSTEM_PROMPT */
  systemPrompt?: string;
  /**
   * The judge's loop id. A caller that keeps loop records across restarts (a session) numbers it
   * from its store, as it numbers the candidates: the default counter is this process's and
   * starts again at 1, so a judge after a restart would take an earlier judge's id.
   */
  loopId?: string;
}

/** REQ-201/207: the judge's material from the run's prompts and the candidates' outcomes. */
export function judgeMaterial(
  prompts: readonly AgentMessage[],
  outcomes: readonly ParallelLoopOutcome[],
): JudgeMaterial {
  const first = outcomes[0];
  const base = first === undefined ? [] : first.context.messages.slice(0, first.originalContextLen);
  let prior: readonly AgentMessage[] = base;
  let query: string;
  if (prompts.length > 0) {
    query = prompts.flatMap((m) => (m.role === "user" ? [messageText(m)] : [])).join("\n\n");
  } else {
    // REQ-207 (a continuation): the query is the base's last user message, the rest before it
    let at = base.length - 1;
    while (at >= 0 && base[at]?.role !== "user") at--;
    query = at >= 0 ? messageText(base[at] as AgentMessage) : "";
    prior = base.slice(0, Math.max(at, 0));
  }
  return {
    priorContext: transcript(prior),
    query,
    outputs: outcomes.map((o) => finalText(o.newMessages)),
  };
}

/** REQ-209: the judge's user message; the prior context section only when there is one. */
export function buildJudgeUserMessage(material: JudgeMaterial): string {
  const parts: string[] = [];
  if (material.priorContext.trim() !== "") {
    parts.push(`Prior conversation context:\n${material.priorContext}`);
  }
  parts.push(`Original query:\n${material.query}`);
  parts.push(
    `Candidate responses:\n\n${material.outputs
      .map((text, i) => `### Candidate ${i + 1}\n${text}`)
      .join("\n\n")}`,
  );
  const n = material.outputs.length;
  parts.push(
    `Which candidate (1–${n}) answers the original query best? Reply with its number first.`,
  );
  return parts.join("\n\n");
}

export interface JudgeCompaction {
  material: JudgeMaterial;
  /** whether the material fits the budget (always true without a budget) */
  fits: boolean;
  /** the tiers applied to the prior context (iteration 1) and to the outputs (iteration 2) */
  priorTiers: Array<1 | 2 | 3>;
  outputTiers: Array<1 | 2 | 3>;
}

/**
 * REQ-202/208: optimization in two iterations. Iteration 1 optimizes the prior context only, the
 * outputs intact, tier by tier, stopping as soon as everything fits; only if that is not enough,
 * iteration 2 optimizes each output on its own, tier by tier. Tier 3's limit for the outputs is
 * what the budget leaves, divided by their number.
 */
export function compactForJudge(
  material: JudgeMaterial,
  budgetTokens: number | undefined,
  options: { systemPrompt: string; counter?: TokenCounter },
): JudgeCompaction {
  const counter = options.counter ?? defaultTokenCounter();
  const systemTokens = counter.countText(options.systemPrompt);
  const priorTiers: JudgeCompaction["priorTiers"] = [];
  const outputTiers: JudgeCompaction["outputTiers"] = [];
  if (budgetTokens === undefined) return { material, fits: true, priorTiers, outputTiers };
  const available = Math.max(budgetTokens - JUDGE_REPLY_RESERVE_TOKENS - systemTokens, 0);
  const tokens = (m: JudgeMaterial) => counter.countText(buildJudgeUserMessage(m));
  let current = material;
  const done = () => ({ material: current, fits: true, priorTiers, outputTiers });
  if (tokens(current) <= available) return done();

  // iteration 1: the prior context only
  const priorSteps: Array<[1 | 2 | 3, (text: string) => string]> = [
    [1, (t) => lastLines(t, JUDGE_TIER1_LINES)],
    [2, firstAndLastParagraph],
    [
      3,
      (t) => {
        const rest = available - tokens({ ...current, priorContext: "" });
        return keepEnd(t, Math.max(rest, 0) * 3);
      },
    ],
  ];
  for (const [tier, step] of priorSteps) {
    if (current.priorContext === "") break;
    current = { ...current, priorContext: step(current.priorContext) };
    priorTiers.push(tier);
    if (tokens(current) <= available) return done();
  }

  // iteration 2: each output on its own
  const n = Math.max(current.outputs.length, 1);
  const outputSteps: Array<[1 | 2 | 3, (text: string) => string]> = [
    [1, (t) => lastLines(t, JUDGE_TIER1_LINES)],
    [2, firstAndLastParagraph],
    [
      3,
      (t) => {
        const fixed = tokens({ ...current, outputs: current.outputs.map(() => "") });
        return keepEnds(t, Math.floor((Math.max(available - fixed, 0) * 3) / n));
      },
    ],
  ];
  for (const [tier, step] of outputSteps) {
    current = { ...current, outputs: current.outputs.map(step) };
    outputTiers.push(tier);
    if (tokens(current) <= available) return done();
  }
  return { material: current, fits: false, priorTiers, outputTiers };
}

/** REQ-200/201: asks `judgeConfig`'s model which candidate answered best. */
export class LlmJudgeEvaluation implements EvaluationStrategy {
  readonly name = "llm_judge";
  readonly #options: LlmJudgeOptions;

  constructor(options: LlmJudgeOptions) {
    this.#options = options;
  }

  async evaluate(
    prompts: readonly AgentMessage[],
    outcomes: readonly ParallelLoopOutcome[],
    sink: AgentEventSink,
    signal: AbortSignal,
  ): Promise<EvaluationResult> {
    const candidates = viableIndices(outcomes);
    if (candidates.length === 1) {
      const index = candidates[0] ?? 0;
      const reason =
        outcomes.length === 1
          ? "the only branch"
          : "the only branch that finished (no judge asked)";
      return { decision: { index, reason }, usage: emptyUsage() };
    }
    const { judgeConfig } = this.#options;
    const systemPrompt = this.#options.systemPrompt ?? DEFAULT_JUDGE_SYSTEM_PROMPT;
    const all = judgeMaterial(prompts, outcomes);
    const material = { ...all, outputs: candidates.map((i) => all.outputs[i] ?? "") };
    const compaction = compactForJudge(
      material,
      judgeConfig.contextConfig?.maxContextTokens,
      judgeConfig.tokenCounter !== undefined
        ? { systemPrompt, counter: judgeConfig.tokenCounter }
        : { systemPrompt },
    );
    // REQ-201: the judge runs in the candidates' session, so its loop sits beside theirs
    const first = outcomes[0]?.context;
    const sessionId = first?.sessionId ?? "";
    // its span links to the candidates' spans (those recorded: set when each one's loop started)
    const links = candidates.flatMap((i) => {
      const traceparent = outcomes[i]?.context.trace?.traceparent;
      return traceparent !== undefined ? [traceparent] : [];
    });
    const context: AgentContext = {
      systemPrompt,
      messages: [],
      tools: [],
      trace: { kind: "judge", agentName: this.name, links },
      ...(first?.agentId !== undefined ? { agentId: first.agentId } : {}),
      ...(sessionId !== "" ? { sessionId } : {}),
      ...(sessionId !== ""
        ? {
            loopId:
              this.#options.loopId ?? nextBareLoopId(sessionId, effectiveConfigId(judgeConfig)),
          }
        : {}),
    };
    if (!compaction.fits) {
      await sink.push({
        type: "progressMessage",
        loopId: context.loopId ?? "",
        toolCallId: "",
        toolName: "llm_judge",
        text: `The ${candidates.length} candidate answers do not fit the judge's budget of ${judgeConfig.contextConfig?.maxContextTokens} tokens even after compaction; the judge reads them cut.`,
      });
    }
    let usage = emptyUsage();
    const capture: AgentEventSink = {
      push: (event) => {
        if (event.type === "agentEnd" && event.loopId === context.loopId) {
          usage = combineUsage(usage, event.usage);
        }
        return sink.push(event);
      },
    };
    const replyMessages = await runAgentLoop(
      [userMessage(buildJudgeUserMessage(compaction.material))],
      context,
      { ...judgeConfig, executionLimits: judgeConfig.executionLimits ?? null },
      capture,
      signal,
    );
    const reply = finalText(replyMessages);
    // the model that answered prices what the judge spent (decision 0062)
    const model = lastAssistant(replyMessages)?.model;
    const answeredBy = model !== undefined ? { model } : {};
    const picked = parseJudgeChoice(reply, candidates.length);
    const shown = reply.length > 500 ? `${reply.slice(0, 500)}…` : reply;
    if (picked === undefined) {
      return {
        decision: {
          index: candidates[0] ?? 0,
          reason: `The judge named no candidate (1 to ${candidates.length}), so the first candidate was taken. The judge replied: ${shown}`,
          fallback: true,
        },
        usage,
        ...answeredBy,
      };
    }
    return { decision: { index: candidates[picked] ?? 0, reason: shown }, usage, ...answeredBy };
  }
}

/** REQ-201: the first integer of the reply, as a 0-based index among `n` candidates. */
export function parseJudgeChoice(reply: string, n: number): number | undefined {
  const match = /\d+/.exec(reply);
  if (match === null) return undefined;
  const number = Number(match[0]);
  return number >= 1 && number <= n ? number - 1 : undefined;
}

function messageText(message: AgentMessage): string {
  if (message.role === "extension") return "";
  return message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
}

/** The conversation as the judge reads it: who said what; tool traffic named, not shown. */
function transcript(messages: readonly AgentMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === "user") lines.push(`User: ${messageText(message)}`);
    else if (message.role === "assistant") {
      const text = messageText(message);
      const calls = message.content.flatMap((b) => (b.type === "toolCall" ? [b.name] : []));
      if (text !== "") lines.push(`Assistant: ${text}`);
      if (calls.length > 0) lines.push(`Assistant used tools: ${calls.join(", ")}`);
    }
  }
  return lines.join("\n\n");
}

/** Tier 1: the last `n` lines. */
export function lastLines(text: string, n: number): string {
  const lines = text.split("\n");
  if (lines.length <= n) return text;
  return `[… ${lines.length - n} earlier lines cut]\n${lines.slice(-n).join("\n")}`;
}

/** Tier 2: the first and the last paragraph. */
export function firstAndLastParagraph(text: string): string {
  const paragraphs = text.split(/\n\s*\n/);
  if (paragraphs.length <= 2) return text;
  return `${paragraphs[0]}\n\n[… ${paragraphs.length - 2} paragraphs cut]\n\n${paragraphs.at(-1)}`;
}

/** Tier 3 for the prior context: its last `chars` characters (the recent turns matter most). */
function keepEnd(text: string, chars: number): string {
  if (text.length <= chars) return text;
  return `[… cut]${text.slice(text.length - chars)}`;
}

/** Tier 3 for an answer: its start and its end within `chars` characters. */
function keepEnds(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const half = Math.floor(chars / 2);
  return `${text.slice(0, half)}\n[… cut]\n${text.slice(text.length - half)}`;
}
