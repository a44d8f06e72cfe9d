import { describe, expect, it } from "vitest";
import { createDefaultProviderRegistry } from "../llm/registry.js";
import { modelConfig } from "../model/llm-config.js";
import { effectiveConfigId, LoopIdAllocator, loopIdOf } from "./loop-id.js";

describe("loop ids (REQ-187–189)", () => {
  it("a derived config id names the provider a registry routes to, not 'registry'", () => {
    const registry = createDefaultProviderRegistry();
    const model = modelConfig({ protocol: "anthropic-messages", model: "Claude Sonnet 4.5" });
    expect(effectiveConfigId({ provider: registry, model, thinkingLevel: "high" })).toBe(
      "anthropic.claude-sonnet-4-5.thinking",
    );
    expect(effectiveConfigId({ provider: registry, model, configId: "mine" })).toBe("mine");
  });

  it("ids read {sessionId}.{configId}.{n}; the in-memory allocator counts per config", () => {
    expect(loopIdOf("s", "anthropic.m", 7)).toBe("s.anthropic.m.7");
    const ids = new LoopIdAllocator();
    expect([ids.next("s", "a"), ids.next("s", "a"), ids.next("s", "b")]).toEqual([
      "s.a.1",
      "s.a.2",
      "s.b.1",
    ]);
  });
});
