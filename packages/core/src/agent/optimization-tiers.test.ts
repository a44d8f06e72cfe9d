import { describe, expect, it } from "vitest";
import type {
  AgentMessage,
  AssistantMessage,
  ToolResultMessage,
  UserMessage,
} from "../model/llm-messages.js";
import { messageText, userMessage } from "../model/llm-messages.js";
import { findPairingProblem } from "./message-blocks.js";
import {
  dropMiddle,
  summarizeOldTurns,
  TOOL_OUTPUT_MAX_LINE_CHARS,
  truncateText,
  truncateToolOutputs,
} from "./optimization-tiers.js";
import { defaultTokenCounter, messageTokens } from "./token-count.js";
import type { TokenCounter } from "./types.js";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const numbered = (n: number): string =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

function call(id: string, name = "bash", text = "", errorMessage?: string): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  if (text) content.push({ type: "text", text });
  if (id) content.push({ type: "toolCall", id, name, arguments: { cmd: "ls" } });
  return {
    role: "assistant",
    content,
    stopReason: id ? "toolUse" : "stop",
    model: "m",
    provider: "p",
    usage,
    timestamp: 2,
    ...(errorMessage ? { errorMessage } : {}),
  };
}

function result(id: string, text: string, isError = false, name = "bash"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: [{ type: "text", text }],
    isError,
    timestamp: 3,
  };
}

describe("tier 1: the tokens of a cut output", () => {
  const code = Array.from(
    { length: 400 },
    (_, i) =>
      `  const value${i} = compute(input[${i}], { retries: ${i % 7}, label: "step ${i}" });`,
  ).join("\n");
  /** the default counter, counting the texts it is asked to tokenize */
  function countingCounter(): TokenCounter & { calls: number } {
    const inner = defaultTokenCounter();
    const counter = {
      calls: 0,
      countText(text: string) {
        counter.calls++;
        return inner.countText(text);
      },
    };
    return counter;
  }

  it("is estimated from the counted original without tokenizing again, within 10% of exact", () => {
    const counter = countingCounter();
    const original = result("c1", code);
    messageTokens(original, counter);
    const cut = truncateToolOutputs([original], 50).messages[0] as ToolResultMessage;
    expect(cut).not.toBe(original);
    const before = counter.calls;
    const estimate = messageTokens(cut, counter);
    expect(counter.calls).toBe(before);
    const exact = messageTokens(structuredClone(cut), defaultTokenCounter());
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.1);
  });

  it("is counted exactly when the original was never counted", () => {
    const counter = countingCounter();
    const cut = truncateToolOutputs([result("c2", code)], 50).messages[0] as ToolResultMessage;
    expect(messageTokens(cut, counter)).toBe(
      messageTokens(structuredClone(cut), defaultTokenCounter()),
    );
    expect(counter.calls).toBeGreaterThan(0);
  });
});

describe("tier 1: truncate tool outputs", () => {
  it("REQ-057: a 200-line output with maxLines 50 becomes 50 lines around the marker", () => {
    const out = truncateText(numbered(200), 50).split("\n");
    expect(out).toHaveLength(50);
    expect(out.slice(0, 25)).toEqual(Array.from({ length: 25 }, (_, i) => `line ${i + 1}`));
    expect(out[25]).toBe("[... 151 lines truncated ...]");
    expect(out.slice(26)).toEqual(Array.from({ length: 24 }, (_, i) => `line ${177 + i}`));
  });

  it("REQ-057: outputs within the limit and non-tool messages are left alone (same objects)", () => {
    const user = userMessage(numbered(200));
    const small = result("c1", numbered(50));
    const messages: AgentMessage[] = [user, call("c1"), small];
    const tier = truncateToolOutputs(messages, 50);
    expect(tier.changed).toBe(false);
    expect(tier.messages).toBe(messages);
  });

  it("REQ-057: truncates only the text blocks of tool results, keeps images, caches the result", () => {
    const big: ToolResultMessage = {
      ...result("c1", numbered(120)),
      content: [
        { type: "text", text: numbered(120) },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
    };
    const messages: AgentMessage[] = [userMessage("go"), call("c1"), big];
    const first = truncateToolOutputs(messages, 10);
    const truncated = first.messages[2] as ToolResultMessage;
    expect(first.changed).toBe(true);
    expect(messageText(truncated).split("\n")).toHaveLength(10);
    expect(truncated.content[1]).toBe(big.content[1]);
    expect(truncated.toolCallId).toBe("c1");
    expect(first.messages[0]).toBe(messages[0]);
    // deterministic and cached: the same source message gives the same object next time
    expect(truncateToolOutputs(messages, 10).messages[2]).toBe(truncated);
    expect(truncateToolOutputs(messages, 20).messages[2]).not.toBe(truncated);
  });

  it("caps absurdly long single lines by characters", () => {
    const line = "x".repeat(50_000);
    const out = truncateText(`short\n${line}`, 50);
    const lines = out.split("\n");
    expect(lines[0]).toBe("short");
    expect(lines[1]!.length).toBeLessThan(TOOL_OUTPUT_MAX_LINE_CHARS + 50);
    expect(lines[1]).toContain(`[... ${50_000 - TOOL_OUTPUT_MAX_LINE_CHARS} chars truncated ...]`);
  });

  it("never splits a surrogate pair when capping a line", () => {
    const emoji = "😀".repeat(5_000);
    const out = truncateText(emoji, 50);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(out).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe("tier 2: summarize old turns", () => {
  const history = (): AgentMessage[] => [
    userMessage("fix the build"), // 0
    call("a", "read_file", "I will read the config first.\nMore detail."), // 1
    result("a", numbered(120), false, "read_file"), // 2
    call("b", "bash"), // 3
    result("b", "command not found: foo\nexit 127", true), // 4
    call("", "", "Done, the build is fixed."), // 5
    userMessage("thanks, now run the tests"), // 6
    call("c", "bash", "Running tests."), // 7
    result("c", numbered(5)), // 8
    call("", "", "All green."), // 9
  ];

  it("REQ-058: replaces older assistant+tool-result groups with one-line [Summary] user messages", () => {
    const messages = history();
    const tier = summarizeOldTurns(messages, 4);
    expect(tier.changed).toBe(true);
    const out = tier.messages;
    expect(out).toHaveLength(2 + 4);
    expect(out[0]).toBe(messages[0]);
    const summary = out[1] as UserMessage;
    expect(summary.role).toBe("user");
    const text = messageText(summary);
    expect(text.startsWith("[Summary] ")).toBe(true);
    expect(text).not.toContain("\n");
    expect(text).toContain('assistant: "I will read the config first."');
    expect(text).toContain("read_file → ok, 120 lines");
    expect(text).toContain('bash → error: "command not found: foo"');
    // the recent messages are untouched, same objects
    expect(out.slice(2)).toEqual(messages.slice(6));
    for (const [i, m] of out.slice(2).entries()) expect(m).toBe(messages[6 + i]);
    expect(findPairingProblem(out)).toBeUndefined();
  });

  it("REQ-058: the keepRecent boundary moves back so a tool result keeps its call", () => {
    const messages = history();
    // the last 2 messages start at index 8, a tool result: the tail must start at its call (7)
    const out = summarizeOldTurns(messages, 2).messages;
    expect(out.slice(-3)).toEqual(messages.slice(7));
    expect(findPairingProblem(out)).toBeUndefined();
  });

  it("REQ-058: nothing to do when everything is recent", () => {
    const messages = history();
    expect(summarizeOldTurns(messages, 10).messages).toBe(messages);
    expect(summarizeOldTurns(messages, 50).messages).toBe(messages);
  });

  it("summaries are deterministic and reused for the same run", () => {
    const messages = history();
    expect(summarizeOldTurns(messages, 4).messages[1]).toBe(
      summarizeOldTurns(messages, 4).messages[1],
    );
  });

  it("summarizes provider errors and keeps extension messages in place", () => {
    const note: AgentMessage = { role: "extension", kind: "ui", data: {} };
    const messages: AgentMessage[] = [
      userMessage("q"),
      call("", "", "", "overloaded_error: try again"),
      note,
      userMessage("again"),
      call("", "", "ok"),
    ];
    const out = summarizeOldTurns(messages, 2).messages;
    expect(messageText(out[1]!)).toContain('error: "overloaded_error: try again"');
    expect(out[2]).toBe(note);
  });
});

describe("tier 3: drop the middle", () => {
  const chain = (n: number): AgentMessage[] =>
    Array.from({ length: n }, (_, i) =>
      i % 2 === 0 ? userMessage(`u${i}`) : call("", "", `a${i}`),
    );

  it("REQ-059/REQ-164: keeps head, marker, tail in that order", () => {
    const messages = chain(12);
    const out = dropMiddle(messages, 2, 4).messages;
    expect(out).toHaveLength(2 + 1 + 4);
    expect(out.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(messageText(out[2]!)).toBe("[Context compacted: 6 earlier messages omitted]");
    expect(out[2]!.role).toBe("user");
    expect(out.slice(3)).toEqual(messages.slice(8));
  });

  it("REQ-164: no-op when head and tail cover everything (fewer messages than keepFirst + keepRecent)", () => {
    const messages = chain(5);
    expect(dropMiddle(messages, 2, 3).messages).toBe(messages);
    expect(dropMiddle(messages, 10, 0).messages).toBe(messages);
    expect(dropMiddle(messages, 0, 10).messages).toBe(messages);
  });

  it("REQ-059: head and tail boundaries move to keep tool calls with their results", () => {
    const messages: AgentMessage[] = [
      userMessage("task"), // 0
      call("h", "bash"), // 1  head (keepFirst 2) ends inside this block
      result("h", "x"), // 2
      userMessage("m1"), // 3
      call("m", "bash"), // 4 dropped
      result("m", "y"), // 5 dropped
      call("t", "bash"), // 6 tail (keepRecent 1 → 7) moves back here
      result("t", "z"), // 7
    ];
    const out = dropMiddle(messages, 2, 1).messages;
    expect(out.slice(0, 3)).toEqual(messages.slice(0, 3));
    expect(messageText(out[3]!)).toContain("3 earlier messages omitted");
    expect(out.slice(4)).toEqual(messages.slice(6));
    expect(findPairingProblem(out)).toBeUndefined();
  });

  it("keepFirst 0 puts the marker first, so the history starts with a user message", () => {
    const messages = chain(8);
    const out = dropMiddle(messages, 0, 3).messages;
    expect(out[0]!.role).toBe("user");
    expect(messageText(out[0]!)).toContain("5 earlier messages omitted");
  });
});
