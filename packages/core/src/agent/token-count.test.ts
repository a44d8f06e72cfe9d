import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../model/llm-messages.js";
import { userMessage } from "../model/llm-messages.js";
import {
  defaultTokenCounter,
  estimateTextTokens,
  heuristicTokenCounter,
  imageTokens,
  messageTokens,
  TOKENIZER_MAX_CHARS,
  textTokensAtMost,
  totalTokens,
} from "./token-count.js";
import type { TokenCounter } from "./types.js";

const heuristic = heuristicTokenCounter();
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };

function assistant(content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    stopReason: "stop",
    model: "m",
    provider: "p",
    usage,
    timestamp: 1,
  };
}

function toolResult(content: ToolResultMessage["content"]): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: "c1",
    toolName: "bash",
    content,
    isError: false,
    timestamp: 1,
  };
}

/** base64 text whose decoded size is exactly `bytes` */
function base64OfBytes(bytes: number): string {
  return Buffer.alloc(bytes, 7).toString("base64");
}

describe("heuristic counter", () => {
  it("REQ-054: ceil(utf8 bytes / 4)", () => {
    expect(estimateTextTokens("hello")).toBe(2);
    expect(heuristic.countText("hello")).toBe(2);
    expect(heuristic.countText("")).toBe(0);
    expect(heuristic.countText("abcd")).toBe(1);
    // 3 bytes per CJK character: 2 chars = 6 bytes → 2 tokens
    expect(heuristic.countText("漢字")).toBe(2);
  });
});

describe("messageTokens formulas", () => {
  it("REQ-055: user and assistant messages add 4 to their text", () => {
    expect(messageTokens(userMessage("hello"), heuristic)).toBe(2 + 4);
    expect(messageTokens(assistant([{ type: "text", text: "abcdefgh" }]), heuristic)).toBe(2 + 4);
  });

  it("REQ-055: tool results add 8", () => {
    expect(messageTokens(toolResult([{ type: "text", text: "abcd" }]), heuristic)).toBe(1 + 8);
  });

  it("REQ-055: a tool call counts its name plus its JSON arguments; thinking counts", () => {
    const args = { path: "src/a.ts" };
    const json = JSON.stringify(args);
    const m = assistant([
      { type: "thinking", thinking: "let me think" },
      { type: "toolCall", id: "c1", name: "read_file", arguments: args },
    ]);
    const expected =
      estimateTextTokens("let me think") +
      estimateTextTokens("read_file") +
      estimateTextTokens(json) +
      4;
    expect(messageTokens(m, heuristic)).toBe(expected);
  });

  it("REQ-055: images are clamp(raw_bytes / 750, 85, 16000)", () => {
    expect(imageTokens(base64OfBytes(100))).toBe(85);
    expect(imageTokens(base64OfBytes(75_000))).toBe(100);
    expect(imageTokens(base64OfBytes(75_001))).toBe(101);
    expect(imageTokens(base64OfBytes(20_000_000))).toBe(16_000);
    const m = toolResult([{ type: "image", data: base64OfBytes(150_000), mimeType: "image/png" }]);
    expect(messageTokens(m, heuristic)).toBe(200 + 8);
  });

  it("REQ-162: extension messages count 0 unless they carry text", () => {
    const silent: AgentMessage = { role: "extension", kind: "ui", data: { level: "info" } };
    const texty: AgentMessage = { role: "extension", kind: "note", data: { text: "abcdefgh" } };
    const plain: AgentMessage = { role: "extension", kind: "note", data: "abcd" };
    expect(messageTokens(silent, heuristic)).toBe(0);
    expect(messageTokens(texty, heuristic)).toBe(2 + 4);
    expect(messageTokens(plain, heuristic)).toBe(1 + 4);
  });

  it("totalTokens sums messages", () => {
    const ms = [userMessage("hello"), toolResult([{ type: "text", text: "abcd" }])];
    expect(totalTokens(ms, heuristic)).toBe(6 + 9);
    expect(totalTokens([], heuristic)).toBe(0);
  });
});

describe("default counter (gpt-tokenizer o200k_base)", () => {
  const counter = defaultTokenCounter();

  it("REQ-162: matches the o200k tokenizer on ordinary text and is one shared instance", () => {
    const text = "The quick brown fox jumps over the lazy dog.\nconst x = await fetch(url);";
    expect(counter.countText(text)).toBe(countTokens(text));
    expect(defaultTokenCounter()).toBe(counter);
    expect(messageTokens(userMessage(text))).toBe(countTokens(text) + 4);
  });

  it("counts special-token strings as plain text instead of throwing", () => {
    expect(counter.countText("a <|endoftext|> b")).toBeGreaterThan(3);
  });

  it("stays fast and close on pathological long runs (chunked)", () => {
    const start = performance.now();
    const run = counter.countText("a".repeat(100_000));
    const cjk = counter.countText("漢字かなカナ".repeat(10_000));
    expect(performance.now() - start).toBeLessThan(2_000);
    // exact is 12,500 for the a-run; chunking over-counts by at most one token per 128 chars
    expect(run).toBeGreaterThanOrEqual(12_500);
    expect(run).toBeLessThanOrEqual(12_500 + 100_000 / 128 + 1);
    expect(cjk).toBeGreaterThan(20_000);
  });

  it("samples texts above TOKENIZER_MAX_CHARS, staying within 10% of the exact count", () => {
    const line = "const value = compute(arg, { option: true }); // a comment\n";
    const text = line.repeat(Math.ceil((TOKENIZER_MAX_CHARS * 2) / line.length));
    const exact = countTokens(line) * (text.length / line.length);
    const sampled = counter.countText(text);
    expect(Math.abs(sampled - exact) / exact).toBeLessThan(0.1);
  });
});

describe("per-message cache", () => {
  it("counts each message once per counter", () => {
    let calls = 0;
    const counting: TokenCounter = {
      countText(text) {
        calls++;
        return text.length;
      },
    };
    const m = userMessage("abc");
    expect(messageTokens(m, counting)).toBe(7);
    expect(totalTokens([m, m, m], counting)).toBe(21);
    expect(calls).toBe(1);
    // a different counter has its own cache entry
    expect(messageTokens(m, heuristic)).toBe(5);
    expect(calls).toBe(1);
  });
});

describe("textTokensAtMost", () => {
  const counter = defaultTokenCounter();
  // a pair split by a long run's 128-character chunks: each half is encoded as U+FFFD
  const splitPairs = `${"a".repeat(127)}${"😀".repeat(200)}`;
  const texts = [
    "",
    "hello",
    'export const value3 = compute(3, "m0/f1.ts");\n'.repeat(40),
    "日本語のテキストと中文文本".repeat(50),
    "😀🎉👍".repeat(300),
    splitPairs,
    `lone ${"\ud800"} and ${"\udfff"} surrogates`,
    "\ud83d".repeat(500),
    "<|endoftext|> special strings as text",
    " ".repeat(1000),
    "x".repeat(TOKENIZER_MAX_CHARS + 1000),
    "😀".repeat(TOKENIZER_MAX_CHARS),
  ];

  it("is never below the default counter's count, for every shape of text", () => {
    for (const text of texts) {
      const most = textTokensAtMost(text, counter);
      expect(most).toBeDefined();
      expect(most).toBeGreaterThanOrEqual(counter.countText(text));
    }
  });

  it("is the heuristic counter's own count, and unknown for any other counter", () => {
    for (const text of texts.slice(0, 6)) {
      expect(textTokensAtMost(text, heuristic)).toBe(heuristic.countText(text));
    }
    const own: TokenCounter = { countText: (t) => t.length };
    expect(textTokensAtMost("hello", own)).toBeUndefined();
  });
});
