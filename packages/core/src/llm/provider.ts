import type {
  ApiProtocol,
  CacheConfig,
  ModelConfig,
  ThinkingLevel,
  ToolDefinition,
} from "../model/llm-config.js";
import type { AssistantMessage, Message } from "../model/llm-messages.js";

/** REQ-015: everything one request to a model needs. */
export interface StreamRequest {
  model: ModelConfig;
  systemPrompt: string;
  messages: Message[];
  tools: ToolDefinition[];
  thinkingLevel: ThinkingLevel;
  maxTokens?: number;
  temperature?: number;
  cache: CacheConfig;
}

/**
 * REQ-020 / REQ-072 / REQ-073: provider failures are values. `kind` decides retry:
 * only `rate_limited` and `network` are retryable (overloaded is treated like rate limiting).
 */
export type ProviderError =
  | { kind: "rate_limited"; message: string; retryAfterMs?: number; status?: number }
  | { kind: "overloaded"; message: string; retryAfterMs?: number; status?: number }
  | { kind: "network"; message: string }
  | { kind: "auth"; message: string; status?: number }
  | { kind: "context_overflow"; message: string; status?: number }
  | { kind: "api"; message: string; status?: number }
  | { kind: "cancelled"; message: string }
  | { kind: "other"; message: string };

export function isRetryable(error: ProviderError): boolean {
  return error.kind === "rate_limited" || error.kind === "network" || error.kind === "overloaded";
}

export function retryAfterMs(error: ProviderError): number | undefined {
  return error.kind === "rate_limited" || error.kind === "overloaded"
    ? error.retryAfterMs
    : undefined;
}

/**
 * What a provider stream yields. The last event is always `done` or `error`; nothing follows it.
 * `partial` is the assistant message assembled so far (the same object, updated in place: do not
 * keep references to it across events if you need a snapshot).
 */
export type ProviderEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "textDelta"; delta: string; partial: AssistantMessage }
  | { type: "thinkingDelta"; delta: string; partial: AssistantMessage }
  | { type: "toolCallDelta"; id: string; name: string; delta: string; partial: AssistantMessage }
  | { type: "done"; message: AssistantMessage }
  | { type: "error"; error: ProviderError; partial: AssistantMessage };

/**
 * REQ-020 / REQ-186. The contract: `stream` MUST NOT throw and its iterable MUST NOT throw.
 * Failures, including cancellation through `signal`, end the stream with an `error` event
 * (cancellation: kind "cancelled"). Retry is the loop's job, not the provider's.
 */
export interface StreamProvider {
  /** "anthropic", "openai", "openai_responses", "azure_openai", "google", "google_vertex", "bedrock", "mock", "offline" */
  readonly providerId: string;
  /**
   * The id of the provider that serves `model`, when this one routes to others (a registry
   * names the provider it would use); absent: `providerId`. Read through providerIdFor().
   */
  providerIdFor?(model: ModelConfig): string;
  stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
}

/** The id of the provider that really serves `model` (never a registry's own "registry"). */
export function providerIdFor(provider: StreamProvider, model: ModelConfig): string {
  return provider.providerIdFor?.(model) ?? provider.providerId;
}

/** Maps protocols to providers (REQ-042 / REQ-125); it is itself a StreamProvider. */
export interface ProviderLookup {
  providerFor(protocol: ApiProtocol): StreamProvider | undefined;
}
