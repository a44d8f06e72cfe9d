import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FetchFunction } from "../../src/llm/model-factory.js";
import { modelConfig } from "../../src/model/llm-config.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server/index.js";
import { commonChecks, done, lastBody, provider, request, run } from "./provider-harness.js";

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** Sends requests for OpenAI's official host to the fake server, so the default base URL path is used. */
const toFake: FetchFunction = (input, init) =>
  fetch(String(input).replace("https://api.openai.com", server.url), init);

type Body = Record<string, unknown>;
const messagesOf = (body: Body) =>
  body.messages as Array<{ role: string; content?: unknown; tool_calls?: unknown }>;

describe("openai-chat (REQ-041, REQ-130, REQ-147, REQ-167)", () => {
  it("official OpenAI: tools, tool round trip, usage option, REQ-147 switches via providerOptions", async () => {
    const model = modelConfig({
      protocol: "openai-chat",
      model: "gpt-4.1",
      apiKey: "o-key",
      supportsDeveloperRole: true,
      supportsReasoningEffort: true,
      maxTokensField: "max_completion_tokens",
    });
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    done(await run(provider("openai-chat", toFake), request(model, { thinkingLevel: "minimal" })));
    const recorded = server.requests.at(-1);
    expect(recorded?.path).toBe("/v1/chat/completions");
    expect(recorded?.headers.authorization).toBe("Bearer o-key");
    const body = lastBody(server);
    expect(body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: "low",
      max_completion_tokens: 1000,
    });
    expect(body.max_tokens).toBeUndefined();
    const messages = messagesOf(body);
    expect(messages.map((m) => m.role)).toEqual(["developer", "user", "assistant", "tool", "user"]);
    expect(messages[2]?.tool_calls).toEqual([
      { id: "call_prev", type: "function", function: { name: "list_files", arguments: "{}" } },
    ]);
    expect(messages[3]).toMatchObject({
      role: "tool",
      tool_call_id: "call_prev",
      content: "README.md",
    });
    expect(
      (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
    ).toEqual(["list_files", "get_weather"]);
  });

  it("official OpenAI: parsing, stop reasons, usage, errors, interruption, abort", async () => {
    const model = modelConfig({ protocol: "openai-chat", model: "gpt-4.1", apiKey: "o-key" });
    await commonChecks(server, provider("openai-chat", toFake), model, {
      thinking: false,
      cacheWrite: false,
    });
  });

  it("OpenAI-compatible server: max_completion_tokens, developer role and reasoning_effort in the body", async () => {
    const model = modelConfig({
      protocol: "openai-chat",
      model: "qwen3",
      baseUrl: `${server.url}/v1`,
      maxTokensField: "max_completion_tokens",
      supportsDeveloperRole: true,
      supportsReasoningEffort: true,
    });
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    done(await run(provider("openai-chat"), request(model, { thinkingLevel: "high" })));
    const body = lastBody(server);
    expect(body).toMatchObject({
      model: "qwen3",
      max_completion_tokens: 1000,
      reasoning_effort: "high",
      stream: true,
    });
    expect(body.max_tokens).toBeUndefined();
    expect(messagesOf(body)[0]).toEqual({ role: "developer", content: "You are a weather bot." });
    // defaults: max_tokens, system role, no reasoning_effort
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    done(
      await run(
        provider("openai-chat"),
        request(
          modelConfig({ protocol: "openai-chat", model: "qwen3", baseUrl: `${server.url}/v1` }),
        ),
      ),
    );
    const plain = lastBody(server);
    expect(plain.max_tokens).toBe(1000);
    expect(plain.reasoning_effort).toBeUndefined();
    expect(messagesOf(plain)[0]?.role).toBe("system");
  });

  it("OpenAI-compatible server: parsing, stop reasons, usage, errors, interruption, abort", async () => {
    const model = modelConfig({
      protocol: "openai-chat",
      model: "qwen3",
      baseUrl: `${server.url}/v1`,
    });
    // REQ-131: compatible servers stream thinking as delta.reasoning_content
    await commonChecks(server, provider("openai-chat"), model, {
      thinking: true,
      cacheWrite: false,
    });
  });
});

describe("openai-responses (REQ-123, REQ-130, REQ-167)", () => {
  const model = () =>
    modelConfig({
      protocol: "openai-responses",
      model: "o4-mini",
      apiKey: "o-key",
      baseUrl: `${server.url}/v1`,
    });

  it("request format: instructions/system, function tools, reasoning effort, tool round trip", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    done(await run(provider("openai-responses"), request(model())));
    expect(server.requests.at(-1)?.path).toBe("/v1/responses");
    const body = lastBody(server);
    expect(body).toMatchObject({
      model: "o4-mini",
      stream: true,
      max_output_tokens: 1000,
      reasoning: { effort: "medium", summary: "auto" },
    });
    const input = JSON.stringify(body.input);
    expect(input).toContain("You are a weather bot.");
    expect(input).toContain('"type":"function_call"');
    expect(input).toContain('"call_id":"call_prev"');
    expect(input).toContain('"type":"function_call_output"');
    expect(
      (body.tools as Array<{ type: string; name: string }>).map((t) => [t.type, t.name]),
    ).toEqual([
      ["function", "list_files"],
      ["function", "get_weather"],
    ]);
  });

  it("parsing incl. reasoning summary, stop reasons, usage, errors, interruption, abort", async () => {
    await commonChecks(server, provider("openai-responses"), model(), {
      thinking: true,
      cacheWrite: false,
    });
  });
});

describe("azure-openai-responses (REQ-124, REQ-167)", () => {
  const model = () =>
    modelConfig({
      protocol: "azure-openai-responses",
      model: "my-deployment",
      apiKey: "az-key",
      baseUrl: `${server.url}/openai`,
    });

  it("authenticates with api-key, not Authorization", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const message = done(await run(provider("azure-openai-responses"), request(model())));
    expect(message.provider).toBe("azure_openai");
    const recorded = server.requests.at(-1);
    expect(recorded?.protocol).toBe("azure-openai-responses");
    expect(recorded?.headers["api-key"]).toBe("az-key");
    expect(recorded?.headers.authorization).toBeUndefined();
    expect(lastBody(server)).toMatchObject({ model: "my-deployment", stream: true });
  });

  it("supportsReasoningEffort forces reasoning for opaque deployment names", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const forced = modelConfig({
      protocol: "azure-openai-responses",
      model: "prod-deployment",
      apiKey: "az-key",
      baseUrl: `${server.url}/openai`,
      supportsReasoningEffort: true,
    });
    done(await run(provider("azure-openai-responses"), request(forced, { thinkingLevel: "high" })));
    expect(lastBody(server).reasoning).toMatchObject({ effort: "high" });
  });

  it("parsing, stop reasons, usage, errors, interruption, abort", async () => {
    await commonChecks(server, provider("azure-openai-responses"), model(), {
      thinking: false,
      cacheWrite: false,
    });
  });
});
