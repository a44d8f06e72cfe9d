import type { JSONObject, SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { ApiProtocol, CacheConfig, ThinkingLevel } from "../model/llm-config.js";
import { usesOpenAiCompatible } from "./model-factory.js";
import type { StreamRequest } from "./provider.js";

// Prompt caching (REQ-126/127) and thinking (REQ-129/130/131) expressed as AI SDK
// providerOptions. Where each protocol takes them:
// - Anthropic: `providerOptions.anthropic.cacheControl` on the system message, a function tool
//   and a message (the SDK puts `cache_control` on that message's last block). Max 4 breakpoints.
// - Bedrock: `providerOptions.bedrock.cachePoint` on the system message and on messages (the SDK
//   appends a `cachePoint` block). @ai-sdk/amazon-bedrock has no cache point for tool definitions,
//   so the tools breakpoint is not emitted there.
// - OpenAI (chat, responses, Azure) and Gemini/Vertex cache long prefixes implicitly and report
//   cached tokens in usage; they take no markers, so the strategy is a no-op for them.

/** Where the breakpoints go for a request; `messageIndex` indexes request.messages. */
export interface CacheBreakpoints {
  system: boolean;
  lastTool: boolean;
  messageIndex: number | undefined;
}

/** REQ-126 (auto: system, last tool, second-to-last message) and REQ-127 (manual / disabled). */
export function cacheBreakpoints(cache: CacheConfig, messageCount: number): CacheBreakpoints {
  const secondToLast = messageCount >= 2 ? messageCount - 2 : undefined;
  if (!cache.enabled) return { system: false, lastTool: false, messageIndex: undefined };
  const strategy = cache.strategy;
  switch (strategy.type) {
    case "auto":
      return { system: true, lastTool: true, messageIndex: secondToLast };
    case "disabled":
      return { system: false, lastTool: false, messageIndex: undefined };
    case "manual":
      return {
        system: strategy.cacheSystem,
        lastTool: strategy.cacheTools,
        messageIndex: strategy.cacheMessages ? secondToLast : undefined,
      };
    default:
      return strategy satisfies never;
  }
}

/** The per-part marker a protocol takes, or undefined when it caches implicitly. */
export function cacheMarker(
  protocol: ApiProtocol,
  target: "system" | "tool" | "message",
): SharedV3ProviderOptions | undefined {
  switch (protocol) {
    case "anthropic-messages":
      return { anthropic: { cacheControl: { type: "ephemeral" } } };
    case "bedrock-converse":
      return target === "tool" ? undefined : { bedrock: { cachePoint: { type: "default" } } };
    case "openai-chat":
    case "openai-responses":
    case "azure-openai-responses":
    case "google-gemini":
    case "google-vertex":
    case "offline":
      return undefined;
    default:
      return protocol satisfies never;
  }
}

/** REQ-129: the spec's budgets per level. */
export const THINKING_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 128,
  low: 512,
  medium: 2048,
  high: 8192,
};

/**
 * The Anthropic API rejects `budget_tokens` < 1024, so the spec's minimal/low budgets are raised
 * to 1024 (docs/decisions/0002-thinking-budgets.md). `max_tokens` must exceed the budget: the AI
 * SDK adds the budget to maxOutputTokens for Anthropic and Bedrock-Anthropic, so a request's
 * maxTokens keeps meaning "tokens for the visible answer".
 */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;

export function anthropicThinkingBudget(level: Exclude<ThinkingLevel, "off">): number {
  return Math.max(ANTHROPIC_MIN_THINKING_BUDGET, THINKING_BUDGETS[level]);
}

/** REQ-130: minimal and low both map to "low". */
export function openAiReasoningEffort(
  level: Exclude<ThinkingLevel, "off">,
): "low" | "medium" | "high" {
  switch (level) {
    case "minimal":
    case "low":
      return "low";
    case "medium":
      return "medium";
    case "high":
      return "high";
    default:
      return level satisfies never;
  }
}

export interface CallShape {
  /** call-level providerOptions (thinking, REQ-147 switches) */
  providerOptions: SharedV3ProviderOptions;
  /** what to pass as maxOutputTokens (undefined when the max goes through providerOptions) */
  maxOutputTokens: number | undefined;
}

/** Thinking and REQ-147 settings for one request, per protocol. */
export function shapeCall(request: StreamRequest): CallShape {
  const { model, thinkingLevel: level, maxTokens } = request;
  const protocol = model.protocol;
  const on = level !== "off";
  switch (protocol) {
    case "anthropic-messages":
      return {
        providerOptions: on
          ? {
              anthropic: {
                thinking: { type: "enabled", budgetTokens: anthropicThinkingBudget(level) },
              },
            }
          : {},
        maxOutputTokens: maxTokens,
      };
    case "openai-chat": {
      // chat: reasoning_effort only when the model is known to take it (REQ-130)
      const effort = on && model.supportsReasoningEffort ? openAiReasoningEffort(level) : undefined;
      if (usesOpenAiCompatible(model)) {
        // max_tokens renaming and the developer role happen in the body transform (model-factory)
        return {
          providerOptions: effort ? { openaiCompatible: { reasoningEffort: effort } } : {},
          maxOutputTokens: maxTokens,
        };
      }
      const openai: JSONObject = {};
      if (effort) openai.reasoningEffort = effort;
      if (model.supportsDeveloperRole) openai.systemMessageMode = "developer";
      const completionField = model.maxTokensField === "max_completion_tokens";
      if (completionField && maxTokens !== undefined) openai.maxCompletionTokens = maxTokens;
      return {
        providerOptions: Object.keys(openai).length > 0 ? { openai } : {},
        maxOutputTokens: completionField ? undefined : maxTokens,
      };
    }
    case "openai-responses":
    case "azure-openai-responses": {
      // Responses: always sent; the SDK drops it for models it knows are not reasoning models.
      // supportsReasoningEffort forces it (Azure deployment names hide the model family).
      const openai: JSONObject = {};
      if (on) {
        openai.reasoningEffort = openAiReasoningEffort(level);
        openai.reasoningSummary = "auto";
        if (model.supportsReasoningEffort) openai.forceReasoning = true;
      }
      return {
        providerOptions: Object.keys(openai).length > 0 ? { openai } : {},
        maxOutputTokens: maxTokens,
      };
    }
    case "google-gemini":
    case "google-vertex":
      return {
        providerOptions: on
          ? {
              google: {
                thinkingConfig: { thinkingBudget: THINKING_BUDGETS[level], includeThoughts: true },
              },
            }
          : {},
        maxOutputTokens: maxTokens,
      };
    case "bedrock-converse":
      // Anthropic models on Bedrock take a budget (same 1024 floor); others an effort.
      return {
        providerOptions: on
          ? {
              bedrock: {
                reasoningConfig: isBedrockAnthropic(model.model)
                  ? { type: "enabled", budgetTokens: anthropicThinkingBudget(level) }
                  : { type: "enabled", maxReasoningEffort: openAiReasoningEffort(level) },
              },
            }
          : {},
        maxOutputTokens: maxTokens,
      };
    case "offline":
      return { providerOptions: {}, maxOutputTokens: maxTokens };
    default:
      return protocol satisfies never;
  }
}

function isBedrockAnthropic(modelId: string): boolean {
  return modelId.includes("anthropic.") || modelId.includes("claude");
}
