import {
  type ApiProtocol,
  DEFAULT_MODELS,
  describeModelConfig,
  type ModelConfig,
  modelConfigFromEnv,
  OFFLINE_MODEL_ID,
  type SessionModel,
} from "@arbor/core";

// What the pages may know about the model chosen by the environment: its name and protocol, never
// its key (describeModelConfig redacts). Read per request by server components from the runtime's
// model environment (the server's variables with the keys kept in Settings over them), so a key
// kept in Settings › Model providers shows at once.

export interface ModelInfo {
  name: string;
  protocol: string;
  offline: boolean;
  /** the context window a session without a model of its own gets */
  contextWindow: number;
  /** choices for the session settings: the configured model, and the offline one */
  options: { label: string; model: SessionModel }[];
  /** set when the environment names a provider but lacks what it needs */
  problem?: string;
}

const DEFAULT_CONTEXT_WINDOW = 100_000;

const offlineOption = {
  label: "Offline model (no provider needed)",
  model: {
    protocol: "offline",
    model: OFFLINE_MODEL_ID,
    thinking_level: "off",
    context_window: DEFAULT_CONTEXT_WINDOW,
  },
} satisfies ModelInfo["options"][number];

/** Providers a session can switch to when their key is set, with the protocol each speaks. */
const KEYED_PROVIDERS = [
  // an OAuth token (ANTHROPIC_AUTH_TOKEN) reaches Anthropic as well as a key (REQ-159)
  {
    keys: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    provider: "anthropic",
    protocol: "anthropic-messages",
  },
  { keys: ["OPENAI_API_KEY"], provider: "openai", protocol: "openai-chat" },
  { keys: ["GOOGLE_GENERATIVE_AI_API_KEY"], provider: "google", protocol: "google-gemini" },
] as const satisfies ReadonlyArray<{
  keys: readonly string[];
  provider: keyof typeof DEFAULT_MODELS;
  protocol: ApiProtocol;
}>;

/** The default model of each other provider whose key the environment holds. */
function keyedOptions(
  env: Record<string, string | undefined>,
  except: string,
  contextWindow: number,
): ModelInfo["options"] {
  return KEYED_PROVIDERS.filter(
    (p) => p.keys.some((key) => env[key]?.trim()) && p.protocol !== except,
  ).map((p) => ({
    label: `${DEFAULT_MODELS[p.provider]} (${p.protocol})`,
    model: {
      protocol: p.protocol,
      model: DEFAULT_MODELS[p.provider],
      thinking_level: "off",
      context_window: contextWindow,
    },
  }));
}

type Env = Record<string, string | undefined>;

export function modelInfo(env: Env = process.env): ModelInfo {
  let config: ModelConfig;
  try {
    config = modelConfigFromEnv(env);
  } catch (error) {
    return {
      name: "not configured",
      protocol: "none",
      offline: false,
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      options: [offlineOption],
      // the message names the variable to set, never a value
      problem: error instanceof Error ? error.message : String(error),
    };
  }
  const described = describeModelConfig(config);
  const offline = described.protocol === "offline";
  const contextWindow = config.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const configured = {
    label: `${described.name} (${described.protocol})`,
    model: {
      protocol: described.protocol,
      model: described.model,
      thinking_level: "off",
      context_window: contextWindow,
    },
  } satisfies ModelInfo["options"][number];
  return {
    name: described.name,
    protocol: described.protocol,
    offline,
    contextWindow,
    // the configured model first (a session without a model of its own uses it), then the other
    // providers whose keys are set, then the offline model
    options: offline
      ? [offlineOption]
      : [configured, ...keyedOptions(env, described.protocol, contextWindow), offlineOption],
  };
}
