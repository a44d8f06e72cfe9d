import { z } from "zod";

// Model / request configuration shared by every provider (REQ-014, 015, 016, 019, 147).

/** REQ-019 */
export const ThinkingLevelSchema = z.enum(["off", "minimal", "low", "medium", "high"]);
export type ThinkingLevel = z.infer<typeof ThinkingLevelSchema>;

/** REQ-014: where prompt-cache breakpoints go. */
export const CacheStrategySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auto") }),
  z.object({ type: z.literal("disabled") }),
  z.object({
    type: z.literal("manual"),
    cacheSystem: z.boolean(),
    cacheTools: z.boolean(),
    cacheMessages: z.boolean(),
  }),
]);
export type CacheStrategy = z.infer<typeof CacheStrategySchema>;

export const CacheConfigSchema = z.object({ enabled: z.boolean(), strategy: CacheStrategySchema });
export type CacheConfig = z.infer<typeof CacheConfigSchema>;
export const DEFAULT_CACHE_CONFIG: CacheConfig = { enabled: true, strategy: { type: "auto" } };

/** The wire protocols Arbor speaks. One adapter (over the AI SDK) serves all but `offline`/`mock`. */
export const ApiProtocolSchema = z.enum([
  "anthropic-messages",
  "openai-chat",
  "openai-responses",
  "azure-openai-responses",
  "google-gemini",
  "google-vertex",
  "bedrock-converse",
  "offline",
]);
export type ApiProtocol = z.infer<typeof ApiProtocolSchema>;

/** REQ-147 and friends: how to reach one model. Secrets (apiKey) never leave the server. */
export const ModelConfigSchema = z.object({
  protocol: ApiProtocolSchema,
  /** model id as the provider knows it, e.g. "claude-sonnet-4-5", "gpt-4.1" */
  model: z.string(),
  /** a display name for UIs; defaults to model */
  name: z.string().optional(),
  /** base URL of the API; the provider's official one when absent */
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  /**
   * REQ-159, Anthropic only: an OAuth token (ANTHROPIC_AUTH_TOKEN), sent as `Authorization:
   * Bearer` with the OAuth beta headers instead of apiKey's `x-api-key`. Never set with apiKey.
   */
  authToken: z.string().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  /** OpenAI-compatible: "max_tokens" (default) or "max_completion_tokens" */
  maxTokensField: z.enum(["max_tokens", "max_completion_tokens"]).default("max_tokens"),
  supportsDeveloperRole: z.boolean().default(false),
  supportsReasoningEffort: z.boolean().default(false),
  /** context window in tokens, when known */
  contextWindow: z.number().int().positive().optional(),
  /** provider-specific settings: azure resource/apiVersion, vertex project/location, bedrock region/credentials */
  options: z.record(z.string(), z.unknown()).default({}),
});
export type ModelConfig = z.infer<typeof ModelConfigSchema>;
export type ModelConfigInput = z.input<typeof ModelConfigSchema>;

export function modelConfig(input: ModelConfigInput): ModelConfig {
  return ModelConfigSchema.parse(input);
}

/** REQ-016: what the model is told about a tool. `parameters` is JSON Schema. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}
