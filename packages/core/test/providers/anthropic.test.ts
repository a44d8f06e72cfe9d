import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { countAnthropicTokens } from "../../src/llm/anthropic-token-count.js";
import { createDefaultProviderRegistry } from "../../src/llm/registry.js";
import { modelConfig } from "../../src/model/llm-config.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server/index.js";
import {
  commonChecks,
  done,
  history,
  lastBody,
  provider,
  request,
  run,
  toolTurn,
} from "./provider-harness.js";

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

// REQ-040 / REQ-167 through AiSdkProvider + @ai-sdk/anthropic against the fake Messages API.
describe("anthropic-messages (REQ-040, REQ-126, REQ-128, REQ-129, REQ-131, REQ-167)", () => {
  // the official-SDK convention: base URL without /v1 (normalised by the model factory)
  const model = () =>
    modelConfig({
      protocol: "anthropic-messages",
      model: "claude-sonnet-4-5",
      apiKey: "a-key",
      baseUrl: server.url,
    });

  it("request format: headers, cache markers, thinking budget, tools, tool round trip", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    done(await run(provider("anthropic-messages"), request(model())));
    const recorded = server.requests.at(-1);
    expect(recorded?.path).toBe("/v1/messages");
    expect(recorded?.headers["x-api-key"]).toBe("a-key");
    expect(recorded?.headers["anthropic-version"]).toBe("2023-06-01");
    const body = lastBody(server);
    expect(body.stream).toBe(true);
    const ephemeral = { type: "ephemeral" };
    expect(body.system).toEqual([
      { type: "text", text: "You are a weather bot.", cache_control: ephemeral },
    ]);
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).toEqual(["list_files", "get_weather"]);
    expect(tools[0]?.cache_control).toBeUndefined();
    expect(tools[1]).toMatchObject({
      cache_control: ephemeral,
      input_schema: { required: ["city"] },
    });
    // REQ-129 medium = 2048; the SDK adds the budget to max_tokens (decision 0002)
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.max_tokens).toBe(1000 + 2048);
    const messages = body.messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]?.content[1]).toMatchObject({
      type: "tool_use",
      id: "call_prev",
      name: "list_files",
      input: {},
    });
    // REQ-126: the second-to-last message (the tool result) carries the breakpoint
    expect(messages[2]?.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "call_prev",
      cache_control: ephemeral,
    });
    expect(messages[2]?.content[1]).toMatchObject({ type: "text", text: "Weather in Oslo?" });
    expect(messages[2]?.content[1]?.cache_control).toBeUndefined();
  });

  it("disabled cache and thinking off send neither", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    done(
      await run(
        provider("anthropic-messages"),
        request(model(), {
          cache: { enabled: true, strategy: { type: "disabled" } },
          thinkingLevel: "off",
        }),
      ),
    );
    const body = JSON.stringify(lastBody(server));
    expect(body).not.toContain("cache_control");
    expect(body).not.toContain("thinking");
  });

  it("signed thinking comes back and is replayed verbatim on the next turn", async () => {
    server.enqueue(toolTurn);
    const first = done(await run(provider("anthropic-messages"), request(model())));
    expect(first.content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants weather.",
      signature: "sig-1",
    });
    server.enqueue({ blocks: [{ type: "text", text: "Sunny." }] });
    const call = first.content.find((b) => b.type === "toolCall");
    if (call?.type !== "toolCall") throw new Error("no tool call");
    done(
      await run(
        provider("anthropic-messages"),
        request(model(), {
          messages: [
            ...history,
            first,
            {
              role: "toolResult",
              toolCallId: call.id,
              toolName: call.name,
              content: [{ type: "text", text: "12°C" }],
              isError: false,
              timestamp: 5,
            },
          ],
        }),
      ),
    );
    const messages = lastBody(server).messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    expect(messages.at(-2)?.content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants weather.",
      signature: "sig-1",
    });
  });

  it("parsing, stop reasons, usage incl. cache, errors, interruption, abort", async () => {
    await commonChecks(server, provider("anthropic-messages"), model(), {
      thinking: true,
      cacheWrite: true,
    });
  });

  it("exact token counts go to count_tokens with the same system, tools and messages", async () => {
    const tokens = await countAnthropicTokens(request(model()));
    const recorded = server.requests.at(-1);
    expect(recorded?.protocol).toBe("anthropic-count-tokens");
    expect(recorded?.path).toBe("/v1/messages/count_tokens");
    const body = lastBody(server);
    expect(body).toMatchObject({
      model: "claude-sonnet-4-5",
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    expect((body.tools as unknown[]).length).toBe(2);
    expect((body.messages as unknown[]).length).toBe(3);
    expect(tokens).toBeGreaterThan(10);
  });

  it("the default registry dispatches anthropic-messages to the AI SDK adapter", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "via registry" }] });
    const events = await run(createDefaultProviderRegistry(), request(model()));
    expect(done(events)).toMatchObject({
      provider: "anthropic",
      content: [{ type: "text", text: "via registry" }],
    });
  });
});
