import type { AgentMessage, AssistantMessage, Usage } from "../model/llm-messages.js";
import { emptyUsage } from "../model/llm-messages.js";
import type { AgentEventSink } from "./event-sink.js";
import type { AgentContext } from "./types.js";

// REQ-198–200: what a parallel run's candidates produced, and how one of them is chosen. Four of
// the five built-in strategies decide from the outcomes alone; the LLM judge (judge.ts) asks a
// model. A strategy never throws for a bad candidate: a candidate that failed (its last answer an error
// or aborted, or no answer at all) is passed over while another one finished.

/** REQ-198/206: one candidate of agentLoopParallel, after its run. */
export interface ParallelLoopOutcome {
  /** its place in the configs given to agentLoopParallel */
  configIndex: number;
  loopId: string;
  /**
   * The candidate's own context after its run: `messages.slice(0, originalContextLen)` is the shared
   * base (the caller's history), the rest is what the candidate added, prompts included.
   */
  context: AgentContext;
  originalContextLen: number;
  /** what the run returned: its prompts, answers and tool results */
  newMessages: AgentMessage[];
  usage: Usage;
}

/** REQ-199: the chosen candidate (an index into the outcomes) and why. */
export interface EvaluationDecision {
  index: number;
  reason: string;
  /**
   * The strategy could not choose (a judge reply that names no candidate, a failed evaluation)
   * and the first candidate was taken instead: `reason` says why, and no one chose it.
   */
  fallback?: true;
}

/**
 * What an evaluation returns: the choice, what the evaluation itself spent (judge calls) and the
 * model that spent it (the judge's last answer's model, which prices `usage`; absent when nothing
 * was asked of a model).
 */
export interface EvaluationResult {
  decision: EvaluationDecision;
  usage: Usage;
  model?: string;
}

/** REQ-199: chooses one candidate. */
export interface EvaluationStrategy {
  readonly name: string;
  evaluate(
    prompts: readonly AgentMessage[],
    outcomes: readonly ParallelLoopOutcome[],
    sink: AgentEventSink,
    signal: AbortSignal,
  ): Promise<EvaluationResult>;
}

/** The candidate's last answer: failed when it is an error or aborted, or when there is none. */
export function candidateFailed(outcome: ParallelLoopOutcome): boolean {
  const last = lastAssistant(outcome.newMessages);
  return last === undefined || last.stopReason === "error" || last.stopReason === "aborted";
}

/** Indices of the candidates that finished; every index when none did. */
export function viableIndices(outcomes: readonly ParallelLoopOutcome[]): number[] {
  const all = outcomes.map((_, i) => i);
  const viable = all.filter((i) => !candidateFailed(outcomes[i] as ParallelLoopOutcome));
  return viable.length > 0 ? viable : all;
}

export function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "assistant") return message;
  }
  return undefined;
}

/**
 * REQ-149/201: the text of the last assistant message that has text (tool calls, results and
 * intermediate turns left out); a fallback line when the candidate wrote none.
 */
export function finalText(messages: readonly AgentMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== "assistant") continue;
    const text = message.content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("\n")
      .trim();
    if (text !== "") return text;
  }
  return "(no text output)";
}

const decided = (index: number, reason: string) =>
  Promise.resolve({ decision: { index, reason }, usage: emptyUsage() });

/** REQ-200: one candidate, passed through (with several, the first that finished). */
export class TransparentEvaluation implements EvaluationStrategy {
  readonly name = "transparent";
  evaluate(_prompts: readonly AgentMessage[], outcomes: readonly ParallelLoopOutcome[]) {
    const [index = 0] = viableIndices(outcomes);
    return decided(
      index,
      outcomes.length === 1 ? "the only branch" : "transparent: the first branch that finished",
    );
  }
}

/** REQ-200: always the first candidate (config 0), whatever happened to it. */
export class PickFirstEvaluation implements EvaluationStrategy {
  readonly name = "pick_first";
  evaluate() {
    return decided(0, "pick first: the first config's branch");
  }
}

/** REQ-200: the finished candidate that spent the fewest tokens (the earliest on a tie). */
export class TokenEfficientEvaluation implements EvaluationStrategy {
  readonly name = "token_efficient";
  evaluate(_prompts: readonly AgentMessage[], outcomes: readonly ParallelLoopOutcome[]) {
    const index = pickBy(outcomes, (a, b) => a < b);
    const tokens = outcomes[index]?.usage.totalTokens ?? 0;
    return decided(index, `token efficient: ${tokens} tokens, the fewest`);
  }
}

/** REQ-200: the finished candidate that spent the most tokens (the earliest on a tie). */
export class ElaborateEvaluation implements EvaluationStrategy {
  readonly name = "elaborate";
  evaluate(_prompts: readonly AgentMessage[], outcomes: readonly ParallelLoopOutcome[]) {
    const index = pickBy(outcomes, (a, b) => a > b);
    const tokens = outcomes[index]?.usage.totalTokens ?? 0;
    return decided(index, `elaborate: ${tokens} tokens, the most`);
  }
}

function pickBy(
  outcomes: readonly ParallelLoopOutcome[],
  better: (a: number, b: number) => boolean,
): number {
  const candidates = viableIndices(outcomes);
  let best = candidates[0] ?? 0;
  for (const i of candidates) {
    const tokens = outcomes[i]?.usage.totalTokens ?? 0;
    if (better(tokens, outcomes[best]?.usage.totalTokens ?? 0)) best = i;
  }
  return best;
}
