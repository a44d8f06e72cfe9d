import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AiSdkProtocol } from "../../src/llm/model-factory.js";
import { type ModelConfig, modelConfig } from "../../src/model/llm-config.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server/index.js";
import { done, failure, provider, request, run } from "./provider-harness.js";

// The fake server's context window (issue #26 finding 4): a request larger than the window is
// refused with the provider's own context-overflow error, which Arbor's real adapter for that
// protocol classifies as `context_overflow` (the error the loops recover from); a request that
// fits is answered, and the refusal takes no scripted turn.

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const models: Array<[AiSdkProtocol, () => ModelConfig]> = [
  [
    "anthropic-messages",
    () =>
      modelConfig({
        protocol: "anthropic-messages",
        model: "claude",
        apiKey: "a-key",
        baseUrl: server.url,
      }),
  ],
  [
    "openai-chat",
    () =>
      modelConfig({
        protocol: "openai-chat",
        model: "gpt",
        apiKey: "o-key",
        baseUrl: `${server.url}/v1`,
      }),
  ],
  [
    "openai-responses",
    () =>
      modelConfig({
        protocol: "openai-responses",
        model: "o4",
        apiKey: "o-key",
        baseUrl: `${server.url}/v1`,
      }),
  ],
  [
    "google-gemini",
    () =>
      modelConfig({
        protocol: "google-gemini",
        model: "gemini",
        apiKey: "g-key",
        baseUrl: server.url,
      }),
  ],
  [
    "bedrock-converse",
    () =>
      modelConfig({
        protocol: "bedrock-converse",
        model: "anthropic.claude",
        apiKey: "b-key",
        baseUrl: server.url,
        options: { region: "us-west-2" },
      }),
  ],
];

describe("the fake server's context window", () => {
  it.each(models)(
    "%s: too large → the provider's own overflow error, classified",
    async (protocol, model) => {
      server.setContextWindow(50);
      server.enqueue({ blocks: [{ type: "text", text: "kept for later" }] });
      const { error } = failure(await run(provider(protocol), request(model())));
      expect(error.kind).toBe("context_overflow");
      expect(error).toMatchObject({ status: 400 });
      // the refusal took no turn: with room again, the queued answer is the next one
      server.setContextWindow(100_000);
      const message = done(await run(provider(protocol), request(model())));
      expect(message.content).toEqual([{ type: "text", text: "kept for later" }]);
    },
  );

  it("says the sizes as Anthropic does; a reset returns to the option; the control endpoint sets it", async () => {
    server.setContextWindow(50);
    const { error } = failure(await run(provider("anthropic-messages"), request(models[0]![1]())));
    expect(error.message).toMatch(/^prompt is too long: \d+ tokens > 50 maximum$/);
    server.reset();
    done(await run(provider("anthropic-messages"), request(models[0]![1]())));

    const set = (body: unknown) =>
      fetch(`${server.url}/__fake/context-window`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await set({ tokens: 0 })).status).toBe(400);
    expect((await set({ tokens: 50 })).status).toBe(200);
    failure(await run(provider("anthropic-messages"), request(models[0]![1]())));
    expect((await set({ tokens: null })).status).toBe(200);
    done(await run(provider("anthropic-messages"), request(models[0]![1]())));
  });
});
