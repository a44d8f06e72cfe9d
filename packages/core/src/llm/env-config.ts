import { type ApiProtocol, type ModelConfig, modelConfig } from "../model/llm-config.js";

// ModelConfig from environment variables, using each vendor's official variable names (the same
// ones the AI SDK providers and official SDKs read), so a user's existing shell setup just works.
//
//   ARBOR_PROVIDER  anthropic | openai | openai-responses | azure | google | vertex | bedrock |
//                   openai-compatible | offline   (absent: first provider with credentials)
//   ARBOR_MODEL     model id (or Azure deployment name); a default per provider otherwise
//   ARBOR_BASE_URL  Arbor's own override of the base URL for whichever provider is chosen
//
// With no credentials at all the built-in offline model is chosen, so Arbor always starts.

import { OFFLINE_MODEL_ID } from "./offline/answers.js";

export { OFFLINE_MODEL_ID };

export type EnvProvider =
  | "anthropic"
  | "openai"
  | "openai-responses"
  | "azure"
  | "google"
  | "vertex"
  | "bedrock"
  | "openai-compatible"
  | "offline";

const ENV_PROVIDERS: readonly EnvProvider[] = [
  "anthropic",
  "openai",
  "openai-responses",
  "azure",
  "google",
  "vertex",
  "bedrock",
  "openai-compatible",
  "offline",
];

export const DEFAULT_MODELS: Record<EnvProvider, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4.1",
  "openai-responses": "gpt-5",
  azure: "gpt-4.1",
  google: "gemini-2.5-flash",
  vertex: "gemini-2.5-flash",
  bedrock: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  "openai-compatible": "default",
  offline: OFFLINE_MODEL_ID,
};

type Env = Record<string, string | undefined>;

function get(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** Which provider the environment selects (explicit ARBOR_PROVIDER, else the first with keys). */
export function providerFromEnv(env: Env = process.env): EnvProvider {
  const explicit = get(env, "ARBOR_PROVIDER")?.toLowerCase();
  if (explicit !== undefined) {
    const match = ENV_PROVIDERS.find((p) => p === explicit);
    if (!match) {
      throw new Error(`ARBOR_PROVIDER="${explicit}" is not one of ${ENV_PROVIDERS.join(", ")}.`);
    }
    return match;
  }
  // REQ-159: an OAuth token selects Anthropic on its own, like a key
  if (get(env, "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")) return "anthropic";
  if (get(env, "OPENAI_API_KEY")) return "openai";
  if (get(env, "GOOGLE_GENERATIVE_AI_API_KEY")) return "google";
  if (
    get(env, "AZURE_API_KEY", "AZURE_OPENAI_API_KEY") &&
    get(env, "AZURE_RESOURCE_NAME", "AZURE_OPENAI_ENDPOINT")
  ) {
    return "azure";
  }
  if (get(env, "GOOGLE_VERTEX_PROJECT")) return "vertex";
  if (get(env, "AWS_BEARER_TOKEN_BEDROCK") || get(env, "AWS_ACCESS_KEY_ID")) return "bedrock";
  return "offline";
}

/**
 * Throws (with the variable to set) only when a provider was chosen explicitly and a required
 * key is missing; Vertex and Bedrock may use ambient credentials (ADC, AWS profiles).
 */
export function modelConfigFromEnv(env: Env = process.env): ModelConfig {
  const provider = providerFromEnv(env);
  return providerModelConfig(provider, env, {
    model: get(env, "ARBOR_MODEL") ?? DEFAULT_MODELS[provider],
    override: get(env, "ARBOR_BASE_URL"),
    who: `ARBOR_PROVIDER=${provider}`,
  });
}

/** The provider whose variables serve `protocol` when a session switches to it. */
export function providerForProtocol(protocol: ApiProtocol, env: Env = process.env): EnvProvider {
  switch (protocol) {
    case "anthropic-messages":
      return "anthropic";
    case "openai-chat":
      // a keyless OpenAI-compatible server named by OPENAI_BASE_URL serves it too
      return !get(env, "OPENAI_API_KEY") && get(env, "OPENAI_BASE_URL")
        ? "openai-compatible"
        : "openai";
    case "openai-responses":
      return "openai-responses";
    case "azure-openai-responses":
      return "azure";
    case "google-gemini":
      return "google";
    case "google-vertex":
      return "vertex";
    case "bedrock-converse":
      return "bedrock";
    case "offline":
      return "offline";
    default:
      return protocol satisfies never;
  }
}

/**
 * The ModelConfig of a session that names `protocol` and `model` (issue #9: keys are scoped to
 * their provider). The same protocol as the default model keeps the default's key, base URL and
 * options. Another protocol gets its own provider's variables from `env` (OPENAI_API_KEY,
 * GOOGLE_GENERATIVE_AI_API_KEY, …, and that provider's *_BASE_URL; never ARBOR_BASE_URL, which
 * belongs to the default provider), so one provider's key never reaches another. Throws an
 * Error naming the variable to set when a required one is missing.
 */
export function sessionModelConfig(
  defaults: ModelConfig,
  session: { protocol: ApiProtocol; model: string },
  env: Env = process.env,
): ModelConfig {
  if (session.protocol === defaults.protocol) return { ...defaults, model: session.model };
  const provider = providerForProtocol(session.protocol, env);
  return providerModelConfig(provider, env, {
    model: session.model,
    override: undefined,
    who: `The session's model (${session.protocol})`,
  });
}

function providerModelConfig(
  provider: EnvProvider,
  env: Env,
  choice: { model: string; override: string | undefined; who: string },
): ModelConfig {
  const { model, override, who } = choice;
  const need = (value: string | undefined, name: string): string => {
    if (value === undefined) throw new Error(`${who} needs ${name} to be set.`);
    return value;
  };
  const base = (protocol: ApiProtocol, baseUrl: string | undefined) => ({
    protocol,
    model,
    ...((override ?? baseUrl) ? { baseUrl: override ?? baseUrl } : {}),
  });

  switch (provider) {
    case "anthropic": {
      // a key wins over a token when both are set: x-api-key is the API's documented default
      const apiKey = get(env, "ANTHROPIC_API_KEY");
      const authToken = apiKey ? undefined : get(env, "ANTHROPIC_AUTH_TOKEN");
      return modelConfig({
        ...base("anthropic-messages", get(env, "ANTHROPIC_BASE_URL")),
        ...(authToken
          ? { authToken }
          : { apiKey: need(apiKey, "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)") }),
      });
    }
    case "openai":
    case "openai-responses":
      return modelConfig({
        ...base(
          provider === "openai" ? "openai-chat" : "openai-responses",
          get(env, "OPENAI_BASE_URL"),
        ),
        apiKey: need(get(env, "OPENAI_API_KEY"), "OPENAI_API_KEY"),
      });
    case "openai-compatible": {
      const url = need(override ?? get(env, "OPENAI_BASE_URL"), "OPENAI_BASE_URL");
      const apiKey = get(env, "OPENAI_API_KEY");
      return modelConfig({ ...base("openai-chat", url), ...(apiKey ? { apiKey } : {}) });
    }
    case "azure": {
      const resourceName = get(env, "AZURE_RESOURCE_NAME");
      const apiVersion = get(env, "AZURE_API_VERSION");
      const endpoint = get(env, "AZURE_OPENAI_ENDPOINT");
      if (!resourceName && !endpoint && !override) {
        throw new Error(`${who} needs AZURE_RESOURCE_NAME or AZURE_OPENAI_ENDPOINT.`);
      }
      return modelConfig({
        ...base("azure-openai-responses", endpoint),
        apiKey: need(get(env, "AZURE_API_KEY", "AZURE_OPENAI_API_KEY"), "AZURE_API_KEY"),
        options: {
          ...(resourceName ? { resourceName } : {}),
          ...(apiVersion ? { apiVersion } : {}),
        },
      });
    }
    case "google":
      return modelConfig({
        ...base("google-gemini", get(env, "GOOGLE_GENERATIVE_AI_BASE_URL")),
        apiKey: need(get(env, "GOOGLE_GENERATIVE_AI_API_KEY"), "GOOGLE_GENERATIVE_AI_API_KEY"),
      });
    case "vertex": {
      const project = get(env, "GOOGLE_VERTEX_PROJECT");
      const apiKey = get(env, "GOOGLE_VERTEX_API_KEY");
      const credentialsFile = get(env, "GOOGLE_APPLICATION_CREDENTIALS");
      return modelConfig({
        ...base("google-vertex", undefined),
        ...(apiKey ? { apiKey } : {}),
        options: {
          ...(project ? { project } : {}),
          location: get(env, "GOOGLE_VERTEX_LOCATION") ?? "us-central1",
          // read by google-auth-library itself; recorded so describeModelConfig can show it
          ...(credentialsFile ? { credentialsFile } : {}),
        },
      });
    }
    case "bedrock": {
      const apiKey = get(env, "AWS_BEARER_TOKEN_BEDROCK");
      const accessKeyId = get(env, "AWS_ACCESS_KEY_ID");
      const secretAccessKey = get(env, "AWS_SECRET_ACCESS_KEY");
      const sessionToken = get(env, "AWS_SESSION_TOKEN");
      return modelConfig({
        ...base("bedrock-converse", undefined),
        ...(apiKey ? { apiKey } : {}),
        options: {
          region: get(env, "AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1",
          ...(accessKeyId ? { accessKeyId } : {}),
          ...(secretAccessKey ? { secretAccessKey } : {}),
          ...(sessionToken ? { sessionToken } : {}),
        },
      });
    }
    case "offline":
      return modelConfig({ protocol: "offline", model });
    default:
      return provider satisfies never;
  }
}

const SECRET_NAME = /key|secret|token|password|authorization|cookie|credential(?!sfile)/i;

export interface ModelConfigDescription {
  protocol: ApiProtocol;
  model: string;
  name: string;
  baseUrl: string;
  apiKey: "set" | "not set";
  /** present when the model is reached with an OAuth token (ANTHROPIC_AUTH_TOKEN) */
  authToken?: "set";
  headers: Record<string, string>;
  options: Record<string, unknown>;
}

/** A log/UI-safe view of a config: secrets are replaced by "[redacted]", never printed. */
export function describeModelConfig(config: ModelConfig): ModelConfigDescription {
  const redact = (name: string, value: unknown): unknown =>
    SECRET_NAME.test(name) ? "[redacted]" : value;
  return {
    protocol: config.protocol,
    model: config.model,
    name: config.name ?? config.model,
    baseUrl: config.baseUrl ? redactUrl(config.baseUrl) : "(provider default)",
    apiKey: config.apiKey ? "set" : "not set",
    ...(config.authToken ? { authToken: "set" as const } : {}),
    headers: Object.fromEntries(
      Object.entries(config.headers).map(([k, v]) => [k, String(redact(k, v))]),
    ),
    options: Object.fromEntries(Object.entries(config.options).map(([k, v]) => [k, redact(k, v)])),
  };
}

/** URLs can carry secrets too (user:password@, ?key=…). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "redacted";
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_NAME.test(name)) parsed.searchParams.set(name, "redacted");
    }
    return parsed.toString();
  } catch {
    return url;
  }
}
