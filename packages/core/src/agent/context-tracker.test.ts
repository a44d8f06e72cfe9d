import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, Usage } from "../model/llm-messages.js";
import { userMessage } from "../model/llm-messages.js";
import { ContextTracker } from "./context-tracker.js";
import { heuristicTokenCounter, totalTokens } from "./token-count.js";

const counter = heuristicTokenCounter();

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
  };
}

function reply(text: string, u: Usage): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    stopReason: "stop",
    model: "m",
    provider: "p",
    usage: u,
    timestamp: 1,
  };
}

describe("ContextTracker", () => {
  it("REQ-136: without a report, estimates locally (plus the system prompt reserve)", () => {
    const tracker = new ContextTracker(counter, 500);
    const messages = [userMessage("hello there")];
    expect(tracker.currentTokens(messages)).toBe(500 + totalTokens(messages, counter));
  });

  it("REQ-136: the provider-reported usage is the ground truth for the reported prefix", () => {
    const tracker = new ContextTracker(counter);
    const u = usage(1_200, 300, 4_000, 100);
    const messages: AgentMessage[] = [userMessage("question"), reply("answer", u)];
    tracker.recordUsage(u, messages.length);
    expect(tracker.currentTokens(messages)).toBe(1_200 + 300 + 4_000 + 100);
  });

  it("REQ-136: messages appended since the report add local estimates", () => {
    const tracker = new ContextTracker(counter);
    const u = usage(1_000, 200);
    const messages: AgentMessage[] = [userMessage("question"), reply("answer", u)];
    tracker.recordUsage(u, messages.length);
    const follow = userMessage("a follow-up question with some words");
    expect(tracker.currentTokens([...messages, follow])).toBe(
      1_200 + totalTokens([follow], counter),
    );
  });

  it("ignores a report that no longer applies: shorter history, replaced anchor, reset, zero usage", () => {
    const tracker = new ContextTracker(counter);
    const u = usage(1_000, 200);
    const answer = reply("answer", u);
    const messages: AgentMessage[] = [userMessage("question"), answer];
    const local = totalTokens(messages, counter);

    tracker.recordUsage(u, 5);
    expect(tracker.currentTokens(messages)).toBe(local);

    tracker.recordUsage(u, 2, answer);
    expect(tracker.currentTokens(messages)).toBe(1_200);
    const replaced: AgentMessage[] = [userMessage("[Summary] …"), userMessage("compacted")];
    expect(tracker.currentTokens(replaced)).toBe(totalTokens(replaced, counter));

    tracker.reset();
    expect(tracker.currentTokens(messages)).toBe(local);

    tracker.recordUsage(usage(0, 0), 2);
    expect(tracker.currentTokens(messages)).toBe(local);
  });
});
