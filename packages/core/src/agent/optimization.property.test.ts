import { describe, expect, it } from "vitest";
import { HistoryGenerator, type HistoryShape } from "../../test/support/random-history.js";
import type { AgentMessage } from "../model/llm-messages.js";
import { messageText } from "../model/llm-messages.js";
import { findPairingProblem } from "./message-blocks.js";
import { compactionBudget, compactMessages } from "./optimization.js";
import { defaultTokenCounter, heuristicTokenCounter, totalTokens } from "./token-count.js";
import type { ContextConfig, TokenCounter } from "./types.js";

// REQ-165: property test of compactMessages over seeded random valid histories (user turns with
// tool-calling assistant steps, tool results, images, extension messages, errors) and random
// configs. No dependency: HistoryGenerator is a small seeded PRNG. A failure names its seed.

function randomCase(seed: number): { messages: AgentMessage[]; config: ContextConfig } {
  const gen = new HistoryGenerator(seed);
  const shape: HistoryShape = {
    turns: gen.int(1, 25),
    stepsPerTurn: [1, gen.int(1, 6)],
    callsPerStep: [1, gen.int(1, 4)],
    resultLines: [0, gen.int(1, 300)],
    imageChance: gen.int(0, 10) / 100,
    extensionChance: gen.int(0, 20) / 100,
    thinkingChance: 0.3,
    errorChance: 0.1,
  };
  const messages = gen.history(shape);
  const total = totalTokens(messages, heuristicTokenCounter());
  const config: ContextConfig = {
    maxContextTokens: gen.int(0, Math.ceil(total * 1.3)),
    systemPromptTokens: gen.chance(0.3) ? gen.int(0, 2_000) : 0,
    keepRecent: gen.int(0, 15),
    keepFirst: gen.int(0, 5),
    toolOutputMaxLines: gen.int(1, 80),
  };
  return { messages, config };
}

/** Where each output message came from in the input (identity, or tool call id for tier 1). */
function sourceIndexes(input: AgentMessage[], output: AgentMessage[]): number[] {
  const byIdentity = new Map(input.map((m, i) => [m, i]));
  const byCallId = new Map<string, number>();
  input.forEach((m, i) => {
    if (m.role === "toolResult") byCallId.set(m.toolCallId, i);
  });
  const out: number[] = [];
  for (const m of output) {
    const index =
      byIdentity.get(m) ?? (m.role === "toolResult" ? byCallId.get(m.toolCallId) : undefined);
    if (index !== undefined) out.push(index);
  }
  return out;
}

function checkInvariants(seed: number, counter: TokenCounter): void {
  const { messages, config } = randomCase(seed);
  const budget = compactionBudget(config);
  const before = totalTokens(messages, counter);
  const result = compactMessages(messages, config, counter);
  const label = `seed ${seed}`;

  expect(result.tokensBefore, label).toBe(before);
  expect(result.tokensAfter, label).toBe(totalTokens(result.messages, counter));
  if (before <= budget) {
    expect(result.messages, label).toBe(messages);
    return;
  }
  // total ≤ budget (always achievable: the empty history fits)
  expect(result.tokensAfter, label).toBeLessThanOrEqual(budget);
  // no orphaned tool results; every tool call in the output has its result
  expect(findPairingProblem(result.messages), label).toBeUndefined();
  // order preserved
  const sources = sourceIndexes(messages, result.messages);
  for (let i = 1; i < sources.length; i++)
    expect(sources[i]!, label).toBeGreaterThan(sources[i - 1]!);
  // the first message the model sees is a user message (generated histories start with one)
  const firstLlm = result.messages.find((m) => m.role !== "extension");
  if (firstLlm) expect(firstLlm.role, label).toBe("user");
  // tier 1 ran: every tool output is within the line limit
  for (const m of result.messages) {
    if (m.role === "toolResult") {
      expect(messageText(m).split("\n").length, label).toBeLessThanOrEqual(
        Math.max(1, config.toolOutputMaxLines) * m.content.length,
      );
    }
  }
}

describe("compactMessages properties", () => {
  it("REQ-165: 500 random histories keep the budget, tool pairing, order and user-first", () => {
    for (let seed = 1; seed <= 500; seed++) checkInvariants(seed, heuristicTokenCounter());
  });

  it("REQ-165: the invariants hold with the default tokenizer counter too (100 cases)", () => {
    for (let seed = 1_001; seed <= 1_100; seed++) checkInvariants(seed, defaultTokenCounter());
  });
});
