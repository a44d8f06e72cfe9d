import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CACHE_CONFIG } from "../model/llm-config.js";
import { type FakeLlmServer, startFakeLlmServer } from "../testing/fake-llm-server/index.js";
import { countAnthropicTokens } from "./anthropic-token-count.js";
import { describeModelConfig, modelConfigFromEnv, providerFromEnv } from "./env-config.js";
import type { ProviderEvent, StreamRequest } from "./provider.js";
import { createDefaultProviderRegistry } from "./registry.js";

// REQ-159 against the fake Anthropic server: ANTHROPIC_AUTH_TOKEN alone selects Anthropic, and
// every request carries the token as a bearer with the OAuth headers, never as x-api-key.

const TOKEN = "sk-ant-oat01-fake-oauth-token-0123";
let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function requestFor(env: Record<string, string>): StreamRequest {
  return {
    model: modelConfigFromEnv(env),
    systemPrompt: "You are terse.",
    messages: [{ role: "user", content: [{ type: "text", text: "hello" }], timestamp: 0 }],
    tools: [],
    thinkingLevel: "off",
    cache: DEFAULT_CACHE_CONFIG,
  };
}

async function collect(iter: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

describe("Anthropic OAuth (ANTHROPIC_AUTH_TOKEN)", () => {
  it("selects Anthropic on its own; the config holds the token, not a key; descriptions never show it", () => {
    const env = { ANTHROPIC_AUTH_TOKEN: TOKEN };
    expect(providerFromEnv(env)).toBe("anthropic");
    const config = modelConfigFromEnv(env);
    expect(config).toMatchObject({ protocol: "anthropic-messages", authToken: TOKEN });
    expect(config.apiKey).toBeUndefined();
    const described = describeModelConfig(config);
    expect(described).toMatchObject({ apiKey: "not set", authToken: "set" });
    expect(JSON.stringify(described)).not.toContain(TOKEN);
    // a key, when also set, is what is used
    const both = modelConfigFromEnv({
      ANTHROPIC_API_KEY: "sk-ant-key-1",
      ANTHROPIC_AUTH_TOKEN: TOKEN,
    });
    expect(both.apiKey).toBe("sk-ant-key-1");
    expect(both.authToken).toBeUndefined();
    expect(() => modelConfigFromEnv({ ARBOR_PROVIDER: "anthropic" })).toThrow(
      /ANTHROPIC_API_KEY \(or ANTHROPIC_AUTH_TOKEN\)/,
    );
  });

  it("sends Authorization: Bearer with the OAuth betas, x-app, browser access and user-agent; no x-api-key", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "hi there" }] });
    const request = requestFor({ ANTHROPIC_AUTH_TOKEN: TOKEN, ANTHROPIC_BASE_URL: server.url });
    const events = await collect(
      createDefaultProviderRegistry().stream(request, new AbortController().signal),
    );
    const done = events.find((e) => e.type === "done");
    expect(done?.type === "done" ? done.message.content : undefined).toEqual([
      { type: "text", text: "hi there" },
    ]);
    expect(server.requests).toHaveLength(1);
    const headers = server.requests[0]?.headers ?? {};
    expect(server.requests[0]?.path).toBe("/v1/messages");
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(headers["x-api-key"]).toBeUndefined();
    const betas = (headers["anthropic-beta"] ?? "").split(",");
    expect(betas).toEqual(
      expect.arrayContaining([
        "claude-code-20250219",
        "oauth-2025-04-20",
        "fine-grained-tool-streaming-2025-05-14",
      ]),
    );
    expect(headers["x-app"]).toBe("cli");
    expect(headers["anthropic-dangerous-direct-browser-access"]).toBe("true");
    expect(headers["user-agent"]).toBe("claude-cli/2.1.2");
    expect(headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("a key is sent as x-api-key without the OAuth headers (the standard path is unchanged)", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const request = requestFor({
      ANTHROPIC_API_KEY: "sk-ant-key-2",
      ANTHROPIC_BASE_URL: server.url,
    });
    await collect(createDefaultProviderRegistry().stream(request, new AbortController().signal));
    const headers = server.requests[0]?.headers ?? {};
    expect(headers["x-api-key"]).toBe("sk-ant-key-2");
    expect(headers.authorization).toBeUndefined();
    expect(headers["anthropic-beta"] ?? "").not.toContain("oauth-2025-04-20");
    expect(headers["x-app"]).toBeUndefined();
  });

  it("exact token counts go with the token the same way", async () => {
    const request = requestFor({ ANTHROPIC_AUTH_TOKEN: TOKEN, ANTHROPIC_BASE_URL: server.url });
    const tokens = await countAnthropicTokens(request);
    expect(tokens).toBeGreaterThan(0);
    const headers = server.requests.at(-1)?.headers ?? {};
    expect(server.requests.at(-1)?.path).toBe("/v1/messages/count_tokens");
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    expect(headers["user-agent"]).toBe("claude-cli/2.1.2");
  });
});
