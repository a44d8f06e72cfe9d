import type { ApiProtocol, ModelConfig } from "../model/llm-config.js";
import { AiSdkProvider } from "./ai-sdk-adapter.js";
import { type AiSdkProtocol, type FetchFunction, PROVIDER_IDS } from "./model-factory.js";
import { OfflineProvider } from "./offline/index.js";
import type { ProviderEvent, ProviderLookup, StreamProvider, StreamRequest } from "./provider.js";

// REQ-042 / REQ-125: protocol → provider. The registry is itself a StreamProvider, so the loop
// takes one provider and any model config works. Like every provider it never throws: an
// unregistered protocol is an error event.

export class ProviderRegistry implements StreamProvider, ProviderLookup {
  readonly providerId = "registry";
  private readonly providers = new Map<ApiProtocol, StreamProvider>();

  register(protocol: ApiProtocol, provider: StreamProvider): this {
    this.providers.set(protocol, provider);
    return this;
  }

  providerIdFor(model: ModelConfig): string {
    const provider = this.providers.get(model.protocol);
    return provider ? (provider.providerIdFor?.(model) ?? provider.providerId) : this.providerId;
  }

  providerFor(protocol: ApiProtocol): StreamProvider | undefined {
    return this.providers.get(protocol);
  }

  protocols(): ApiProtocol[] {
    return [...this.providers.keys()];
  }

  stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
    const provider = this.providers.get(request.model.protocol);
    if (provider) return provider.stream(request, signal);
    return unknownProtocol(request);
  }
}

async function* unknownProtocol(request: StreamRequest): AsyncGenerator<ProviderEvent> {
  const message = `No provider registered for protocol "${String(request.model.protocol)}".`;
  const partial = {
    role: "assistant" as const,
    content: [],
    stopReason: "error" as const,
    model: request.model.model,
    provider: "registry",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    timestamp: Date.now(),
    errorMessage: message,
  };
  yield { type: "start", partial };
  yield { type: "error", error: { kind: "other", message }, partial };
}

export const AI_SDK_PROTOCOLS = Object.keys(PROVIDER_IDS) as AiSdkProtocol[];

export interface DefaultRegistryOptions {
  /** custom fetch for every AI SDK provider (proxies, tests) */
  fetch?: FetchFunction;
}

/** REQ-125: the seven AI SDK protocols plus the built-in offline model. */
export function createDefaultProviderRegistry(
  options: DefaultRegistryOptions = {},
): ProviderRegistry {
  const registry = new ProviderRegistry();
  for (const protocol of AI_SDK_PROTOCOLS) {
    registry.register(
      protocol,
      new AiSdkProvider({ protocol, ...(options.fetch ? { fetch: options.fetch } : {}) }),
    );
  }
  registry.register("offline", new OfflineProvider());
  return registry;
}
