import type { KeyProvider, ProviderKeySource } from "../protocol/provider-keys.js";

// Keys kept in Settings stand for the provider's official variable (docs/decisions/0054): the
// model's environment is the server's with the kept keys laid over it, so everything that reads
// variables (modelConfigFromEnv, sessionModelConfig, the model list) sees them with no new path.
// That environment is the model's only: tool processes are given the server's own, scrubbed.

type Env = Record<string, string | undefined>;

export interface ProviderKeyVariable {
  label: string;
  /** the variable a kept key stands for */
  variable: string;
  /** every variable that carries the provider's key in the environment, the kept one's first */
  environment: readonly string[];
  /** what else the provider needs from the environment */
  needs: readonly string[];
}

export const PROVIDER_KEY_VARIABLES: Record<KeyProvider, ProviderKeyVariable> = {
  anthropic: {
    label: "Anthropic",
    variable: "ANTHROPIC_API_KEY",
    environment: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    needs: [],
  },
  openai: {
    label: "OpenAI",
    variable: "OPENAI_API_KEY",
    environment: ["OPENAI_API_KEY"],
    needs: [],
  },
  google: {
    label: "Google Gemini",
    variable: "GOOGLE_GENERATIVE_AI_API_KEY",
    environment: ["GOOGLE_GENERATIVE_AI_API_KEY"],
    needs: [],
  },
  azure: {
    label: "Azure OpenAI",
    variable: "AZURE_API_KEY",
    environment: ["AZURE_API_KEY", "AZURE_OPENAI_API_KEY"],
    needs: ["AZURE_RESOURCE_NAME or AZURE_OPENAI_ENDPOINT"],
  },
  vertex: {
    label: "Google Vertex AI",
    variable: "GOOGLE_VERTEX_API_KEY",
    environment: ["GOOGLE_VERTEX_API_KEY"],
    needs: ["GOOGLE_VERTEX_PROJECT"],
  },
  bedrock: {
    label: "Amazon Bedrock",
    variable: "AWS_BEARER_TOKEN_BEDROCK",
    environment: ["AWS_BEARER_TOKEN_BEDROCK"],
    needs: [],
  },
};

/** The server's environment with the kept keys over it (a new object; `env` is not changed). */
export function withProviderKeys(env: Env, kept: Partial<Record<KeyProvider, string>>): Env {
  const merged: Env = { ...env };
  for (const [provider, key] of Object.entries(kept) as Array<[KeyProvider, string | undefined]>) {
    if (key) merged[PROVIDER_KEY_VARIABLES[provider].variable] = key;
  }
  return merged;
}

/** Where the provider's key in force comes from: kept in Settings wins over the variable. */
export function providerKeySource(
  provider: KeyProvider,
  env: Env,
  kept: boolean,
): ProviderKeySource {
  if (kept) return "settings";
  return inEnvironment(provider, env) ? "environment" : "none";
}

export function inEnvironment(provider: KeyProvider, env: Env): boolean {
  return PROVIDER_KEY_VARIABLES[provider].environment.some((name) => Boolean(env[name]?.trim()));
}

/** What may be shown of a key: its last four characters, and nothing of a short one. */
export function keyHint(key: string): string {
  return key.length >= 12 ? `…${key.slice(-4)}` : "…";
}
