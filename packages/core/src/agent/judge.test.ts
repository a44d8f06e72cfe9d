import { describe, expect, it } from "vitest";
import { collect, loopConfig } from "../../test/support/agent-fixtures.js";
import {
  type AgentMessage,
  type AssistantMessage,
  emptyUsage,
  messageText,
  userMessage,
} from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import type { ParallelLoopOutcome } from "./evaluation.js";
import {
  buildJudgeUserMessage,
  compactForJudge,
  firstAndLastParagraph,
  JUDGE_REPLY_RESERVE_TOKENS,
  judgeMaterial,
  LlmJudgeEvaluation,
  lastLines,
  parseJudgeChoice,
} from "./judge.js";
import { agentLoopParallel } from "./parallel.js";
import { heuristicTokenCounter } from "./token-count.js";
import type { AgentEvent } from "./types.js";

const counter = heuristicTokenCounter();
const systemPrompt = "Judge.";

function answer(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    stopReason: "stop",
    model: "m",
    provider: "p",
    usage: emptyUsage(),
    timestamp: 0,
  };
}

function outcome(base: AgentMessage[], added: AgentMessage[], i = 0): ParallelLoopOutcome {
  return {
    configIndex: i,
    loopId: `l${i}`,
    context: { systemPrompt: "", messages: [...base, ...added], tools: [] },
    originalContextLen: base.length,
    newMessages: added,
    usage: emptyUsage(),
  };
}

const paragraphs = (n: number, words: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i}: ${"word ".repeat(words)}`).join("\n\n");

describe("judge prompt construction", () => {
  it("REQ-201: the query from the prompts; each branch's final text without tool traffic", () => {
    const toolTurn: AssistantMessage = {
      ...answer(""),
      content: [{ type: "toolCall", id: "c", name: "search", arguments: { q: "x" } }],
      stopReason: "toolUse",
    };
    const material = judgeMaterial(
      [userMessage("Which is larger?", 0)],
      [
        outcome([], [userMessage("Which is larger?", 0), toolTurn, answer("The first.")], 0),
        outcome([], [userMessage("Which is larger?", 0), answer("The second.")], 1),
      ],
    );
    expect(material).toEqual({
      priorContext: "",
      query: "Which is larger?",
      outputs: ["The first.", "The second."],
    });
    const text = buildJudgeUserMessage(material);
    expect(text).not.toContain("search");
    expect(text).not.toContain("Prior conversation context");
    expect(text).toMatch(/^Original query:\nWhich is larger\?/);
    expect(text).toContain("### Candidate 2\nThe second.");
  });

  it("REQ-207/209: a continuation reads the query and the conversation before it from the base", () => {
    const base = [
      userMessage("My name is Ada.", 0),
      answer("Hello Ada."),
      userMessage("What is my name?", 0),
    ];
    const material = judgeMaterial(
      [],
      [outcome(base, [answer("Ada.")]), outcome(base, [answer("Bob.")], 1)],
    );
    expect(material.query).toBe("What is my name?");
    expect(material.priorContext).toBe("User: My name is Ada.\n\nAssistant: Hello Ada.");
    const text = buildJudgeUserMessage(material);
    expect(text.indexOf("Prior conversation context:\nUser: My name is Ada.")).toBe(0);
    expect(text.indexOf("Prior conversation context:")).toBeLessThan(
      text.indexOf("Original query:"),
    );
  });

  it("parses the first integer of the reply within 1..n", () => {
    expect(parseJudgeChoice("Candidate 3 is best", 3)).toBe(2);
    expect(parseJudgeChoice("**2**", 3)).toBe(1);
    expect(parseJudgeChoice("4", 3)).toBeUndefined();
    expect(parseJudgeChoice("none", 3)).toBeUndefined();
  });
});

describe("compactForJudge (REQ-202/208)", () => {
  it("the tiers: the last 80 lines, then the first and last paragraph", () => {
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n");
    const cut = lastLines(long, 80);
    expect(cut.split("\n")).toHaveLength(81);
    expect(cut).toContain("line 199");
    expect(cut).not.toContain("line 119\n");
    expect(firstAndLastParagraph("a\n\nb\n\nc\n\nd")).toBe("a\n\n[… 2 paragraphs cut]\n\nd");
  });

  it("no budget or a budget that holds everything: nothing is cut", () => {
    const material = { priorContext: "ctx", query: "q", outputs: ["a", "b"] };
    expect(compactForJudge(material, undefined, { systemPrompt })).toMatchObject({
      material,
      fits: true,
      priorTiers: [],
      outputTiers: [],
    });
    expect(compactForJudge(material, 100_000, { systemPrompt, counter }).priorTiers).toEqual([]);
  });

  it("iteration 1 compacts the prior context only, while that alone makes everything fit", () => {
    const outputs = ["short answer one", "short answer two"];
    const material = { priorContext: paragraphs(40, 60), query: "q?", outputs };
    const size = (m: typeof material) => counter.countText(buildJudgeUserMessage(m));
    const budget =
      size({ ...material, priorContext: "" }) +
      200 +
      JUDGE_REPLY_RESERVE_TOKENS +
      counter.countText(systemPrompt);
    const result = compactForJudge(material, budget, { systemPrompt, counter });
    expect(result.fits).toBe(true);
    expect(result.priorTiers.length).toBeGreaterThan(0);
    expect(result.outputTiers).toEqual([]);
    expect(result.material.outputs).toEqual(outputs);
    expect(result.material.priorContext.length).toBeLessThan(material.priorContext.length);
  });

  it("iteration 2 compacts each output when the prior context is not enough; tier 3 holds the budget", () => {
    const material = {
      priorContext: paragraphs(3, 10),
      query: "q?",
      outputs: [paragraphs(1, 3_000), paragraphs(1, 3_000), paragraphs(1, 3_000)],
    };
    const budget = 2_500;
    const result = compactForJudge(material, budget, { systemPrompt, counter });
    expect(result.priorTiers).toEqual([1, 2, 3]);
    expect(result.outputTiers).toEqual([1, 2, 3]);
    expect(result.fits).toBe(true);
    const used = counter.countText(buildJudgeUserMessage(result.material));
    expect(used).toBeLessThanOrEqual(budget - JUDGE_REPLY_RESERVE_TOKENS);
    // each output got its share: none was dropped
    expect(result.material.outputs.every((o) => o.startsWith("Paragraph 0"))).toBe(true);
  });

  it("a budget nothing can meet: the criteria fail (the judge warns)", () => {
    const material = { priorContext: "", query: "q ".repeat(5_000), outputs: ["a", "b"] };
    expect(compactForJudge(material, 1_200, { systemPrompt, counter }).fits).toBe(false);
  });

  it("with a tight judge budget the judge reads cut answers, warns, and the chosen branch is whole", async () => {
    const long = `${paragraphs(30, 80)}\n\nIn short: four.`;
    const judgeProvider = new ScriptedProvider([{ blocks: [{ type: "text", text: "1" }] }]);
    const judge = new LlmJudgeEvaluation({
      judgeConfig: loopConfig(judgeProvider, {
        contextConfig: {
          maxContextTokens: 1_300,
          systemPromptTokens: 100,
          keepRecent: 4,
          keepFirst: 1,
          toolOutputMaxLines: 50,
        },
        tokenCounter: counter,
      }),
    });
    const branchWith = (text: string) => {
      const provider = new ScriptedProvider([{ blocks: [{ type: "text", text }] }]);
      return loopConfig(provider);
    };
    const stream = agentLoopParallel(
      // the query alone is over the budget: the criteria cannot be met
      [userMessage("q ".repeat(800), 0)],
      { systemPrompt: "", messages: [], tools: [] },
      [branchWith(long), branchWith(long.replace("four", "4"))],
      judge,
    );
    const events: AgentEvent[] = await collect(stream);
    const result = await stream.result();
    const sent = judgeProvider.requests[0]?.messages[0];
    const read = sent?.role === "user" ? messageText(sent) : "";
    expect(read.length).toBeLessThan(long.length);
    expect(events.some((e) => e.type === "progressMessage" && e.toolName === "llm_judge")).toBe(
      true,
    );
    expect(messageText(result.selected.newMessages.at(-1) as AssistantMessage)).toBe(long);
  });
});
