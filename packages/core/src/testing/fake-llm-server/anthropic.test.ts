import Anthropic, { RateLimitError } from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakeLlmServer } from "./index.js";
import { startFakeLlmServer } from "./index.js";

// Read back with the official Anthropic SDK: if it parses our stream, so will the real client.

let server: FakeLlmServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startFakeLlmServer();
  client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const ask = { model: "claude-test-model", max_tokens: 1024 } as const;

describe("fake LLM server: Anthropic Messages", () => {
  it("REQ-167: streams text, thinking with signature, tool_use, stop reason and cache usage the SDK parses", async () => {
    server.enqueue({
      blocks: [
        { type: "thinking", thinking: "Let me think about the weather.", signature: "sig-abc" },
        { type: "text", text: "Checking the weather for you now." },
        { type: "toolCall", name: "get_weather", arguments: { city: "Paris", days: 3 } },
      ],
      usage: { input: 120, output: 45, cacheRead: 300, cacheWrite: 50 },
      chunkSize: 5,
    });
    const textDeltas: string[] = [];
    const stream = client.messages.stream({
      ...ask,
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    stream.on("text", (delta) => textDeltas.push(delta));
    const message = await stream.finalMessage();

    expect(message.model).toBe("claude-test-model");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Let me think about the weather.", signature: "sig-abc" },
      { type: "text", text: "Checking the weather for you now." },
      {
        type: "tool_use",
        id: "call_1",
        name: "get_weather",
        input: { city: "Paris", days: 3 },
      },
    ]);
    expect(textDeltas.length).toBeGreaterThan(1);
    expect(textDeltas.join("")).toBe("Checking the weather for you now.");
    expect(message.usage).toMatchObject({
      input_tokens: 120,
      output_tokens: 45,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 50,
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      protocol: "anthropic-messages",
      method: "POST",
      path: "/v1/messages",
      body: { model: "claude-test-model", stream: true },
    });
    // this SDK major sends the API key as a bearer token
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-ant-fake");
  });

  it("maps length stops to max_tokens and streams tool arguments in at least two pieces", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "cut off" }], stopReason: "length" });
    const lengthMessage = await client.messages
      .stream({ ...ask, messages: [{ role: "user", content: "x" }] })
      .finalMessage();
    expect(lengthMessage.stop_reason).toBe("max_tokens");

    server.enqueue({
      blocks: [{ type: "toolCall", id: "toolu_1", name: "t", arguments: { a: 1 } }],
    });
    const events = await client.messages.create({
      ...ask,
      stream: true,
      messages: [{ role: "user", content: "y" }],
    });
    const jsonPieces: string[] = [];
    for await (const event of events) {
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
        jsonPieces.push(event.delta.partial_json);
      }
    }
    expect(jsonPieces.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(jsonPieces.join(""))).toEqual({ a: 1 });
  });

  it("answers stream:false with the whole message", async () => {
    server.enqueue({
      blocks: [
        { type: "text", text: "Hello there" },
        { type: "toolCall", name: "lookup", arguments: { q: "x" } },
      ],
      model: "claude-reported",
    });
    const message = await client.messages.create({
      ...ask,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.model).toBe("claude-reported");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "text", text: "Hello there" },
      { type: "tool_use", id: "call_1", name: "lookup", input: { q: "x" } },
    ]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it("counts tokens deterministically from the body without consuming a scripted turn", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "still queued" }] });
    const params = { model: ask.model, messages: [{ role: "user" as const, content: "count me" }] };
    const first = await client.messages.countTokens(params);
    const second = await client.messages.countTokens(params);
    const longer = await client.messages.countTokens({
      ...params,
      messages: [{ role: "user", content: "count me, and this much longer text too" }],
    });
    expect(first.input_tokens).toBeGreaterThan(0);
    expect(second.input_tokens).toBe(first.input_tokens);
    expect(longer.input_tokens).toBeGreaterThan(first.input_tokens);
    expect(server.requests.map((r) => r.protocol)).toEqual([
      "anthropic-count-tokens",
      "anthropic-count-tokens",
      "anthropic-count-tokens",
    ]);
    const message = await client.messages.create({ ...ask, messages: params.messages });
    expect(message.content).toEqual([{ type: "text", text: "still queued" }]);
  });

  it("count_tokens keeps Anthropic's contract: auth, version header, known fields only", async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${server.url}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const auth = { "x-api-key": "sk-ant-fake", "anthropic-version": "2023-06-01" };
    const valid = { model: ask.model, messages: [{ role: "user", content: "hi" }] };
    const ok = await post(auth, { ...valid, system: "be brief", tools: [], thinking: undefined });
    expect(ok.status).toBe(200);
    expect(Object.keys((await ok.json()) as object)).toEqual(["input_tokens"]);

    const anonymous = await post({ "anthropic-version": "2023-06-01" }, valid);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      type: "error",
      error: { type: "authentication_error" },
    });
    const unversioned = await post({ "x-api-key": "sk-ant-fake" }, valid);
    expect(unversioned.status).toBe(400);
    // a Messages-only field is refused, as the real endpoint refuses it
    const extra = await post(auth, { ...valid, max_tokens: 10 });
    expect(extra.status).toBe(400);
    expect(await extra.json()).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "max_tokens: Extra inputs are not permitted",
      },
    });
    const empty = await post(auth, { model: ask.model, messages: [] });
    expect(empty.status).toBe(400);
    const bearer = await post(
      { authorization: "Bearer sk-ant-oat-x", "anthropic-version": "2023-06-01" },
      valid,
    );
    expect(bearer.status).toBe(200);
  });

  it("count_tokens answers with the server's counter when one is set", async () => {
    server.setTokenCounter((body) => JSON.stringify(body).length);
    const params = { model: ask.model, messages: [{ role: "user" as const, content: "abc" }] };
    const counted = await client.messages.countTokens(params);
    expect(counted.input_tokens).toBe(JSON.stringify(params).length);
    server.reset();
    const reset = await client.messages.countTokens(params);
    expect(reset.input_tokens).not.toBe(JSON.stringify(params).length);
  });

  it("REQ-167: a scripted 429 with retry-after surfaces as the SDK's RateLimitError", async () => {
    server.enqueue({
      error: { status: 429, message: "slow down", headers: { "retry-after": "7" } },
    });
    const failure = await client.messages
      .create({ ...ask, messages: [{ role: "user", content: "hi" }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(RateLimitError);
    const error = failure as RateLimitError;
    expect(error.status).toBe(429);
    expect(error.headers.get("retry-after")).toBe("7");
    expect(error.error).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" },
    });
  });

  it("an interrupted stream makes the SDK fail instead of finishing", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "a".repeat(200) }], interruptAfterChunks: 4 });
    const stream = client.messages.stream({ ...ask, messages: [{ role: "user", content: "x" }] });
    await expect(stream.finalMessage()).rejects.toThrow();
  });

  it("answers an unscripted request with an echo of the last user text", async () => {
    const message = await client.messages.create({
      ...ask,
      messages: [
        { role: "user", content: [{ type: "text", text: "first" }] },
        { role: "assistant", content: "ok" },
        { role: "user", content: [{ type: "text", text: "second question" }] },
      ],
    });
    expect(message.content).toEqual([{ type: "text", text: "Fake reply to: second question" }]);
    expect(message.stop_reason).toBe("end_turn");
  });
});
