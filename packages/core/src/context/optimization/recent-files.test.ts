import { describe, expect, it } from "vitest";
import { fileReference, text, toolPair } from "../../../test/support/random-context-history.js";
import { defaultTokenCounter } from "../../agent/token-count.js";
import type { ContextMessage } from "../../model/message-types.js";
import { OptimizationConfigSchema } from "../../model/session-config.js";
import { ExtractiveSummarizer, extractiveSummary } from "./extractive-summarizer.js";
import { optimizeBranch } from "./optimizer.js";
import { RECENT_FILES_HEADING, recentFilePaths, recentFilesSection } from "./recent-files.js";
import { countRequestTokens } from "./request-tokens.js";

// Issue #15: after an optimization, up to five recently used files are re-read as they are NOW into
// the newest summary (old contents are not kept), within the room the target leaves.

const read = (name: string) =>
  toolPair(name, [{ name: "read_file", args: { path: `${name}.ts` }, output: "old contents" }]);

describe("recent files", () => {
  it("lists the files the summarized messages used, newest first, at most five, not those still shown", () => {
    const gone: ContextMessage[] = [
      ...["a", "b", "c", "d", "e", "f", "g"].flatMap((name) => read(name)),
      fileReference("ref", "docs/plan.md", "the plan"),
      ...read("a"),
    ];
    const view = [...read("f")];
    expect(recentFilePaths(gone, view)).toEqual(["a.ts", "docs/plan.md", "g.ts", "e.ts", "d.ts"]);
  });

  it("cuts each file to what fits, newest first, and says how much was left out", async () => {
    const counter = defaultTokenCounter();
    const files: Record<string, string> = {
      "new.ts": Array.from({ length: 400 }, (_, i) => `export const line${i} = ${i};`).join("\n"),
      "old.ts": "export {};",
    };
    const section = await recentFilesSection(
      ["new.ts", "gone.ts", "old.ts"],
      async (path) => files[path],
      600,
      counter,
    );
    expect(section?.files).toEqual(["new.ts"]);
    expect(
      section?.text.startsWith(`\n\n${RECENT_FILES_HEADING}\n### new.ts\nexport const line0 = 0;`),
    ).toBe(true);
    expect(section?.text).toMatch(/\[… \d+ more lines\]$/);
    expect(counter.countText(section!.text)).toBeLessThanOrEqual(600);
    expect(
      await recentFilesSection(["new.ts"], async () => undefined, 600, counter),
    ).toBeUndefined();
    expect(
      await recentFilesSection(["old.ts"], async (p) => files[p], 50, counter),
    ).toBeUndefined();
  });

  it("re-reads the summarized turns' files into the newest summary; a summary of it leaves them out", async () => {
    const messages: ContextMessage[] = [];
    for (let i = 0; i < 6; i++) {
      messages.push(text(`u${i}`, "user", `Look at module ${i}. ${"context ".repeat(120)}`));
      messages.push(
        ...toolPair(`t${i}`, [
          { name: "read_file", args: { path: `src/m${i}.ts` }, output: "export const old = 1;" },
        ]),
      );
      messages.push(text(`a${i}`, "assistant", `Module ${i} read.`));
    }
    messages.push(text("u9", "user", "Now what?"));
    let n = 0;
    const base = {
      messages,
      systemPrompt: "sys",
      tools: [],
      config: OptimizationConfigSchema.parse({ strategy: { type: "recent_n", n: 1 } }),
      summarizer: new ExtractiveSummarizer(),
      now: () => "2025-01-01T00:00:00.000Z",
      newId: () => `n${n++}`,
      sessionId: "s",
      branchId: "b",
      signal: new AbortController().signal,
      readRecentFile: async (path: string) => `// ${path} as it is now\nexport const fresh = 2;`,
    };
    // the trigger just passed: the target leaves room for the summary and the files
    const contextWindow = Math.floor(countRequestTokens(base).total / 0.85);
    const result = await optimizeBranch({ ...base, contextWindow });
    const summary = result.summaries.at(-1)!;
    const body = summary.body.message_type === "system_control" ? summary.body : undefined;
    expect(body?.text).toContain(RECENT_FILES_HEADING);
    expect(body?.text).toContain(
      "### src/m5.ts\n// src/m5.ts as it is now\nexport const fresh = 2;",
    );
    expect(body?.text).not.toContain("export const old = 1;");
    // newest first, as many as the room allows (at most five)
    const files = body?.data?.recent_files as string[];
    expect(files.length).toBeGreaterThanOrEqual(2);
    expect(files).toEqual(
      ["src/m5.ts", "src/m4.ts", "src/m3.ts", "src/m2.ts", "src/m1.ts"].slice(0, files.length),
    );
    expect(result.record.tokens_after).toBeLessThanOrEqual(result.target);

    const again = extractiveSummary([summary]);
    expect(again).not.toContain(RECENT_FILES_HEADING);
    expect(again).not.toContain("as it is now");
  });

  it("at the next optimization an earlier summary's files are dropped (they are old by then)", async () => {
    const summary: ContextMessage = {
      id: "s-old",
      session_id: "s",
      role: "system",
      status: "complete",
      created_at: "2025-01-01T00:00:00.000Z",
      body: {
        message_type: "system_control",
        kind: "summary",
        text: `Summary of 9 earlier messages:\nFacts:\n- [1 user] Code R1 is garnet-1084.\n\n${RECENT_FILES_HEADING}\n### a.ts\n${"export const a = 1;\n".repeat(80)}`,
        replaces: ["x1", "x2"],
        data: { summarizer: "extractive", recent_files: ["a.ts"] },
      },
    };
    const messages = [
      summary,
      ...Array.from({ length: 6 }, (_, i) =>
        text(`k${i}`, i % 2 ? "assistant" : "user", `turn ${i}`),
      ),
    ];
    let n = 0;
    const base = {
      messages,
      systemPrompt: "sys",
      tools: [],
      config: OptimizationConfigSchema.parse({
        strategy: {
          type: "intelligent",
          keep_recent: 6,
          file_reference_window: 0,
          summarize: true,
        },
      }),
      summarizer: new ExtractiveSummarizer(),
      now: () => "2025-01-01T00:00:00.000Z",
      newId: () => `n${n++}`,
      sessionId: "s",
      branchId: "b",
      signal: new AbortController().signal,
    };
    const result = await optimizeBranch({
      ...base,
      contextWindow: Math.floor(countRequestTokens(base).total / 0.9),
    });
    expect(result.tiers).toEqual(["mask"]);
    const [kept] = result.masked;
    expect(result.view[0]).toBe(kept);
    expect(kept?.body).toMatchObject({
      kind: "summary",
      text: "Summary of 9 earlier messages:\nFacts:\n- [1 user] Code R1 is garnet-1084.",
      replaces: ["x1", "x2"],
      data: { files_dropped_from: "s-old", old_files: ["a.ts"] },
    });
    expect(result.record.summaries).toEqual([
      { summary_message_id: kept!.id, replaces: ["s-old"] },
    ]);
  });
});
