import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { collect, errors, harness, say } from "../../../test/support/session-harness.js";
import { createDefaultProviderRegistry } from "../../llm/registry.js";
import { modelConfig } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../testing/fake-llm-server/index.js";
import { contextMessageTokens } from "../optimization/request-tokens.js";
import { EXACT_COUNT_FROM } from "./session-token-count.js";

// Context Manager "Token limit detection" (issue #26 finding 10): the session's counts are the
// provider's. Anthropic's own count_tokens (through @anthropic-ai/sdk, against the fake server
// speaking its wire format) near the trigger, cached per message; every other provider's reported
// usage calibrates the estimate; the offline model keeps the plain estimate.

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = "Please read this carefully. ".repeat(60);

function anthropic(contextWindow: number) {
  return modelConfig({
    protocol: "anthropic-messages",
    model: "claude-test",
    apiKey: "sk-ant-fake",
    baseUrl: server.url,
    contextWindow,
  });
}

function countRequests() {
  return server.requests.filter((r) => r.protocol === "anthropic-count-tokens");
}

describe("provider token counts", () => {
  it("the offline model keeps the plain estimate", async () => {
    const h = harness([say("ok")]);
    const session = await h.manager.create();
    await collect(session.sendMessage({ type: "text", text: LONG }));
    expect(session.contextUsage().counted_by).toBe("estimate");
  });

  it("another provider's reported input usage calibrates the estimate", async () => {
    const h = harness([], {
      provider: createDefaultProviderRegistry(),
      titles: "first_message",
      model: modelConfig({
        protocol: "openai-chat",
        model: "gpt-test",
        apiKey: "sk-fake",
        baseUrl: `${server.url}/v1`,
      }),
    });
    const session = await h.manager.create();
    const before = session.contextUsage();
    expect(before.counted_by).toBe("estimate");
    server.enqueue({ blocks: [{ type: "text", text: "noted" }] });
    const events = await collect(session.sendMessage({ type: "text", text: LONG }));
    expect(errors(events)).toEqual([]);
    const [user, answer] = session.messages().messages as [ContextMessage, ContextMessage];
    const usage = answer.meta?.usage;
    if (!usage) throw new Error("no usage reported");
    const reported = usage.input + usage.cacheRead + usage.cacheWrite;
    // the request's estimate: the fixed part and the user's message
    const estimated = before.fixed + contextMessageTokens(user);
    const ratio = reported / estimated;
    expect(ratio).not.toBeCloseTo(1, 1);
    const after = session.contextUsage();
    expect(after.counted_by).toBe("provider_usage");
    expect(Math.abs(after.system_prompt - before.system_prompt * ratio)).toBeLessThanOrEqual(1);
    expect(countRequests()).toEqual([]);
  });

  it("optimization.token_counting estimate keeps the plain estimate for every provider", async () => {
    const h = harness([], {
      provider: createDefaultProviderRegistry(),
      titles: "first_message",
      model: modelConfig({
        protocol: "openai-chat",
        model: "gpt-test",
        apiKey: "sk-fake",
        baseUrl: `${server.url}/v1`,
      }),
    });
    const session = await h.manager.create({
      config: { optimization: { token_counting: "estimate" } },
    });
    server.enqueue({ blocks: [{ type: "text", text: "noted" }] });
    await collect(session.sendMessage({ type: "text", text: LONG }));
    expect(session.contextUsage().counted_by).toBe("estimate");
  });

  it("Anthropic: near the trigger the request is counted by count_tokens, once per message", async () => {
    // the window puts the first request at 70 % of the trigger: past EXACT_COUNT_FROM, below it
    const probe = await harness([], {
      provider: createDefaultProviderRegistry(),
      titles: "first_message",
      model: anthropic(100_000),
    }).manager.create();
    const fixed = probe.contextUsage().fixed;
    const prompt = `${LONG}`;
    const userTokens = 40 + Math.ceil(prompt.length / 4);
    const window = Math.ceil((fixed + userTokens) / 0.8 / 0.7);
    expect(0.7).toBeGreaterThan(EXACT_COUNT_FROM);
    // Anthropic counts more than the estimate here: 90 % of the trigger
    const exact = Math.ceil(0.9 * 0.8 * window);
    server.setTokenCounter(() => exact);

    const h = harness([], {
      provider: createDefaultProviderRegistry(),
      titles: "first_message",
      model: anthropic(window),
    });
    const session = await h.manager.create();
    server.enqueue({ blocks: [{ type: "text", text: "noted" }] });
    const events = await collect(session.sendMessage({ type: "text", text: prompt }));
    expect(errors(events)).toEqual([]);
    const counted = countRequests();
    // the pipeline's optimization and the request's own asked for the same request: one call
    expect(counted).toHaveLength(1);
    // the official SDK's request, in Anthropic's wire format: what a turn sends, minus its options
    const [first] = counted;
    expect(first?.path).toBe("/v1/messages/count_tokens");
    // the key as the SDK sends it (x-api-key, or a Bearer authorization in its newer lines)
    const headers = first?.headers ?? {};
    expect(headers["x-api-key"] ?? headers.authorization).toContain("sk-ant-fake");
    expect(headers["anthropic-version"]).toBeDefined();
    const body = first?.body as Record<string, unknown>;
    expect(body.model).toBe("claude-test");
    expect(JSON.stringify(body.messages)).toContain("Please read this carefully.");
    expect(body.system).toBeDefined();
    expect(body).not.toHaveProperty("max_tokens");
    const usage = session.contextUsage();
    expect(usage.counted_by).toBe("provider_count");
    // the meter speaks Anthropic's tokens: at least the exact count of the first request (the
    // estimate alone put it at 70 % of the trigger)
    expect(usage.total).toBeGreaterThanOrEqual(exact - 2);
    expect(usage.total).toBeLessThan(usage.trigger);

    // cached per message: optimizing the same view again asks nothing more
    const calls = countRequests().length;
    await collect(session.optimize());
    await collect(session.optimize());
    expect(countRequests().length).toBe(calls + 1);
  });
});
