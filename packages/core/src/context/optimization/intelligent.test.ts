import { describe, expect, it } from "vitest";
import { fileReference, text, toolPair } from "../../../test/support/random-context-history.js";
import type { ContextMessage } from "../../model/message-types.js";
import { OptimizationConfigSchema } from "../../model/session-config.js";
import { ExtractiveSummarizer } from "./extractive-summarizer.js";
import { intelligentStrategy } from "./intelligent.js";
import { optimizeBranch } from "./optimizer.js";
import { contextMessageTokens } from "./request-tokens.js";

function history(): ContextMessage[] {
  const out: ContextMessage[] = [];
  out.push(fileReference("f-old", "src/old.ts", "old ".repeat(400)));
  for (let i = 0; i < 20; i++)
    out.push(text(`u${i}`, i % 2 ? "assistant" : "user", `chat ${i} `.repeat(60)));
  out.push(
    ...toolPair("t1", [
      { name: "bash", output: Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n") },
    ]),
  );
  out.push(...toolPair("t2", [{ name: "bash", output: "ok" }]));
  for (let i = 20; i < 26; i++)
    out.push(text(`u${i}`, i % 2 ? "assistant" : "user", `more ${i} `.repeat(60)));
  out.push(fileReference("f-new", "src/new.ts", "new ".repeat(200)));
  for (let i = 26; i < 30; i++)
    out.push(text(`u${i}`, i % 2 ? "assistant" : "user", `recent ${i}`));
  return out;
}

describe("Intelligent message prioritization", () => {
  it("keeps the system prompt, the last N, every tool pair and recent file references; summarizes the rest", async () => {
    const messages = history();
    const systemPrompt = "SYSTEM PROMPT that must survive";
    const config = OptimizationConfigSchema.parse({
      strategy: { type: "intelligent", keep_recent: 4, file_reference_window: 8, summarize: true },
    });
    let n = 0;
    const result = await optimizeBranch({
      messages,
      systemPrompt,
      tools: [],
      config,
      contextWindow: 6_000,
      summarizer: new ExtractiveSummarizer(),
      now: () => "2025-01-01T00:00:00.000Z",
      newId: () => `s${n++}`,
      sessionId: "s1",
      branchId: "b1",
      signal: new AbortController().signal,
    });
    const ids = result.view.map((m) => m.id);
    expect(ids.slice(-4)).toEqual(["u26", "u27", "u28", "u29"]);
    expect(ids).toContain("f-new");
    expect(ids).not.toContain("f-old");
    expect(ids).not.toContain("u0");
    // a tool pair is kept whole; one whose output was masked (the cheap tier: the 400-line output
    // of t1) says little and is summarized with the dialogue around it, from the stored original
    expect(ids).toEqual(expect.arrayContaining(["t2", "t2.r0"]));
    expect(ids).not.toContain("t1");
    const summarized = result.summaries.flatMap((m) =>
      m.body.message_type === "system_control" ? (m.body.replaces ?? []) : [],
    );
    expect(summarized).toEqual(expect.arrayContaining(["t1", "t1.r0"]));
    expect(result.masked).toEqual([]);
    expect(result.tiers).toEqual(["truncate", "mask", "summarize"]);
    // the system prompt is outside the messages: it is counted, never dropped
    expect(result.record.tokens_after).toBeGreaterThan(
      result.view.reduce((a, m) => a + contextMessageTokens(m), 0),
    );
  });

  it("gives up old tool pairs (oldest first) only when keeping them cannot fit", () => {
    const messages = [
      text("old", "user", "hello ".repeat(1000)),
      ...toolPair("a", [{ name: "bash", output: "x ".repeat(2000) }]),
      ...toolPair("b", [{ name: "bash", output: "y ".repeat(2000) }]),
      text("u", "user", "go on"),
    ];
    const tokens = messages.map((m) => contextMessageTokens(m));
    const strategy = intelligentStrategy({
      keep_recent: 1,
      file_reference_window: 0,
      summarize: true,
    });
    const pairs = tokens[1]! + tokens[2]! + tokens[3]! + tokens[4]!;
    const roomy = strategy.select({ messages, tokens, budget: pairs + tokens[5]! + 410 });
    expect(roomy.dispositions.map((d) => d.kind)).toEqual([
      "summarize",
      "keep",
      "keep",
      "keep",
      "keep",
      "keep",
    ]);
    const tight = strategy.select({
      messages,
      tokens,
      budget: tokens[3]! + tokens[4]! + tokens[5]! + 410,
    });
    expect(tight.dispositions).toEqual([
      { kind: "summarize", group: 0 },
      { kind: "summarize", group: 0 },
      { kind: "summarize", group: 0 },
      { kind: "keep" },
      { kind: "keep" },
      { kind: "keep" },
    ]);
  });
});
