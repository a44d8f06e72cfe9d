import { defaultConvertToLlm } from "../../agent/loop.js";
import { canCountAnthropicTokens } from "../../llm/anthropic-token-count.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { StreamRequest } from "../../llm/provider.js";
import { DEFAULT_CACHE_CONFIG, type ModelConfig } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { toolDefinition } from "../../tools/tool.js";
import { countRequestTokens } from "../optimization/request-tokens.js";
import type { StoredSession } from "./stored-session.js";
import { toAgentMessages } from "./to-agent-messages.js";

// The provider's own count of a request, where the provider has one (token-calibration.ts says
// why). Anthropic's count_tokens is asked before a request once the request nears the
// optimization trigger: there the exact figure decides whether to optimize; far below it the
// estimate, calibrated by reported usage, is close enough and costs no round trip. Counts are
// cached per message (AnthropicTokenCounts: a request is named by its messages' ids), so the
// same request is never counted twice.

/** From this share of the trigger on, an Anthropic request is counted exactly before it is sent. */
export const EXACT_COUNT_FROM = 0.5;

/** How long a count may take before the request goes on with the calibrated estimate. */
const COUNT_TIMEOUT_MS = 5_000;

/** The session's model config, or undefined when it cannot be used (the run reports why). */
function modelOf(core: StoredSession): ModelConfig | undefined {
  const { deps, config } = core;
  try {
    return config.model
      ? sessionModelConfig(deps.model(), config.model, deps.modelEnv())
      : deps.model();
  } catch {
    return undefined;
  }
}

/**
 * Whether the provider's reported usage says anything about the estimate: not for the built-in
 * offline model (and the scripted test models on its protocol), whose usage is itself estimated.
 */
export function calibratesFromUsage(core: StoredSession): boolean {
  const model = modelOf(core);
  return countsByProvider(core) && model !== undefined && model.protocol !== "offline";
}

/** The session counts in the provider's tokens unless its optimization config says `estimate`. */
function countsByProvider(core: StoredSession): boolean {
  return core.config.optimization.token_counting !== "estimate";
}

function canCount(model: ModelConfig): boolean {
  return canCountAnthropicTokens({
    model,
    systemPrompt: "",
    messages: [],
    tools: [],
    thinkingLevel: "off",
    cache: DEFAULT_CACHE_CONFIG,
  });
}

/**
 * Before a request of `messages` (the view as it stands): near the trigger, the provider's exact
 * count calibrates the session's estimate. A failed or slow count is logged and leaves the
 * calibration as it was: counting is an aid, never a reason for a request to fail.
 */
export async function calibrateBeforeRequest(
  core: StoredSession,
  request: { systemPrompt: string; tools: readonly AnyAgentTool[]; messages: ContextMessage[] },
  signal: AbortSignal,
): Promise<void> {
  const model = modelOf(core);
  if (!countsByProvider(core) || model === undefined || request.messages.length === 0) return;
  if (!canCount(model)) return;
  const tools = request.tools.map(toolDefinition);
  const estimate = countRequestTokens({ ...request, tools }).total;
  const window = core.config.model?.context_window ?? core.deps.model().contextWindow ?? 100_000;
  const trigger = core.config.optimization.trigger_ratio * window;
  if (core.tokens.scale(estimate) < EXACT_COUNT_FROM * trigger) return;
  const streamRequest: StreamRequest = {
    model,
    systemPrompt: request.systemPrompt,
    messages: defaultConvertToLlm(toAgentMessages(request.messages)),
    tools,
    thinkingLevel: core.config.model?.thinking_level ?? "off",
    cache: DEFAULT_CACHE_CONFIG,
  };
  try {
    const exact = await core.exactCounts.count(
      streamRequest,
      request.messages.map((m) => m.id),
      AbortSignal.any([signal, AbortSignal.timeout(COUNT_TIMEOUT_MS)]),
    );
    core.tokens.observe(estimate, exact, "provider_count");
  } catch (error) {
    signal.throwIfAborted();
    core.deps.logger.warn("the provider's token count failed; the estimate is used", {
      session: core.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
