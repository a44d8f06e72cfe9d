import { describe, expect, it } from "vitest";
import {
  DEFAULT_CACHE_CONFIG,
  type ModelConfigInput,
  modelConfig,
  type ThinkingLevel,
} from "../model/llm-config.js";
import {
  anthropicThinkingBudget,
  cacheBreakpoints,
  cacheMarker,
  openAiReasoningEffort,
  shapeCall,
} from "./cache-and-thinking.js";
import type { StreamRequest } from "./provider.js";

const req = (
  input: ModelConfigInput,
  thinkingLevel: ThinkingLevel,
  maxTokens?: number,
): StreamRequest => ({
  model: modelConfig(input),
  systemPrompt: "s",
  messages: [],
  tools: [],
  thinkingLevel,
  cache: DEFAULT_CACHE_CONFIG,
  ...(maxTokens !== undefined ? { maxTokens } : {}),
});

describe("REQ-126/127 cache breakpoints", () => {
  it("auto: system, last tool, second-to-last message", () => {
    expect(cacheBreakpoints(DEFAULT_CACHE_CONFIG, 5)).toEqual({
      system: true,
      lastTool: true,
      messageIndex: 3,
    });
    expect(cacheBreakpoints(DEFAULT_CACHE_CONFIG, 1)).toEqual({
      system: true,
      lastTool: true,
      messageIndex: undefined,
    });
  });
  it("manual per flag; disabled and enabled:false → none", () => {
    expect(
      cacheBreakpoints(
        {
          enabled: true,
          strategy: { type: "manual", cacheSystem: false, cacheTools: true, cacheMessages: true },
        },
        4,
      ),
    ).toEqual({ system: false, lastTool: true, messageIndex: 2 });
    const none = { system: false, lastTool: false, messageIndex: undefined };
    expect(cacheBreakpoints({ enabled: true, strategy: { type: "disabled" } }, 4)).toEqual(none);
    expect(cacheBreakpoints({ enabled: false, strategy: { type: "auto" } }, 4)).toEqual(none);
  });
  it("markers: Anthropic cacheControl, Bedrock cachePoint (no tool point), others implicit", () => {
    expect(cacheMarker("anthropic-messages", "tool")).toEqual({
      anthropic: { cacheControl: { type: "ephemeral" } },
    });
    expect(cacheMarker("bedrock-converse", "system")).toEqual({
      bedrock: { cachePoint: { type: "default" } },
    });
    expect(cacheMarker("bedrock-converse", "tool")).toBeUndefined();
    expect(cacheMarker("openai-responses", "message")).toBeUndefined();
    expect(cacheMarker("google-gemini", "system")).toBeUndefined();
  });
});

describe("REQ-129/130 thinking", () => {
  it("Anthropic budgets with the 1024 floor (decision 0002)", () => {
    expect(anthropicThinkingBudget("minimal")).toBe(1024);
    expect(anthropicThinkingBudget("low")).toBe(1024);
    expect(anthropicThinkingBudget("medium")).toBe(2048);
    expect(anthropicThinkingBudget("high")).toBe(8192);
    expect(shapeCall(req({ protocol: "anthropic-messages", model: "c" }, "off", 100))).toEqual({
      providerOptions: {},
      maxOutputTokens: 100,
    });
  });
  it("OpenAI effort mapping", () => {
    expect(
      ["minimal", "low", "medium", "high"].map((l) => openAiReasoningEffort(l as "low")),
    ).toEqual(["low", "low", "medium", "high"]);
  });
  it("openai chat: effort only with supportsReasoningEffort; REQ-147 switches", () => {
    expect(
      shapeCall(req({ protocol: "openai-chat", model: "gpt-4.1" }, "high", 50)).providerOptions,
    ).toEqual({});
    expect(
      shapeCall(
        req(
          {
            protocol: "openai-chat",
            model: "o3",
            supportsReasoningEffort: true,
            supportsDeveloperRole: true,
            maxTokensField: "max_completion_tokens",
          },
          "medium",
          50,
        ),
      ),
    ).toEqual({
      providerOptions: {
        openai: {
          reasoningEffort: "medium",
          systemMessageMode: "developer",
          maxCompletionTokens: 50,
        },
      },
      maxOutputTokens: undefined,
    });
    expect(
      shapeCall(
        req(
          {
            protocol: "openai-chat",
            model: "q",
            baseUrl: "http://localhost:1/v1",
            supportsReasoningEffort: true,
          },
          "low",
        ),
      ).providerOptions,
    ).toEqual({ openaiCompatible: { reasoningEffort: "low" } });
  });
  it("responses always carry effort; gemini thinkingConfig; bedrock reasoningConfig", () => {
    expect(
      shapeCall(req({ protocol: "openai-responses", model: "o4-mini" }, "minimal")).providerOptions,
    ).toEqual({
      openai: { reasoningEffort: "low", reasoningSummary: "auto" },
    });
    expect(
      shapeCall(req({ protocol: "google-vertex", model: "gemini" }, "high")).providerOptions,
    ).toEqual({
      google: { thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } },
    });
    expect(
      shapeCall(req({ protocol: "bedrock-converse", model: "us.anthropic.claude-x" }, "low"))
        .providerOptions,
    ).toEqual({
      bedrock: { reasoningConfig: { type: "enabled", budgetTokens: 1024 } },
    });
    expect(
      shapeCall(req({ protocol: "bedrock-converse", model: "openai.gpt-oss-120b" }, "high"))
        .providerOptions,
    ).toEqual({
      bedrock: { reasoningConfig: { type: "enabled", maxReasoningEffort: "high" } },
    });
  });
});
