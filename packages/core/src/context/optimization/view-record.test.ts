import { describe, expect, it } from "vitest";
import { randomContextHistory } from "../../../test/support/random-context-history.js";
import type { ContextMessage } from "../../model/message-types.js";
import { OptimizationConfigSchema } from "../../model/session-config.js";
import { ExtractiveSummarizer } from "./extractive-summarizer.js";
import { optimizeBranch } from "./optimizer.js";
import { countRequestTokens } from "./request-tokens.js";
import { expandSummary, viewFromRecords } from "./view-record.js";

async function optimized(messages: ContextMessage[], divisor: number, prefix: string) {
  let n = 0;
  const base = {
    messages,
    systemPrompt: "sys",
    tools: [],
    config: OptimizationConfigSchema.parse({
      strategy: { type: "intelligent", keep_recent: 4, file_reference_window: 5, summarize: true },
    }),
    summarizer: new ExtractiveSummarizer(),
    now: () => "2025-03-01T00:00:00.000Z",
    newId: () => `${prefix}${n++}`,
    sessionId: "s1",
    branchId: "b1",
    signal: new AbortController().signal,
  };
  const contextWindow = Math.floor(countRequestTokens(base).total / divisor);
  return optimizeBranch({ ...base, contextWindow });
}

describe("Optimization transparency", () => {
  it("records what was optimized (tokens, counts, what each summary replaced) and lets the UI expand it", async () => {
    const messages = randomContextHistory(8, { turns: 20 });
    const result = await optimized(messages, 1.5, "o");
    const { record } = result;
    expect(record).toMatchObject({
      session_id: "s1",
      branch_id: "b1",
      strategy: "intelligent",
      messages_before: messages.length,
      messages_after: result.view.length,
    });
    expect(record.tokens_after).toBeLessThan(record.tokens_before);
    expect(record.summaries.length).toBeGreaterThan(0);

    const pool = new Map([...messages, ...result.summaries].map((m) => [m.id, m]));
    let full = result.view;
    for (const { summary_message_id } of record.summaries)
      full = expandSummary(full, summary_message_id, pool, [record]);
    // the full unoptimized history, in order (tool outputs shown untruncated come from the pool)
    expect(full.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(() => expandSummary(result.view, messages.at(-1)!.id, pool)).toThrow(/not a summary/);
  });

  it("rebuilds the view from the stored record, so the next optimization builds on the summaries", async () => {
    const messages = randomContextHistory(9, { turns: 20, maxOutputLines: 10 });
    const first = await optimized(messages, 1.5, "o");
    const pool = new Map([...messages, ...first.summaries, ...first.masked].map((m) => [m.id, m]));
    const restored = viewFromRecords(messages, [first.record], pool);
    expect(restored.map((m) => m.id)).toEqual(first.view.map((m) => m.id));

    // the branch grows; the next optimization starts from the restored view and nests summaries
    const more = randomContextHistory(10, { turns: 10 });
    const grown = [...messages, ...more];
    const second = await optimized(viewFromRecords(grown, [first.record], pool), 1.6, "p");
    expect(second.changed).toBe(true);
    for (const s of [...second.summaries, ...second.masked]) pool.set(s.id, s);
    const restoredAgain = viewFromRecords(grown, [first.record, second.record], pool);
    expect(restoredAgain.map((m) => m.id)).toEqual(second.view.map((m) => m.id));
    // the first optimization's messages were not summarized again from their originals
    const resummarized = second.summaries.flatMap((s) =>
      s.body.message_type === "system_control" ? (s.body.replaces ?? []) : [],
    );
    expect(resummarized).not.toContain("m9-0");
  });
});
