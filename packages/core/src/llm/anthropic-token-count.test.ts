import { describe, expect, it } from "vitest";
import { DEFAULT_CACHE_CONFIG, modelConfig } from "../model/llm-config.js";
import {
  anthropicRequestBody,
  canCountAnthropicTokens,
  countAnthropicTokens,
} from "./anthropic-token-count.js";
import type { StreamRequest } from "./provider.js";

const request: StreamRequest = {
  model: modelConfig({
    protocol: "anthropic-messages",
    model: "claude-sonnet-4-5",
    apiKey: "sk-test",
    baseUrl: "http://127.0.0.1:9/",
  }),
  systemPrompt: "You are terse.",
  messages: [
    { role: "user", content: [{ type: "text", text: "read a.ts" }], timestamp: 0 },
    {
      role: "assistant",
      content: [{ type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a.ts" } }],
      stopReason: "toolUse",
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      timestamp: 0,
    },
    {
      role: "toolResult",
      toolCallId: "toolu_1",
      toolName: "read",
      content: [{ type: "text", text: "x" }],
      isError: false,
      timestamp: 0,
    },
  ],
  tools: [
    {
      name: "read",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
  thinkingLevel: "medium",
  cache: DEFAULT_CACHE_CONFIG,
};

describe("Anthropic token counting", () => {
  it("builds the same body the adapter sends, minus streaming fields", async () => {
    const body = await anthropicRequestBody(request);
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.system).toEqual([
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.tools?.[0]).toMatchObject({ name: "read", cache_control: { type: "ephemeral" } });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(body.messages)).toContain('"tool_use_id":"toolu_1"');
    expect(body).not.toHaveProperty("stream");
    expect(body).not.toHaveProperty("max_tokens");
  });

  it("posts to {base}/v1/messages/count_tokens with the key and returns input_tokens", async () => {
    const seen: { url: string; key: string | null; body: unknown }[] = [];
    const fetch: typeof globalThis.fetch = async (url, init) => {
      const headers = new Headers(init?.headers);
      // @anthropic-ai/sdk 1.x sends the key as a bearer token; older versions used x-api-key
      const key =
        headers.get("x-api-key") ?? headers.get("authorization")?.replace(/^Bearer /, "") ?? null;
      seen.push({ url: String(url), key, body: JSON.parse(String(init?.body)) });
      return new Response(JSON.stringify({ input_tokens: 1234 }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    };
    expect(canCountAnthropicTokens(request)).toBe(true);
    expect(await countAnthropicTokens(request, { fetch })).toBe(1234);
    expect(seen[0]?.url).toBe("http://127.0.0.1:9/v1/messages/count_tokens");
    expect(seen[0]?.key).toBe("sk-test");
    expect(seen[0]?.body).toMatchObject({ model: "claude-sonnet-4-5" });
  });

  it("refuses configs it cannot count exactly", async () => {
    const openai = { ...request, model: modelConfig({ protocol: "openai-chat", model: "gpt" }) };
    expect(canCountAnthropicTokens(openai)).toBe(false);
    await expect(countAnthropicTokens(openai)).rejects.toThrow(/anthropic-messages/);
  });
});
