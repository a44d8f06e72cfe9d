import { describe, expect, it } from "vitest";
import { HistoryGenerator, REALISTIC_SHAPE } from "../../test/support/random-history.js";
import type { AgentMessage } from "../model/llm-messages.js";
import { findPairingProblem } from "./message-blocks.js";
import { compactionBudget, compactionTarget, compactMessages } from "./optimization.js";
import { heuristicTokenCounter, totalTokens } from "./token-count.js";
import type { ContextConfig } from "./types.js";

// REQ-171 / REQ-172 at the compaction level: 1,000 model turns where, as in the loop, the working
// history is replaced by the compacted one before each request. Token totals must stay within the
// budget, compaction must fire but not on every turn (hysteresis), the keepFirst head and the
// keepRecent tail must survive every compaction, and the message count must stop growing.

const config: ContextConfig = {
  maxContextTokens: 24_000,
  systemPromptTokens: 2_000,
  keepRecent: 10,
  keepFirst: 2,
  toolOutputMaxLines: 50,
};

describe("long run with compaction", () => {
  it("REQ-171/REQ-172: 1,000 turns stay bounded in tokens and messages", () => {
    const counter = heuristicTokenCounter();
    const gen = new HistoryGenerator(42);
    const budget = compactionBudget(config);
    const task = gen.user("Build the feature described in SPEC.md");
    let history: AgentMessage[] = [task];
    let compactions = 0;
    let tier3 = 0;
    let lossy = 0;
    let lossyAboveTarget = 0;
    const counts: number[] = [];
    for (let turn = 1; turn <= 1_000; turn++) {
      // before each model request
      const tail = history.slice(-config.keepRecent);
      const result = compactMessages(history, config, counter);
      if (result.tiers.length > 0) {
        compactions++;
        if (result.tiers.includes(3)) tier3++;
        if (result.tiers.includes(2)) {
          lossy++;
          if (result.tokensAfter > compactionTarget(config)) lossyAboveTarget++;
        }
        // the keepFirst head and the keepRecent tail survive (tool results possibly truncated)
        expect(result.messages[0]).toBe(task);
        const kept = result.messages.slice(-config.keepRecent);
        kept.forEach((m, i) => {
          const original = tail[i]!;
          if (m !== original)
            expect(m.role === "toolResult" && original.role === "toolResult").toBe(true);
        });
      }
      history = result.messages;
      expect(totalTokens(history, counter)).toBeLessThanOrEqual(budget);
      expect(findPairingProblem(history)).toBeUndefined();
      counts.push(history.length);
      // the model answers: a tool-using step (or a final answer and a new user message)
      const final = gen.chance(0.15);
      history = [...history, ...gen.step(REALISTIC_SHAPE, final)];
      if (final) history.push(gen.user());
    }
    // compaction fired, not on every turn; lossy tiers (2/3) shrink to the target, so several turns
    // pass before the next one (the budget here is small next to raw tool outputs on purpose)
    expect(compactions).toBeGreaterThan(10);
    expect(compactions).toBeLessThan(1_000 / 2);
    expect(tier3).toBeGreaterThan(0);
    expect(lossy).toBeLessThan(1_000 / 4);
    expect(lossyAboveTarget).toBeLessThanOrEqual(lossy * 0.05);
    // message count is bounded: the last 500 turns never exceed the peak of turns 100–500
    const earlyPeak = Math.max(...counts.slice(100, 500));
    const latePeak = Math.max(...counts.slice(500));
    expect(latePeak).toBeLessThanOrEqual(earlyPeak * 1.2);
    // right after a tier-3 compaction the history is keepFirst + marker + keepRecent + a block
    const minimum = Math.min(...counts.slice(500));
    expect(minimum).toBeLessThanOrEqual(config.keepFirst + 1 + config.keepRecent + 4);
  });
});
