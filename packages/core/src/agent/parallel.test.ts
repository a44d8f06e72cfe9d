import { describe, expect, it } from "vitest";
import { collect, echoTool, loopConfig, testModel } from "../../test/support/agent-fixtures.js";
import { modelConfig } from "../model/llm-config.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  userMessage,
} from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import {
  ElaborateEvaluation,
  type EvaluationStrategy,
  PickFirstEvaluation,
  TokenEfficientEvaluation,
  TransparentEvaluation,
} from "./evaluation.js";
import { LlmJudgeEvaluation } from "./judge.js";
import { agentLoopParallel } from "./parallel.js";
import type { AgentContext, AgentEvent } from "./types.js";

function context(messages: AgentMessage[] = [], extra: Partial<AgentContext> = {}): AgentContext {
  return { systemPrompt: "You are a test.", messages, tools: [echoTool], ...extra };
}

/** A branch answering `text` with `output` output tokens. */
function branch(text: string, output: number, model = "m") {
  const provider = new ScriptedProvider([
    { blocks: [{ type: "text", text }], usage: { input: 10, output } },
  ]);
  return {
    provider,
    config: loopConfig(provider, { model: modelConfig({ protocol: "offline", model }) }),
  };
}

const ask = [userMessage("What is 2 + 2?", 1)];

async function run(strategy: EvaluationStrategy, branches: ReturnType<typeof branch>[]) {
  const stream = agentLoopParallel(
    ask,
    context(),
    branches.map((b) => b.config),
    strategy,
  );
  const events = await collect(stream);
  return { events, result: await stream.result() };
}

describe("agentLoopParallel", () => {
  it("REQ-203: runs every branch on its own copy of the context, between parallelLoopStart and End", async () => {
    const a = branch("four", 5, "model-a");
    const b = branch("It is 4.", 9, "model-b");
    const base = context([userMessage("earlier", 0)], { sessionId: "s1", agentId: "a1" });
    const stream = agentLoopParallel(ask, base, [a.config, b.config], new PickFirstEvaluation());
    const events = await collect(stream);
    const result = await stream.result();

    const start = events[0];
    expect(start?.type).toBe("parallelLoopStart");
    const loopIds = start?.type === "parallelLoopStart" ? start.loopIds : [];
    expect(loopIds).toHaveLength(2);
    expect(new Set(loopIds).size).toBe(2);
    expect(loopIds[0]).toMatch(/^s1\.mock\.model-a\.\d+$/);
    expect(start?.loopId).toMatch(/^s1\.parallel\.\d+$/);
    const end = events.at(-1);
    expect(end).toMatchObject({
      type: "parallelLoopEnd",
      loopId: start?.loopId,
      sessionId: "s1",
      selectedLoopId: loopIds[0],
      selectedConfigIndex: 0,
      evaluationUsage: { totalTokens: 0 },
    });
    // each branch's own events carry its loop id; both started and ended
    for (const id of loopIds) {
      const own = events.filter((e) => e.loopId === id).map((e) => e.type);
      expect(own[0]).toBe("agentStart");
      expect(own.at(-1)).toBe("agentEnd");
    }
    // the base context is untouched; each branch has base + prompt + its answer
    expect(base.messages).toHaveLength(1);
    expect(result.outcomes.map((o) => o.originalContextLen)).toEqual([1, 1]);
    expect(result.outcomes.map((o) => o.context.messages.length)).toEqual([3, 3]);
    expect(result.outcomes[1]?.context.messages.slice(0, 1)).toEqual(base.messages);
    expect(messageText(result.selected.newMessages.at(-1) as AssistantMessage)).toBe("four");
    // REQ-197: branch usages summed (input 10 each, outputs 5 and 9)
    expect(result.usage).toMatchObject({ input: 20, output: 14 });
    expect(a.provider.requests[0]?.model.model).toBe("model-a");
    expect(b.provider.requests[0]?.model.model).toBe("model-b");
  });

  it("a branch's own system prompt and temperature reach its model only", async () => {
    const a = branch("x", 1);
    const b = branch("y", 1);
    const stream = agentLoopParallel(
      ask,
      context(),
      [a.config, { ...b.config, systemPrompt: "Answer in French.", temperature: 0.9 }],
      new PickFirstEvaluation(),
    );
    await stream.result();
    expect(a.provider.requests[0]?.systemPrompt).toBe("You are a test.");
    expect(a.provider.requests[0]?.temperature).toBeUndefined();
    expect(b.provider.requests[0]?.systemPrompt).toBe("Answer in French.");
    expect(b.provider.requests[0]?.temperature).toBe(0.9);
  });

  it("REQ-200: the four outcome strategies", async () => {
    const three = () => [branch("short", 3), branch("a much longer answer", 30), branch("mid", 10)];
    expect((await run(new PickFirstEvaluation(), three())).result.selectedIndex).toBe(0);
    expect((await run(new TokenEfficientEvaluation(), three())).result.selectedIndex).toBe(0);
    expect((await run(new ElaborateEvaluation(), three())).result.selectedIndex).toBe(1);
    const single = await run(new TransparentEvaluation(), [branch("only", 2)]);
    expect(single.result.selectedIndex).toBe(0);
    expect(single.result.reason).toBe("the only branch");
  });

  it("a failed branch is passed over while another finished", async () => {
    const failing = new ScriptedProvider([{ error: { status: 400, message: "bad request" } }]);
    const ok = branch("fine", 50);
    const { result } = await run(new TokenEfficientEvaluation(), [
      { provider: failing, config: loopConfig(failing) },
      ok,
    ]);
    expect(result.selectedIndex).toBe(1);
  });

  it("REQ-205: with no prompts every branch continues the base context", async () => {
    const a = branch("continued A", 1);
    const b = branch("continued B", 2);
    const base = context([userMessage("go on", 0)], { agentId: "a", sessionId: "s-cont" });
    const stream = agentLoopParallel([], base, [a.config, b.config], new ElaborateEvaluation());
    const result = await stream.result();
    expect(result.selectedIndex).toBe(1);
    expect(result.outcomes.map((o) => o.newMessages.map((m) => m.role))).toEqual([
      ["assistant"],
      ["assistant"],
    ]);
    expect(a.provider.requests[0]?.messages.map((m) => m.role)).toEqual(["user"]);
    expect(() => agentLoopParallel([], context([]), [a.config], new PickFirstEvaluation())).toThrow(
      /agentId/,
    );
  });

  it("an abort ends every branch and the group still ends with its result", async () => {
    const slow = () =>
      new ScriptedProvider([
        { blocks: [{ type: "text", text: "slow" }], firstChunkDelayMs: 5_000 },
      ]);
    const controller = new AbortController();
    const stream = agentLoopParallel(
      ask,
      context(),
      [loopConfig(slow()), loopConfig(slow())],
      new PickFirstEvaluation(),
      controller.signal,
    );
    setTimeout(() => controller.abort(), 20);
    const result = await stream.result();
    expect(
      result.outcomes.map((o) => (o.newMessages.at(-1) as AssistantMessage).stopReason),
    ).toEqual(["aborted", "aborted"]);
  });

  it("REQ-201: the LLM judge picks by number; its usage is the evaluation's; its loop shares the session", async () => {
    const judgeProvider = new ScriptedProvider([
      {
        blocks: [{ type: "text", text: "2. It answers with the number itself." }],
        usage: { input: 50, output: 7 },
      },
    ]);
    const judge = new LlmJudgeEvaluation({ judgeConfig: loopConfig(judgeProvider) });
    const base = context([], { sessionId: "s-judge", agentId: "agent" });
    const stream = agentLoopParallel(
      ask,
      base,
      [branch("I think it may be four-ish.", 8).config, branch("4", 1).config],
      judge,
    );
    const events: AgentEvent[] = await collect(stream);
    const result = await stream.result();
    expect(result.selectedIndex).toBe(1);
    expect(result.reason).toBe("2. It answers with the number itself.");
    expect(result.evaluationUsage).toMatchObject({ input: 50, output: 7 });
    expect(result.usage.input).toBe(10 + 10 + 50);
    // the group's end names the model that spent the judge's tokens (it prices them)
    const end = events.find((e) => e.type === "parallelLoopEnd");
    expect(end?.type === "parallelLoopEnd" && end.evaluationModel).toBe("scripted-model");
    const judgeStart = events.find(
      (e) => e.type === "agentStart" && !result.outcomes.some((o) => o.loopId === e.loopId),
    );
    expect(judgeStart?.type === "agentStart" && judgeStart.sessionId).toBe("s-judge");
    // the judge read the query and both final answers, numbered
    const prompt = judgeProvider.requests[0]?.messages[0];
    const text = prompt?.role === "user" ? messageText(prompt) : "";
    expect(text).toContain("Original query:\nWhat is 2 + 2?");
    expect(text).toContain("### Candidate 1\nI think it may be four-ish.");
    expect(text).toContain("### Candidate 2\n4");
    expect(text).not.toContain("Prior conversation context");
    expect(judgeProvider.requests[0]?.model).toEqual(testModel);
  });

  it("a judge reply without a valid number falls back to the first branch that finished", async () => {
    const judgeProvider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "Both are fine." }] },
    ]);
    const { result } = await run(
      new LlmJudgeEvaluation({ judgeConfig: loopConfig(judgeProvider) }),
      [branch("a", 1), branch("b", 1)],
    );
    expect(result.selectedIndex).toBe(0);
    expect(result.fallback).toBe(true);
    // one sentence that says no one chose it, then the reply itself
    expect(result.reason).toBe(
      "The judge named no candidate (1 to 2), so the first candidate was taken. The judge replied: Both are fine.",
    );
  });
});
