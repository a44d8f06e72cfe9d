import { createHash } from "node:crypto";
import type Anthropic from "@anthropic-ai/sdk";
import { toCallOptions } from "./ai-sdk-prompt.js";
import {
  ANTHROPIC_OAUTH_HEADERS,
  ANTHROPIC_OAUTH_USER_AGENT,
  createLanguageModel,
  type FetchFunction,
  normalizeAnthropicBaseUrl,
  withExactUserAgent,
} from "./model-factory.js";
import type { StreamRequest } from "./provider.js";

// Exact Claude token counts through Anthropic's count_tokens endpoint.
//
// The request body is the one the adapter would send: @ai-sdk/anthropic builds it from the same
// LanguageModelV3 call options (ai-sdk-prompt.ts), captured by a fetch that never goes out. So
// the counted system prompt, tools, messages, images, thinking blocks and thinking config are
// byte-for-byte what a real turn sends, with no second converter to keep in sync.

export interface AnthropicTokenCountOptions {
  /** custom fetch for the count_tokens call (tests, proxies) */
  fetch?: FetchFunction;
  signal?: AbortSignal;
}

/** True when counting can be exact (Anthropic protocol with a key or an OAuth token). */
export function canCountAnthropicTokens(request: StreamRequest): boolean {
  return (
    request.model.protocol === "anthropic-messages" &&
    Boolean(request.model.apiKey || request.model.authToken)
  );
}

/**
 * Input tokens of the request (system + tools + messages). Throws on API errors (the caller
 * decides whether to fall back to an estimate); requires an Anthropic config with an apiKey.
 */
export async function countAnthropicTokens(
  request: StreamRequest,
  options: AnthropicTokenCountOptions = {},
): Promise<number> {
  const config = request.model;
  if (config.protocol !== "anthropic-messages" || !(config.apiKey || config.authToken)) {
    throw new Error(
      "Exact token counts need an anthropic-messages model config with an apiKey or authToken.",
    );
  }
  const body = await anthropicRequestBody(request);
  const oauth = !config.apiKey && Boolean(config.authToken);
  const fetch = options.fetch ?? globalThis.fetch;
  // the official SDK is loaded on the first count, not with the runtime: an app that never
  // counts through Anthropic never loads it (llm/model-factory.ts does the same per provider)
  const { default: AnthropicClient } = await import("@anthropic-ai/sdk");
  const client = new AnthropicClient({
    // REQ-159: a token goes as Authorization: Bearer with the OAuth headers, never as x-api-key
    apiKey: oauth ? null : (config.apiKey ?? null),
    authToken: oauth ? (config.authToken ?? null) : null,
    // the official SDK appends /v1 itself
    baseURL: normalizeAnthropicBaseUrl(config.baseUrl).replace(/\/v1$/, ""),
    defaultHeaders: oauth ? { ...config.headers, ...ANTHROPIC_OAUTH_HEADERS } : config.headers,
    maxRetries: 1,
    ...(oauth
      ? { fetch: withExactUserAgent(fetch, ANTHROPIC_OAUTH_USER_AGENT) }
      : options.fetch
        ? { fetch: options.fetch }
        : {}),
  });
  const result = await client.messages.countTokens(
    body,
    options.signal ? { signal: options.signal } : undefined,
  );
  return result.input_tokens;
}

class CapturedBody extends Error {
  constructor(readonly body: unknown) {
    super("request body captured");
  }
}

/** The Messages API body @ai-sdk/anthropic would send, reduced to what count_tokens accepts. */
export async function anthropicRequestBody(
  request: StreamRequest,
): Promise<Anthropic.MessageCountTokensParams> {
  const capture: FetchFunction = async (_url, init) => {
    throw new CapturedBody(typeof init?.body === "string" ? JSON.parse(init.body) : undefined);
  };
  // the body alone is wanted: a placeholder key (the AI SDK refuses a key and a token together)
  const { authToken: _token, ...keyless } = request.model;
  const model = await createLanguageModel({ ...keyless, apiKey: "capture" }, capture);
  let body: unknown;
  try {
    await model.doStream(toCallOptions(request, undefined));
  } catch (error) {
    body = findCaptured(error);
  }
  if (!isRecord(body) || typeof body.model !== "string" || !Array.isArray(body.messages)) {
    throw new Error("Could not build the Anthropic request body.");
  }
  const params: Record<string, unknown> = { model: body.model, messages: body.messages };
  for (const key of ["system", "tools", "tool_choice", "thinking"] as const) {
    if (body[key] !== undefined) params[key] = body[key];
  }
  // The body was produced by @ai-sdk/anthropic for this same API; its shape is the API's.
  return params as unknown as Anthropic.MessageCountTokensParams;
}

function findCaptured(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof CapturedBody) return current.body;
    current = current.cause;
  }
  throw error;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Counts kept at most; the oldest is forgotten first. */
const COUNT_CACHE_ENTRIES = 512;

/**
 * Exact counts cached per message: a request is named by the ids of its messages (stored
 * messages never change; a masked or summarized copy gets a new id) with its system prompt, tools
 * and model, and counted once. Asking again for the same request (a retry, the pipeline's
 * optimization and then the request's own, Optimize now) costs no call.
 */
export class AnthropicTokenCounts {
  readonly #cache = new Map<string, number>();
  readonly #options: AnthropicTokenCountOptions;
  /** calls made to count_tokens (for tests and diagnostics) */
  calls = 0;

  constructor(options: AnthropicTokenCountOptions = {}) {
    this.#options = options;
  }

  /** The request's input tokens; `messageIds` name its messages, in order (the cache key). */
  async count(
    request: StreamRequest,
    messageIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<number> {
    const key = createHash("sha256")
      .update(
        JSON.stringify([
          messageIds,
          request.model.model,
          request.model.baseUrl ?? "",
          request.systemPrompt,
          request.tools.map((t) => [t.name, t.description, t.parameters]),
          request.thinkingLevel,
        ]),
      )
      .digest("base64");
    const known = this.#cache.get(key);
    if (known !== undefined) return known;
    this.calls += 1;
    const tokens = await countAnthropicTokens(request, {
      ...this.#options,
      ...(signal ? { signal } : {}),
    });
    if (this.#cache.size >= COUNT_CACHE_ENTRIES) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(key, tokens);
    return tokens;
  }
}
