import { describe, expect, it } from "vitest";
import { collect, loopConfig, testModel } from "../../test/support/agent-fixtures.js";
import { type AgentMessage, messageText, userMessage } from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { Agent } from "./agent.js";
import { agentLoop } from "./loop.js";
import { DEFAULT_CONTEXT_CONFIG } from "./types.js";

// The loop's compaction step, driven through the Agent: budget compaction before every request,
// custom strategies, and the one compaction-and-retry after a context overflow.

const fastRetry = { maxRetries: 3, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 4 };

function agent(provider: ScriptedProvider): Agent {
  return new Agent({ provider, model: testModel, retryConfig: fastRetry });
}

const text = (message: AgentMessage | undefined) => (message ? messageText(message) : "");

describe("optimizeContext", () => {
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

  describe("recoverContextOverflow: the caller's own recovery in place of compaction", () => {
    const overflow = { error: { status: 400, message: "prompt is too long" } };
    const context = () => ({
      systemPrompt: "",
      messages: [userMessage("old question"), userMessage("another")],
      tools: [],
    });

    it("is called once on an overflow; the request is rebuilt through transformContext and sent again", async () => {
      const provider = new ScriptedProvider([overflow, { blocks: [{ type: "text", text: "ok" }] }]);
      let shrunk = false;
      const calls: string[] = [];
      const config = loopConfig(provider, {
        recoverContextOverflow: () => {
          calls.push("recover");
          shrunk = true;
          return true;
        },
        transformContext: (messages) => {
          calls.push("transform");
          return shrunk ? messages.slice(-1) : messages;
        },
      });
      const events = await collect(agentLoop([userMessage("q")], context(), config));
      expect(calls).toEqual(["transform", "recover", "transform"]);
      expect(provider.requests.map((r) => r.messages.length)).toEqual([3, 1]);
      // no runtime compaction ran: the caller's recovery replaced it
      expect(events.some((e) => e.type === "compaction")).toBe(false);
      const end = events.at(-1);
      expect(end?.type === "agentEnd" && text(end.messages.at(-1))).toBe("ok");
    });

    it("false: the response fails with the provider's error, nothing is sent again", async () => {
      const provider = new ScriptedProvider([overflow, { blocks: [{ type: "text", text: "no" }] }]);
      const config = loopConfig(provider, { recoverContextOverflow: () => false });
      const events = await collect(agentLoop([userMessage("q")], context(), config));
      expect(provider.requests).toHaveLength(1);
      const end = events.at(-1);
      expect(end?.type === "agentEnd" && end.messages.at(-1)).toMatchObject({
        stopReason: "error",
        errorMessage: "prompt is too long",
      });
    });

    it("a second overflow is not recovered again", async () => {
      const provider = new ScriptedProvider([overflow, overflow, { blocks: [] }]);
      let recovered = 0;
      const config = loopConfig(provider, {
        recoverContextOverflow: () => {
          recovered++;
          return true;
        },
      });
      const events = await collect(agentLoop([userMessage("q")], context(), config));
      expect(recovered).toBe(1);
      expect(provider.requests).toHaveLength(2);
      const end = events.at(-1);
      expect(end?.type === "agentEnd" && end.messages.at(-1)).toMatchObject({
        stopReason: "error",
      });
    });

    it("a throwing recovery is logged and the response fails", async () => {
      const provider = new ScriptedProvider([overflow, { blocks: [] }]);
      const config = loopConfig(provider, {
        recoverContextOverflow: () => {
          throw new Error("store down");
        },
      });
      const events = await collect(agentLoop([userMessage("q")], context(), config));
      expect(provider.requests).toHaveLength(1);
      const end = events.at(-1);
      expect(end?.type === "agentEnd" && end.messages.at(-1)).toMatchObject({
        stopReason: "error",
      });
    });
  });
});
