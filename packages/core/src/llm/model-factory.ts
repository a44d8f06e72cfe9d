import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ApiProtocol, ModelConfig } from "../model/llm-config.js";

// One LanguageModelV3 per ModelConfig, for every wire protocol the AI SDK adapter serves.
// Every setting is passed explicitly: the AI SDK providers otherwise read their own environment
// variables (ANTHROPIC_BASE_URL without /v1, AZURE_RESOURCE_NAME…), which would make a
// ModelConfig mean different things on different machines. env-config.ts is where env is read.
// Each provider's package is imported when a model of its protocol is first built, not with the
// runtime: together they are most of the server bundle, and a start compiles what it loads
// (docs/decisions/0085-a-first-start-loads-less.md).

export type FetchFunction = typeof globalThis.fetch;

/** Protocols served by createLanguageModel (everything but the built-in offline model). */
export type AiSdkProtocol = Exclude<ApiProtocol, "offline">;

/** REQ-186: provider ids per protocol. */
export const PROVIDER_IDS: Record<AiSdkProtocol, string> = {
  "anthropic-messages": "anthropic",
  "openai-chat": "openai",
  "openai-responses": "openai_responses",
  "azure-openai-responses": "azure_openai",
  "google-gemini": "google",
  "google-vertex": "google_vertex",
  "bedrock-converse": "bedrock",
};

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com/v1";

/**
 * REQ-159: what an Anthropic OAuth token (ANTHROPIC_AUTH_TOKEN) is sent with, besides
 * `Authorization: Bearer <token>`. The betas join those a request adds itself (thinking, …).
 */
export const ANTHROPIC_OAUTH_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "anthropic-beta": "claude-code-20250219,oauth-2025-04-20,fine-grained-tool-streaming-2025-05-14",
  "x-app": "cli",
  "anthropic-dangerous-direct-browser-access": "true",
});
export const ANTHROPIC_OAUTH_USER_AGENT = "claude-cli/2.1.2";

/**
 * The AI SDK appends its own parts to any user-agent given as a header; OAuth requests carry
 * exactly `userAgent`, so it is set on the request itself.
 */
export function withExactUserAgent(fetch: FetchFunction, userAgent: string): FetchFunction {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("user-agent", userAgent);
    return fetch(input, { ...init, headers });
  };
}

/**
 * ANTHROPIC_BASE_URL comes in two conventions: the official SDK's (no /v1) and the AI SDK's
 * (with /v1, appended only for the official host). Accept both by adding /v1 when missing.
 */
export function normalizeAnthropicBaseUrl(url: string | undefined): string {
  if (url === undefined || url.trim() === "") return ANTHROPIC_DEFAULT_BASE_URL;
  const trimmed = url.trim().replace(/\/+$/, "");
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** Gemini: a bare host gets the API version segment the official base URL carries. */
export function normalizeGeminiBaseUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  return /\/v1(alpha|beta)?\d*$/.test(trimmed) ? trimmed : `${trimmed}/v1beta`;
}

/** True when openai-chat goes to a server other than OpenAI's (served by openai-compatible). */
export function usesOpenAiCompatible(config: ModelConfig): boolean {
  if (config.protocol !== "openai-chat" || config.baseUrl === undefined) return false;
  try {
    return new URL(config.baseUrl).hostname !== "api.openai.com";
  } catch {
    return true;
  }
}

/** Reads a string from ModelConfig.options; other types are ignored. */
export function optionString(config: ModelConfig, key: string): string | undefined {
  const value = config.options[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * REQ-147 for OpenAI-compatible servers. openai-compatible always writes `max_tokens` and role
 * `system`; it has no option for either, but it does expose `transformRequestBody`, so the body
 * is rewritten there (no fetch wrapper needed). `reasoning_effort` goes through providerOptions.
 */
export function compatRequestBodyTransform(
  config: ModelConfig,
): (body: Record<string, unknown>) => Record<string, unknown> {
  return (body) => {
    let out = body;
    if (config.maxTokensField === "max_completion_tokens" && out.max_tokens !== undefined) {
      const { max_tokens, ...rest } = out;
      out = { ...rest, max_completion_tokens: max_tokens };
    }
    if (config.supportsDeveloperRole && Array.isArray(out.messages)) {
      out = {
        ...out,
        messages: out.messages.map((m: unknown) =>
          typeof m === "object" && m !== null && (m as { role?: unknown }).role === "system"
            ? { ...m, role: "developer" }
            : m,
        ),
      };
    }
    return out;
  };
}

/**
 * Builds the AI SDK model for a config, loading its provider's package on first use. Rejects on
 * configuration errors such as a missing Azure resource; AiSdkProvider turns that into an error
 * event.
 */
export async function createLanguageModel(
  config: ModelConfig,
  fetch?: FetchFunction,
): Promise<LanguageModelV3> {
  const protocol = config.protocol;
  const fetchOpt = fetch ? { fetch } : {};
  const headers = config.headers;
  switch (protocol) {
    case "anthropic-messages": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      if (config.authToken) {
        // REQ-159: Authorization: Bearer and the OAuth headers; never x-api-key
        return createAnthropic({
          baseURL: normalizeAnthropicBaseUrl(config.baseUrl),
          authToken: config.authToken,
          headers: { ...headers, ...ANTHROPIC_OAUTH_HEADERS },
          fetch: withExactUserAgent(fetch ?? globalThis.fetch, ANTHROPIC_OAUTH_USER_AGENT),
        })(config.model);
      }
      return createAnthropic({
        baseURL: normalizeAnthropicBaseUrl(config.baseUrl),
        apiKey: config.apiKey ?? "",
        headers,
        ...fetchOpt,
      })(config.model);
    }
    case "openai-chat": {
      if (usesOpenAiCompatible(config)) {
        const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
        return createOpenAICompatible({
          name: "openaiCompatible",
          baseURL: (config.baseUrl ?? "").replace(/\/+$/, ""),
          ...(config.apiKey ? { apiKey: config.apiKey } : {}),
          headers,
          includeUsage: true,
          transformRequestBody: compatRequestBodyTransform(config),
          ...fetchOpt,
        }).chatModel(config.model);
      }
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({
        ...(config.baseUrl ? { baseURL: config.baseUrl.replace(/\/+$/, "") } : {}),
        apiKey: config.apiKey ?? "",
        headers,
        ...fetchOpt,
      }).chat(config.model);
    }
    case "openai-responses": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({
        ...(config.baseUrl ? { baseURL: config.baseUrl.replace(/\/+$/, "") } : {}),
        apiKey: config.apiKey ?? "",
        headers,
        ...fetchOpt,
      }).responses(config.model);
    }
    case "azure-openai-responses": {
      const resourceName = optionString(config, "resourceName");
      const apiVersion = optionString(config, "apiVersion");
      const baseURL = config.baseUrl ? normalizeAzureBaseUrl(config.baseUrl) : undefined;
      if (!baseURL && !resourceName) {
        throw new Error(
          "Azure OpenAI needs options.resourceName or baseUrl (AZURE_RESOURCE_NAME).",
        );
      }
      const { createAzure } = await import("@ai-sdk/azure");
      return createAzure({
        ...(baseURL ? { baseURL } : { resourceName }),
        ...(apiVersion ? { apiVersion } : {}),
        ...(config.options.useDeploymentBasedUrls === true ? { useDeploymentBasedUrls: true } : {}),
        apiKey: config.apiKey ?? "",
        headers,
        ...fetchOpt,
      }).responses(config.model);
    }
    case "google-gemini": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI({
        ...(config.baseUrl ? { baseURL: normalizeGeminiBaseUrl(config.baseUrl) } : {}),
        apiKey: config.apiKey ?? "",
        headers,
        ...fetchOpt,
      })(config.model);
    }
    case "google-vertex":
      return createVertexModel(config, fetch);
    case "bedrock-converse": {
      const region = optionString(config, "region") ?? "us-east-1";
      const accessKeyId = optionString(config, "accessKeyId");
      const secretAccessKey = optionString(config, "secretAccessKey");
      const sessionToken = optionString(config, "sessionToken");
      const { createAmazonBedrock } = await import("@ai-sdk/amazon-bedrock");
      return createAmazonBedrock({
        region,
        ...(config.baseUrl ? { baseURL: config.baseUrl.replace(/\/+$/, "") } : {}),
        // apiKey = AWS_BEARER_TOKEN_BEDROCK; otherwise SigV4 with the given or default credentials
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(accessKeyId ? { accessKeyId } : {}),
        ...(secretAccessKey ? { secretAccessKey } : {}),
        ...(sessionToken ? { sessionToken } : {}),
        headers,
        ...fetchOpt,
      })(config.model);
    }
    case "offline":
      throw new Error("The offline model is not an AI SDK model; use the provider registry.");
    default:
      return protocol satisfies never;
  }
}

/** Azure endpoints are configured as `https://x.openai.azure.com/`; the API lives under /openai. */
export function normalizeAzureBaseUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  try {
    const host = new URL(trimmed).hostname;
    if (
      /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/.test(host) &&
      !/\/openai(\/|$)/.test(trimmed)
    ) {
      return `${trimmed}/openai`;
    }
  } catch {
    // not a URL: leave it to the AI SDK to report
  }
  return trimmed;
}

/**
 * Vertex. With `options.accessToken` the request carries `Authorization: Bearer <token>` and no
 * Google auth library is involved (the package's Node entry would call google-auth-library for
 * every request even when the header is given, failing without ADC). Otherwise the package's own
 * auth (ADC / GOOGLE_APPLICATION_CREDENTIALS, or apiKey for express mode) applies.
 */
async function createVertexModel(
  config: ModelConfig,
  fetch?: FetchFunction,
): Promise<LanguageModelV3> {
  const project = optionString(config, "project");
  const location = optionString(config, "location") ?? "us-central1";
  const accessToken = optionString(config, "accessToken");
  const baseURL = vertexBaseUrl(config.baseUrl, project, location);
  if (accessToken) {
    if (!baseURL) throw new Error("Google Vertex needs options.project (GOOGLE_VERTEX_PROJECT).");
    const { GoogleGenerativeAILanguageModel } = await import("@ai-sdk/google/internal");
    return new GoogleGenerativeAILanguageModel(config.model, {
      provider: "google.vertex.chat",
      baseURL,
      headers: { ...config.headers, Authorization: `Bearer ${accessToken}` },
      generateId: () => crypto.randomUUID(),
      ...(fetch ? { fetch } : {}),
    });
  }
  const { createVertex } = await import("@ai-sdk/google-vertex");
  return createVertex({
    ...(project ? { project } : {}),
    location,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(baseURL ? { baseURL } : {}),
    headers: config.headers,
    ...(fetch ? { fetch } : {}),
  })(config.model);
}

/** A bare host (a proxy or a local fake) gets Vertex's full publisher path appended. */
export function vertexBaseUrl(
  baseUrl: string | undefined,
  project: string | undefined,
  location: string,
): string | undefined {
  if (!project) return baseUrl?.replace(/\/+$/, "");
  const host =
    location === "global" ? "aiplatform.googleapis.com" : `${location}-aiplatform.googleapis.com`;
  const root = (baseUrl ?? `https://${host}`).replace(/\/+$/, "");
  if (root.includes("/projects/")) return root;
  return `${root}/v1beta1/projects/${project}/locations/${location}/publishers/google`;
}
