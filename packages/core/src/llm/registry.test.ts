import { describe, expect, it } from "vitest";
import { DEFAULT_CACHE_CONFIG, type ModelConfigInput, modelConfig } from "../model/llm-config.js";
import {
  type ProviderEvent,
  providerIdFor,
  type StreamProvider,
  type StreamRequest,
} from "./provider.js";
import { createDefaultProviderRegistry, ProviderRegistry } from "./registry.js";

const request = (input: ModelConfigInput): StreamRequest => ({
  model: modelConfig(input),
  systemPrompt: "",
  messages: [],
  tools: [],
  thinkingLevel: "off",
  cache: DEFAULT_CACHE_CONFIG,
});

async function collect(iter: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

describe("ProviderRegistry (REQ-042, REQ-125)", () => {
  it("dispatches by protocol", async () => {
    const seen: string[] = [];
    const fake = (id: string): StreamProvider => ({
      providerId: id,
      async *stream(req) {
        seen.push(`${id}:${req.model.model}`);
        yield {
          type: "done",
          message: {
            role: "assistant",
            content: [],
            stopReason: "stop",
            model: req.model.model,
            provider: id,
            usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
            timestamp: 0,
          },
        };
      },
    });
    const registry = new ProviderRegistry()
      .register("openai-chat", fake("a"))
      .register("anthropic-messages", fake("b"));
    await collect(
      registry.stream(
        request({ protocol: "anthropic-messages", model: "m1" }),
        new AbortController().signal,
      ),
    );
    await collect(
      registry.stream(
        request({ protocol: "openai-chat", model: "m2" }),
        new AbortController().signal,
      ),
    );
    expect(seen).toEqual(["b:m1", "a:m2"]);
    expect(registry.providerId).toBe("registry");
  });

  it("unknown protocol → error event, not a throw", async () => {
    const events = await collect(
      new ProviderRegistry().stream(
        request({ protocol: "google-gemini", model: "g" }),
        new AbortController().signal,
      ),
    );
    expect(events.map((e) => e.type)).toEqual(["start", "error"]);
    const last = events[1];
    expect(last?.type === "error" && last.partial.stopReason).toBe("error");
  });

  it("default registry serves all seven protocols plus offline, with REQ-186 ids", () => {
    const registry = createDefaultProviderRegistry();
    expect(registry.protocols().sort()).toEqual(
      [
        "anthropic-messages",
        "openai-chat",
        "openai-responses",
        "azure-openai-responses",
        "google-gemini",
        "google-vertex",
        "bedrock-converse",
        "offline",
      ].sort(),
    );
    expect(registry.providerFor("bedrock-converse")?.providerId).toBe("bedrock");
    expect(registry.providerFor("google-vertex")?.providerId).toBe("google_vertex");
    expect(registry.providerFor("azure-openai-responses")?.providerId).toBe("azure_openai");
    expect(registry.providerFor("offline")?.providerId).toBe("offline");
  });

  it("providerIdFor names the provider a model is routed to, (not 'registry')", () => {
    const registry = createDefaultProviderRegistry();
    const anthropic = modelConfig({ protocol: "anthropic-messages", model: "claude-sonnet-4-5" });
    expect(providerIdFor(registry, anthropic)).toBe("anthropic");
    expect(providerIdFor(registry, modelConfig({ protocol: "openai-chat", model: "x" }))).toBe(
      "openai",
    );
    // an unregistered protocol: the registry itself answers (with an error event)
    expect(providerIdFor(new ProviderRegistry(), anthropic)).toBe("registry");
    // a plain provider is its own
    const offline = registry.providerFor("offline");
    expect(offline && providerIdFor(offline, anthropic)).toBe("offline");
  });
});
