import { describe, expect, it } from "vitest";
import { message, text, toolPair } from "../../../test/support/random-context-history.js";
import type { ContextMessage } from "../../model/message-types.js";
import { importanceScore, importanceScoringStrategy } from "./importance-scoring.js";
import { contextMessageTokens } from "./request-tokens.js";

describe("ImportanceScoring", () => {
  it("scores by the documented formula: 0.7·type + 0.2·recency + 0.2·mentions − length", () => {
    const plan = message("p", "assistant", {
      message_type: "plan",
      summary: "ship it",
      steps: [{ title: "a" }],
    });
    const user = text("u", "user", "look at src/parser.ts and parse_config");
    const messages: ContextMessage[] = [
      plan,
      user,
      ...Array.from({ length: 39 }, (_, i) => text(`f${i}`, "assistant", "ok")),
    ];
    const tokens = messages.map((m) => contextMessageTokens(m));
    const none = new Set<string>();
    // plan, age 40 (one half-life): 0.7·0.9 + 0.2·0.5 − tokens/20000
    expect(importanceScore(messages, tokens, 0, none)).toBeCloseTo(
      0.63 + 0.1 - tokens[0]! / 20_000,
      6,
    );
    // user text mentioning 2 identifiers of the recent tail: + 0.2·(2/3)
    const recent = new Set(["src/parser.ts", "parse_config"]);
    const age = 39;
    expect(importanceScore(messages, tokens, 1, recent)).toBeCloseTo(
      0.42 + 0.2 * 0.5 ** (age / 40) + 0.2 * (2 / 3) - tokens[1]! / 20_000,
      6,
    );
  });

  it("keeps units at or above min_score and the recent ones; raises the bar until the view fits", () => {
    const old = (i: number): ContextMessage =>
      text(`o${i}`, "assistant", "filler words ".repeat(80));
    const plan = message("plan", "assistant", {
      message_type: "plan",
      summary: "the plan",
      steps: [{ title: "step" }],
    });
    const messages = [
      ...Array.from({ length: 10 }, (_, i) => old(i)),
      plan,
      ...toolPair("t", [{ name: "bash", output: "failed", status: "error" }]),
      ...Array.from({ length: 10 }, (_, i) => old(i + 10)),
      text("last", "user", "continue"),
    ];
    const tokens = messages.map((m) => contextMessageTokens(m));
    const total = tokens.reduce((a, b) => a + b);
    const strategy = importanceScoringStrategy({
      keep_recent: 1,
      min_score: 0.45,
      summarize: true,
    });
    const kinds = (budget: number) =>
      strategy
        .select({ messages, tokens, budget })
        .dispositions.map((d, i) => `${messages[i]!.id}:${d.kind}`);
    const roomy = kinds(total - 1);
    expect(roomy).toContain("plan:keep");
    expect(roomy).toContain("t:keep");
    expect(roomy).toContain("t.r0:keep");
    expect(roomy).toContain("o0:summarize");
    expect(roomy).toContain("last:keep");
    // too tight for the tool pair (score < plan's): the bar rises past it, the plan stays
    const tight = kinds(tokens[10]! + tokens.at(-1)! + 2 * 400);
    expect(tight).toContain("plan:keep");
    expect(tight).toContain("t:summarize");
    expect(tight).toContain("t.r0:summarize");
  });
});
