import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../model/llm-messages.js";
import { messageText, userMessage } from "../model/llm-messages.js";
import { findPairingProblem } from "./message-blocks.js";
import {
  COMPACTION_TARGET_RATIO,
  compactionBudget,
  compactMessages,
  createTieredCompaction,
  keepWithinBudget,
  tieredCompaction,
} from "./optimization.js";
import { heuristicTokenCounter, totalTokens } from "./token-count.js";
import type { ContextConfig } from "./types.js";
import { DEFAULT_CONTEXT_CONFIG } from "./types.js";

const counter = heuristicTokenCounter();
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const numbered = (n: number): string =>
  Array.from({ length: n }, (_, i) => `line ${i + 1} of output`).join("\n");

function call(id: string, text = "working on it"): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "text", text },
      { type: "toolCall", id, name: "bash", arguments: { cmd: "ls" } },
    ],
    stopReason: "toolUse",
    model: "m",
    provider: "p",
    usage,
    timestamp: 2,
  };
}

function result(id: string, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "bash",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
}

/** user + `steps` × (assistant tool call + result of `lines` lines) */
function session(steps: number, lines: number): AgentMessage[] {
  const out: AgentMessage[] = [userMessage("please fix the build")];
  for (let i = 0; i < steps; i++) out.push(call(`c${i}`), result(`c${i}`, numbered(lines)));
  return out;
}

function config(maxContextTokens: number, overrides: Partial<ContextConfig> = {}): ContextConfig {
  return { ...DEFAULT_CONTEXT_CONFIG, maxContextTokens, systemPromptTokens: 0, ...overrides };
}

describe("compactMessages cascade", () => {
  it("REQ-011: budget = maxContextTokens − systemPromptTokens, never negative", () => {
    expect(compactionBudget(DEFAULT_CONTEXT_CONFIG)).toBe(96_000);
    expect(compactionBudget(config(100, { systemPromptTokens: 500 }))).toBe(0);
  });

  it("REQ-164: under budget is a no-op returning the same array", () => {
    const messages = session(3, 10);
    const result = compactMessages(messages, config(100_000), counter);
    expect(result.messages).toBe(messages);
    expect(result.tiers).toEqual([]);
    expect(result.tokensAfter).toBe(result.tokensBefore);
  });

  it("REQ-164: exact budget boundary: total == budget is untouched, budget − 1 compacts", () => {
    const messages = session(3, 200);
    const total = totalTokens(messages, counter);
    expect(compactMessages(messages, config(total), counter).messages).toBe(messages);
    const over = compactMessages(messages, config(total - 1), counter);
    expect(over.tiers[0]).toBe(1);
    expect(over.tokensAfter).toBeLessThanOrEqual(total - 1);
  });

  it("REQ-056: tier 1 alone when truncating tool outputs reaches the target", () => {
    const messages = session(4, 400);
    const result = compactMessages(messages, config(3_000), counter);
    expect(result.tiers).toEqual([1]);
    expect(result.messages).toHaveLength(messages.length);
    expect(result.tokensAfter).toBeLessThanOrEqual(3_000 * COMPACTION_TARGET_RATIO);
    expect(result.tokensBefore).toBe(totalTokens(messages, counter));
  });

  it("REQ-056: tiers 1 and 2 when summaries reach the target; recent messages untouched", () => {
    const messages = session(30, 40);
    const budget = totalTokens(messages, counter) / 2;
    const result = compactMessages(messages, config(budget, { keepRecent: 4 }), counter);
    expect(result.tiers).toEqual([1, 2]);
    expect(result.tokensAfter).toBeLessThanOrEqual(budget * COMPACTION_TARGET_RATIO);
    expect(result.messages.slice(-4)).toEqual(messages.slice(-4));
    expect(messageText(result.messages[1]!).startsWith("[Summary]")).toBe(true);
    expect(findPairingProblem(result.messages)).toBeUndefined();
  });

  it("REQ-056/REQ-059: tier 3 when summaries alone do not reach the target", () => {
    // 300 user turns: one summary per turn is still far over the budget
    const messages = Array.from({ length: 300 }, (_, i) => [
      userMessage(`step ${i}`),
      call(`c${i}`),
      result(`c${i}`, numbered(5)),
    ]).flat();
    const out = compactMessages(messages, config(800, { keepRecent: 4, keepFirst: 1 }), counter);
    expect(out.tiers).toEqual([1, 2, 3]);
    expect(out.tokensAfter).toBeLessThanOrEqual(800 * COMPACTION_TARGET_RATIO);
    expect(out.messages[0]).toBe(messages[0]);
    expect(messageText(out.messages[1]!)).toMatch(
      /^\[Context compacted: \d+ earlier messages omitted\]$/,
    );
    // keepRecent 4 starts at a tool result: the tail moves back to its call
    expect(out.messages.slice(2)).toEqual(messages.slice(-5));
  });

  it("REQ-059: keepWithinBudget fallback when even the recent tail is over budget", () => {
    const messages = session(10, 40);
    const budget = 700;
    const result = compactMessages(
      messages,
      config(budget, { keepRecent: 10, toolOutputMaxLines: 1000 }),
      counter,
    );
    expect(result.tiers).toEqual([1, 2, 3]);
    expect(result.tokensAfter).toBeLessThanOrEqual(budget);
    expect(result.messages[0]!.role).toBe("user");
    expect(findPairingProblem(result.messages)).toBeUndefined();
    expect(result.messages.at(-1)).toBe(messages.at(-1));
  });

  it("REQ-164: fewer messages than keepRecent and keepFirst still fits the budget", () => {
    const messages: AgentMessage[] = [
      userMessage("x".repeat(4_000)),
      userMessage("short question"),
    ];
    const result = compactMessages(
      messages,
      config(200, { keepRecent: 10, keepFirst: 2 }),
      counter,
    );
    expect(result.tokensAfter).toBeLessThanOrEqual(200);
    expect(result.messages.at(-1)).toBe(messages[1]);
    expect(messageText(result.messages[0]!)).toContain("1 earlier message omitted");
  });

  it("a zero budget yields an empty history", () => {
    const result = compactMessages(session(2, 3), config(0), counter);
    expect(result.messages).toEqual([]);
    expect(result.tokensAfter).toBe(0);
  });
});

describe("keepWithinBudget", () => {
  it("REQ-059: greedily keeps the most recent whole blocks and leads with a user message", () => {
    const messages = session(6, 10);
    const out = keepWithinBudget(messages, 300, counter);
    expect(totalTokens(out, counter)).toBeLessThanOrEqual(300);
    expect(out[0]!.role).toBe("user");
    expect(messageText(out[0]!)).toMatch(/earlier messages omitted/);
    expect(out.at(-1)).toBe(messages.at(-1));
    expect(findPairingProblem(out)).toBeUndefined();
    // the kept suffix is contiguous
    const kept = out.slice(1);
    const at = messages.indexOf(kept[0]!);
    expect(kept).toEqual(messages.slice(at));
  });

  it("returns everything when it fits", () => {
    const messages = session(2, 2);
    expect(keepWithinBudget(messages, 10_000, counter)).toEqual(messages);
  });
});

describe("tiered strategy (REQ-023 / REQ-146 seam)", () => {
  it("compacts like compactMessages and honours an aborted signal", async () => {
    const messages = session(30, 40);
    const cfg = config(totalTokens(messages, counter) / 2, { keepRecent: 4 });
    const strategy = createTieredCompaction(counter);
    expect(strategy.name).toBe("tiered");
    const out = await strategy.compact(messages, cfg, new AbortController().signal);
    expect(out).toEqual(compactMessages(messages, cfg, counter).messages);
    const aborted = AbortSignal.abort();
    expect(() => tieredCompaction.compact(messages, cfg, aborted)).toThrow();
  });
});
