import { describe, expect, it } from "vitest";
import { DEFAULT_CACHE_CONFIG, modelConfig } from "../model/llm-config.js";
import type { Message } from "../model/llm-messages.js";
import { toCallOptions } from "./ai-sdk-prompt.js";
import type { StreamRequest } from "./provider.js";

const base: StreamRequest = {
  model: modelConfig({ protocol: "anthropic-messages", model: "claude-test" }),
  systemPrompt: "be brief",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 0 }],
  tools: [],
  thinkingLevel: "off",
  cache: DEFAULT_CACHE_CONFIG,
};

describe("toCallOptions", () => {
  const history: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      timestamp: 0,
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm", signature: "s1" },
        { type: "thinking", thinking: "unsigned" },
        { type: "text", text: "calling" },
        { type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } },
      ],
      stopReason: "toolUse",
      model: "m",
      provider: "anthropic",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      timestamp: 0,
    },
    {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [{ type: "text", text: "boom" }],
      isError: true,
      timestamp: 0,
    },
  ];

  it("system, images, signed thinking, tool calls/results, tools, cache markers, thinking budget", () => {
    const call = toCallOptions(
      {
        ...base,
        messages: history,
        tools: [
          { name: "read", description: "Read", parameters: { type: "object", properties: {} } },
          { name: "ls", description: "List", parameters: { type: "object", properties: {} } },
        ],
        thinkingLevel: "low",
        maxTokens: 1000,
        temperature: 0.2,
      },
      new AbortController().signal,
    );
    const cache = { anthropic: { cacheControl: { type: "ephemeral" } } };
    expect(call.prompt).toEqual([
      { role: "system", content: "be brief", providerOptions: cache },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "file", data: "AAAA", mediaType: "image/png" },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "hmm",
            providerOptions: { anthropic: { signature: "s1" }, bedrock: { signature: "s1" } },
          },
          { type: "text", text: "calling" },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "x" } },
        ],
        providerOptions: cache,
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "read",
            output: { type: "error-text", value: "boom" },
          },
        ],
      },
    ]);
    expect(
      call.tools?.map((t) => (t.type === "function" ? t.providerOptions : "provider")),
    ).toEqual([undefined, cache]);
    // REQ-129 + decision 0002: low (512) is raised to Anthropic's 1024 floor
    expect(call.providerOptions).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } },
    });
    expect(call.maxOutputTokens).toBe(1000);
    expect(call.temperature).toBe(0.2);
    expect(call.abortSignal).toBeDefined();
  });

  it("disabled cache → no markers; other protocols drop thinking blocks", () => {
    const call = toCallOptions(
      {
        ...base,
        model: modelConfig({ protocol: "google-gemini", model: "gemini-2.5-flash" }),
        messages: history,
        cache: { enabled: true, strategy: { type: "disabled" } },
        thinkingLevel: "medium",
      },
      undefined,
    );
    expect(JSON.stringify(call?.prompt)).not.toContain("providerOptions");
    expect(JSON.stringify(call?.prompt)).not.toContain("reasoning");
    expect(call?.providerOptions).toEqual({
      google: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
    });
  });

  it("REQ-044: extension messages that slip past the types are never sent", () => {
    const extension = { role: "extension", kind: "ui-note", data: { text: "secret UI note" } };
    const messages = [...base.messages, extension] as unknown as Message[];
    const call = toCallOptions({ ...base, messages }, undefined);
    expect(JSON.stringify(call.prompt)).not.toContain("secret UI note");
    expect(call.prompt.map((m) => m.role)).toEqual(["system", "user"]);
  });
});
