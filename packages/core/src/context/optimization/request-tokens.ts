import {
  defaultTokenCounter,
  imageTokens,
  TOOL_RESULT_OVERHEAD,
  textTokensAtMost,
  USER_ASSISTANT_OVERHEAD,
} from "../../agent/token-count.js";
import type { TokenCounter } from "../../agent/types.js";
import { mcpResourceImage } from "../../mcp/resource-message.js";
import type { ToolDefinition } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { OptimizationConfig } from "../../model/session-config.js";
import { toModelText } from "./model-view.js";

// Token accounting of one model request (context-manager spec "Token limit detection"): the system
// prompt, the messages as the model sees them (model-view.ts) and the tool definitions. Counting
// uses the runtime's default counter (gpt-tokenizer o200k) and the runtime's per-message overheads,
// so the Context Manager and the agent loop agree on what "full" means.

/**
 * Message content never changes once pooled, so each message object is counted once per counter.
 * Weak maps let dropped messages (and counters) be collected.
 */
const messageCache = new WeakMap<TokenCounter, WeakMap<ContextMessage, number>>();
const toolCache = new WeakMap<TokenCounter, WeakMap<ToolDefinition, number>>();

function cacheFor<K extends object>(
  root: WeakMap<TokenCounter, WeakMap<K, number>>,
  counter: TokenCounter,
): WeakMap<K, number> {
  let perCounter = root.get(counter);
  if (!perCounter) {
    perCounter = new WeakMap();
    root.set(counter, perCounter);
  }
  return perCounter;
}

/** A message's tokens with its text counted by `countText` (the counter's, or a bound of it). */
function computeMessageTokens(
  message: ContextMessage,
  countText: (text: string) => number,
): number {
  const body = message.body;
  const overhead =
    body.message_type === "tool_result" ? TOOL_RESULT_OVERHEAD : USER_ASSISTANT_OVERHEAD;
  let images = 0;
  if (body.message_type === "tool_result") {
    for (const block of body.content) if (block.type === "image") images += imageTokens(block.data);
  }
  if (body.message_type === "mcp_resource") {
    const image = mcpResourceImage(body);
    if (image !== undefined) images += imageTokens(image.data);
  }
  return overhead + countText(toModelText(message)) + images;
}

/** Tokens of one message as the model sees it, with the runtime's per-message overhead. Cached. */
export function contextMessageTokens(
  message: ContextMessage,
  counter: TokenCounter = defaultTokenCounter(),
): number {
  const cache = cacheFor(messageCache, counter);
  let tokens = cache.get(message);
  if (tokens === undefined) {
    tokens = computeMessageTokens(message, (text) => counter.countText(text));
    cache.set(message, tokens);
  }
  return tokens;
}

/** The cached count of a message, if it was counted with this counter before. */
export function cachedContextMessageTokens(
  message: ContextMessage,
  counter: TokenCounter = defaultTokenCounter(),
): number | undefined {
  return cacheFor(messageCache, counter).get(message);
}

/** What the model is told about one tool: the JSON of its name, description and parameters. Cached. */
export function toolDefinitionTokens(
  tool: ToolDefinition,
  counter: TokenCounter = defaultTokenCounter(),
): number {
  const cache = cacheFor(toolCache, counter);
  let tokens = cache.get(tool);
  if (tokens === undefined) {
    const json = JSON.stringify({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    });
    tokens = counter.countText(json);
    cache.set(tool, tokens);
  }
  return tokens;
}

export interface RequestTokens {
  systemPrompt: number;
  tools: number;
  messages: number;
  /** systemPrompt + tools + messages */
  total: number;
}

export interface RequestShape {
  systemPrompt: string;
  messages: readonly ContextMessage[];
  tools: readonly ToolDefinition[];
}

/** The whole request's token count, broken down by part. */
export function countRequestTokens(
  request: RequestShape,
  counter: TokenCounter = defaultTokenCounter(),
): RequestTokens {
  const systemPrompt = counter.countText(request.systemPrompt);
  let tools = 0;
  for (const tool of request.tools) tools += toolDefinitionTokens(tool, counter);
  let messages = 0;
  for (const message of request.messages) messages += contextMessageTokens(message, counter);
  return { systemPrompt, tools, messages, total: systemPrompt + tools + messages };
}

/**
 * At least `countRequestTokens(request, counter).total`, found without tokenizing a message that
 * has not been counted yet: such a message counts as the most tokens its text can hold
 * (token-count.ts `textTokensAtMost`); counted ones, the system prompt and the tools as counted.
 * Undefined when no bound is known for the counter.
 */
export function requestTokensAtMost(
  request: RequestShape,
  counter: TokenCounter = defaultTokenCounter(),
): number | undefined {
  let messages = 0;
  for (const message of request.messages) {
    const counted = cachedContextMessageTokens(message, counter);
    if (counted !== undefined) {
      messages += counted;
      continue;
    }
    let known = true;
    messages += computeMessageTokens(message, (text) => {
      const most = textTokensAtMost(text, counter);
      if (most === undefined) known = false;
      return most ?? 0;
    });
    if (!known) return undefined;
  }
  let tools = 0;
  for (const tool of request.tools) tools += toolDefinitionTokens(tool, counter);
  return counter.countText(request.systemPrompt) + tools + messages;
}

/** Optimization triggers when the request would use more than trigger_ratio of the window. */
export function needsOptimization(
  count: number,
  config: OptimizationConfig,
  contextWindow: number,
): boolean {
  return count > config.trigger_ratio * contextWindow;
}

/**
 * What a triggered optimization aims for: target_ratio of the window, kept well below the trigger
 * (hysteresis, learned from the runtime's optimization) so that several turns fit before the next
 * optimization invalidates the provider's prompt cache again. A target_ratio configured above
 * trigger_ratio is clamped to the trigger.
 */
export function optimizationTarget(config: OptimizationConfig, contextWindow: number): number {
  return Math.floor(Math.min(config.target_ratio, config.trigger_ratio) * contextWindow);
}
