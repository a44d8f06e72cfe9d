import { describe, expect, it } from "vitest";
import { collect, testModel } from "../../test/support/agent-fixtures.js";
import { type AgentMessage, messageText, userMessage } from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { Agent } from "./agent.js";
import { DEFAULT_CONTEXT_CONFIG } from "./types.js";

// The loop's compaction step, driven through the Agent: budget compaction before every request,
// custom strategies, and the one compaction-and-retry after a context overflow.

const fastRetry = { maxRetries: 3, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 4 };

function agent(provider: ScriptedProvider): Agent {
  return new Agent({ provider, model: testModel, retryConfig: fastRetry });
}

const text = (message: AgentMessage | undefined) => (message ? messageText(message) : "");

describe("compactContext", () => {
  it("REQ-060: with a small contextConfig, history is compacted before the model request and a compaction event is emitted", async () => {
    const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "ok" }] }]);
    const a = agent(provider).withContextConfig({
      maxContextTokens: 700,
      systemPromptTokens: 100,
      keepRecent: 2,
      keepFirst: 1,
      toolOutputMaxLines: 5,
    });
    const history = Array.from({ length: 30 }, (_, i) =>
      userMessage(`message ${i} ${"lorem ipsum ".repeat(20)}`, i),
    );
    a.restoreMessages(JSON.stringify(history));
    const events = await collect(a.prompt("latest question"));
    const compaction = events.find((e) => e.type === "compaction");
    expect(compaction).toMatchObject({ type: "compaction", reason: "budget", messagesBefore: 31 });
    if (compaction?.type !== "compaction") throw new Error("no compaction event");
    expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    expect(provider.requests[0]?.messages.length).toBeLessThan(31);
    expect(text(provider.requests[0]?.messages.at(-1))).toBe("latest question");
    // REQ-172: the agent keeps the compacted working history (bounded), plus the new answer;
    // agentEnd.messages still carries the run's new messages in full
    expect(a.messages.length).toBe(provider.requests[0]!.messages.length + 1);
    expect(a.messages.length).toBeLessThan(32);
    const end = events.at(-1);
    expect(end?.type === "agentEnd" && end.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
    ]);
  });

  it("REQ-060: contextConfig null → no compaction at all", async () => {
    const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "ok" }] }]);
    const a = agent(provider).withContextConfig(null);
    a.restoreMessages(
      JSON.stringify(Array.from({ length: 30 }, (_, i) => userMessage("x".repeat(5000), i))),
    );
    const events = await collect(a.prompt("q"));
    expect(events.some((e) => e.type === "compaction")).toBe(false);
    expect(provider.requests[0]?.messages).toHaveLength(31);
  });

  it("REQ-146: a custom strategy that always returns [] makes the model see no history", async () => {
    const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "ok" }] }]);
    const a = agent(provider).withCompactionStrategy({ name: "forget", compact: () => [] });
    const events = await collect(a.prompt("anything"));
    expect(provider.requests[0]?.messages).toEqual([]);
    expect(events.find((e) => e.type === "compaction")).toMatchObject({
      tiers: ["custom"],
      messagesAfter: 0,
    });
  });

  it("REQ-077: a context overflow compacts and retries once", async () => {
    const provider = new ScriptedProvider([
      { error: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" } },
      { blocks: [{ type: "text", text: "fits now" }] },
    ]);
    const a = agent(provider).withContextConfig({
      ...DEFAULT_CONTEXT_CONFIG,
      keepRecent: 2,
      keepFirst: 1,
    });
    a.restoreMessages(
      JSON.stringify(
        Array.from({ length: 20 }, (_, i) => userMessage(`old ${i} ${"word ".repeat(50)}`, i)),
      ),
    );
    const events = await collect(a.prompt("question"));
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]?.messages.length).toBeLessThan(
      provider.requests[0]?.messages.length ?? 0,
    );
    expect(events.filter((e) => e.type === "compaction")).toMatchObject([{ reason: "overflow" }]);
    expect(text(a.messages.at(-1))).toBe("fits now");
  });

  it("REQ-077: a second overflow is not retried again; it ends as an error message", async () => {
    const overflow = { error: { status: 400, message: "prompt is too long" } };
    const provider = new ScriptedProvider([
      overflow,
      overflow,
      { blocks: [{ type: "text", text: "never" }] },
    ]);
    const a = agent(provider).withContextConfig({
      ...DEFAULT_CONTEXT_CONFIG,
      keepRecent: 2,
      keepFirst: 1,
    });
    a.restoreMessages(
      JSON.stringify(
        Array.from({ length: 20 }, (_, i) => userMessage(`old ${i} ${"word ".repeat(50)}`, i)),
      ),
    );
    await a.prompt("question").result();
    expect(provider.requests).toHaveLength(2);
    expect(a.messages.at(-1)).toMatchObject({
      stopReason: "error",
      errorMessage: "prompt is too long",
    });
  });
});
