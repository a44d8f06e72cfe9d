import { describe, expect, it } from "vitest";
import { text, toolPair } from "../../../test/support/random-context-history.js";
import type { ContextMessage } from "../../model/message-types.js";
import { OptimizationConfigSchema } from "../../model/session-config.js";
import { ExtractiveSummarizer } from "./extractive-summarizer.js";
import { isSummary } from "./model-view.js";
import { isMasked, MASK_PREFIX, maskNote } from "./observation-masking.js";
import { type OptimizeBranchInput, optimizeBranch } from "./optimizer.js";
import { countRequestTokens } from "./request-tokens.js";
import type { SummarizeOptions, Summarizer } from "./summarizer.js";
import { viewFromRecords } from "./view-record.js";

// Issue #15, cheap tiers first: old tool outputs are masked (the call stays, its result becomes a
// one-line note) before any dialogue is summarized; summaries get a token share; the last tier
// drops the oldest dialogue before any summary.

const output = (n: number) =>
  Array.from({ length: 50 }, (_, i) => `row ${i} of report ${n}: 4 crates`).join("\n");

/** four turns with a long tool output each, then a short recent exchange */
function history(): ContextMessage[] {
  const out: ContextMessage[] = [];
  for (let i = 0; i < 4; i++) {
    out.push(text(`u${i}`, "user", `Please read report ${i}.`));
    out.push(
      ...toolPair(`t${i}`, [{ name: "read_file", args: { path: `r${i}.md` }, output: output(i) }]),
    );
    out.push(text(`a${i}`, "assistant", `Report ${i} read.`));
  }
  out.push(text("u9", "user", "Thanks."), text("a9", "assistant", "You are welcome."));
  return out;
}

function input(messages: ContextMessage[], extra: Partial<OptimizeBranchInput> = {}) {
  let n = 0;
  const base: OptimizeBranchInput = {
    messages,
    systemPrompt: "sys",
    tools: [],
    config: OptimizationConfigSchema.parse({
      strategy: { type: "intelligent", keep_recent: 5, file_reference_window: 0, summarize: true },
    }),
    contextWindow: 1,
    summarizer: new ExtractiveSummarizer(),
    now: () => "2025-01-01T00:00:00.000Z",
    newId: () => `n${n++}`,
    sessionId: "s",
    branchId: "b",
    signal: new AbortController().signal,
    ...extra,
  };
  return base;
}

describe("observation masking", () => {
  it("masks the outputs before the recent messages, keeps the calls, and records each mask", async () => {
    const messages = history();
    const base = input(messages);
    const total = countRequestTokens(base).total;
    const result = await optimizeBranch({ ...base, contextWindow: Math.floor(total / 0.9) });
    expect(result.tiers).toEqual(["mask"]);
    expect(result.summaries).toEqual([]);
    // t0..t2 are before the last 5 messages; t3's result is among them
    expect(
      result.masked.map((m) => m.body.message_type === "tool_result" && m.body.request_id),
    ).toEqual(["t0", "t1", "t2"]);
    const ids = result.view.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["t0", "t1", "t2", "t3", "t3.r0", "u0", "a0"]));
    expect(ids).not.toContain("t0.r0");
    for (const mask of result.masked) {
      expect(isMasked(mask)).toBe(true);
      expect(mask.body).toMatchObject({ tool_name: "read_file", status: "success" });
      const note = mask.body.message_type === "tool_result" ? mask.body.content : [];
      expect(note).toHaveLength(1);
      expect(JSON.stringify(note)).toContain("50 lines");
      expect(JSON.stringify(note)).toContain("Call the tool again");
    }
    expect(result.record.summaries).toEqual(
      result.masked.map((m, i) => ({ summary_message_id: m.id, replaces: [`t${i}.r0`] })),
    );
    expect(result.record.tokens_after).toBeLessThanOrEqual(result.target);
    expect(result.changed).toBe(true);

    // stored, the masks hold for the next requests; a new optimization changes nothing
    const pool = new Map([...messages, ...result.masked].map((m) => [m.id, m]));
    const restored = viewFromRecords(messages, [result.record], pool);
    expect(restored.map((m) => m.id)).toEqual(ids);
    const again = await optimizeBranch({
      ...base,
      messages: restored,
      contextWindow: Math.floor(total / 0.9),
    });
    expect(again.changed).toBe(false);
  });

  it("a later summary covers a stored mask and the result it stands for", async () => {
    const messages = history();
    const base = input(messages);
    const total = countRequestTokens(base).total;
    const first = await optimizeBranch({ ...base, contextWindow: Math.floor(total / 0.9) });
    const pool = new Map([...messages, ...first.masked].map((m) => [m.id, m]));
    const grown = [
      ...messages,
      ...Array.from({ length: 6 }, (_, i) => text(`x${i}`, "user", "more words ".repeat(80))),
    ];
    const restored = viewFromRecords(grown, [first.record], pool);
    const second = await optimizeBranch({
      ...input(restored, {
        newId: (() => {
          let n = 0;
          return () => `m${n++}`;
        })(),
      }),
      contextWindow: Math.floor(countRequestTokens({ ...base, messages: restored }).total / 1.6),
    });
    expect(second.tiers).toContain("summarize");
    for (const s of second.summaries) pool.set(s.id, s);
    const after = viewFromRecords(grown, [first.record, second.record], pool);
    expect(after.map((m) => m.id)).toEqual(second.view.map((m) => m.id));
    // neither an original result nor its stored mask comes back
    expect(after.map((m) => m.id)).not.toContain("t0.r0");
    expect(after.some((m) => first.masked.includes(m) && !second.view.includes(m))).toBe(false);
  });

  it("leaves short outputs and the recent messages' outputs alone", () => {
    const [_, result] = toolPair("s", [{ name: "bash", output: "ok" }]);
    expect(maskNote(result!)).toContain(MASK_PREFIX);
    expect(isMasked(result!)).toBe(false);
  });
});

describe("summary shares and the last tier", () => {
  it("asks each summary for its share of the room, with turn numbers", async () => {
    const seen: SummarizeOptions[] = [];
    const summarizer: Summarizer = {
      kind: "test",
      async summarize(batch, _signal, options = {}) {
        seen.push(options);
        return `summary of ${batch.length} (turn ${options.turnOf?.(batch[0]!)})`;
      },
    };
    const messages = Array.from({ length: 40 }, (_, i) =>
      text(
        `m${i}`,
        i % 2 ? "assistant" : "user",
        `Turn ${i}: code R${i} is garnet-${1000 + i}. ${"filler ".repeat(40)}`,
      ),
    );
    const base = input(messages, { summarizer });
    const total = countRequestTokens(base).total;
    const result = await optimizeBranch({ ...base, contextWindow: Math.floor(total / 1.2) });
    expect(seen).toHaveLength(1);
    const share = seen[0]!.maxTokens!;
    // the room the target leaves after the kept messages, not the old fixed 600
    expect(share).toBeGreaterThan(600);
    expect(share).toBeLessThanOrEqual(result.target);
    expect(result.summaries[0]!.body).toMatchObject({
      text: "summary of 35 (turn 1)",
      data: { summarizer: "test", share_tokens: share },
    });
  });

  it("drops the oldest dialogue before any summary, and a summary only when nothing else is left", async () => {
    const summary: ContextMessage = {
      id: "old-summary",
      session_id: "s",
      role: "system",
      status: "complete",
      created_at: "2025-01-01T00:00:00.000Z",
      body: {
        message_type: "system_control",
        kind: "summary",
        text: "- [1 user] The vault code for room R1 is garnet-1084.",
        replaces: ["gone"],
      },
    };
    const messages = [
      summary,
      ...Array.from({ length: 6 }, (_, i) =>
        text(`k${i}`, i % 2 ? "assistant" : "user", `kept ${i} `.repeat(100)),
      ),
    ];
    // keep_recent covers every message: only the last tier can shrink the view
    const config = OptimizationConfigSchema.parse({
      strategy: {
        type: "intelligent",
        keep_recent: 100,
        file_reference_window: 0,
        summarize: true,
      },
    });
    const base = input(messages, { config });
    const total = countRequestTokens(base).total;
    const result = await optimizeBranch({ ...base, contextWindow: Math.floor(total / 1.3) });
    expect(result.tiers).toEqual(["drop"]);
    expect(result.view[0]).toBe(summary);
    expect(result.record.dropped[0]).toBe("k0");
    expect(result.record.dropped).not.toContain("old-summary");
    expect(isSummary(result.view[0]!)).toBe(true);

    // with a window too small for anything but the last message, the summary goes too
    const tight = await optimizeBranch({ ...base, contextWindow: 300 });
    expect(tight.view.map((m) => m.id)).toEqual(["k5"]);
    expect(tight.record.dropped).toContain("old-summary");
  });

  it("cuts a summary to what fits rather than dropping it whole", async () => {
    const facts = Array.from(
      { length: 40 },
      (_, i) => `- [${i + 1} user] The vault code for room R${i + 1} is garnet-${1000 + i}.`,
    );
    const summary: ContextMessage = {
      id: "old-summary",
      session_id: "s",
      role: "system",
      status: "complete",
      created_at: "2025-01-01T00:00:00.000Z",
      body: {
        message_type: "system_control",
        kind: "summary",
        text: ["Summary of 80 earlier messages:", "Facts:", ...facts].join("\n"),
        replaces: ["gone"],
      },
    };
    const last = text("k9", "user", "What are the codes?");
    const config = OptimizationConfigSchema.parse({
      strategy: {
        type: "intelligent",
        keep_recent: 100,
        file_reference_window: 0,
        summarize: true,
      },
    });
    const base = input([summary, text("k0", "assistant", "ok ".repeat(200)), last], { config });
    const lastOnly = countRequestTokens({ ...base, messages: [last] }).total;
    // the target leaves ~150 tokens for the summary (of ~700)
    const result = await optimizeBranch({ ...base, contextWindow: 2 * (lastOnly + 150) });
    const [cut] = result.masked;
    expect(result.view).toEqual([cut, last]);
    const cutText = cut?.body.message_type === "system_control" ? cut.body.text : "";
    expect(cutText.startsWith("Summary of 80 earlier messages:\nFacts:\n- [1 user]")).toBe(true);
    expect(cutText).toMatch(/\(\d+ more lines left out for space\)$/);
    expect(result.record.summaries).toEqual([
      { summary_message_id: cut!.id, replaces: ["old-summary"] },
    ]);
    expect(result.record.dropped).toEqual(["k0"]);
    expect(result.record.tokens_after).toBeLessThanOrEqual(result.target);
  });
});
