import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { modelConfig } from "../../src/model/llm-config.js";
import { type FakeLlmServer, startFakeLlmServer } from "../../src/testing/fake-llm-server/index.js";
import { commonChecks, done, lastBody, provider, request, run } from "./provider-harness.js";

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

describe("bedrock-converse (REQ-122, REQ-126, REQ-167)", () => {
  const bearer = () =>
    modelConfig({
      protocol: "bedrock-converse",
      model: MODEL_ID,
      apiKey: "bedrock-token",
      baseUrl: server.url,
      options: { region: "us-west-2" },
    });

  it("request format: converse-stream path, toolSpec, toolResult, cachePoints, reasoning budget", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const message = done(await run(provider("bedrock-converse"), request(bearer())));
    expect(message.provider).toBe("bedrock");
    const recorded = server.requests.at(-1);
    expect(recorded?.path).toBe(`/model/${encodeURIComponent(MODEL_ID)}/converse-stream`);
    expect(recorded?.headers.authorization).toBe("Bearer bedrock-token");
    const body = lastBody(server);
    expect(body.system).toEqual([
      { text: "You are a weather bot." },
      { cachePoint: { type: "default" } },
    ]);
    const tools = (
      body.toolConfig as {
        tools: Array<{ toolSpec: { name: string; inputSchema: { json: unknown } } }>;
      }
    ).tools;
    expect(tools.map((t) => t.toolSpec.name)).toEqual(["list_files", "get_weather"]);
    expect(tools[1]?.toolSpec.inputSchema.json).toMatchObject({ required: ["city"] });
    const messages = body.messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]?.content[1]).toMatchObject({
      toolUse: { toolUseId: "call_prev", name: "list_files", input: {} },
    });
    const lastUser = messages[2]?.content ?? [];
    expect(lastUser[0]).toMatchObject({ toolResult: { toolUseId: "call_prev" } });
    // REQ-126: the breakpoint after the second-to-last message (the tool result)
    expect(lastUser[1]).toEqual({ cachePoint: { type: "default" } });
    expect(lastUser[2]).toMatchObject({ text: "Weather in Oslo?" });
    // Anthropic on Bedrock: budget in additionalModelRequestFields, max tokens raised by it
    expect(body.additionalModelRequestFields).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    expect(body.inferenceConfig).toMatchObject({ maxTokens: 1000 + 2048 });
  });

  it("SigV4 credentials from options sign the request", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const sigv4 = modelConfig({
      protocol: "bedrock-converse",
      model: MODEL_ID,
      baseUrl: server.url,
      options: {
        region: "eu-central-1",
        accessKeyId: "AKIDEXAMPLE",
        secretAccessKey: "secret",
        sessionToken: "session",
      },
    });
    done(await run(provider("bedrock-converse"), request(sigv4, { thinkingLevel: "off" })));
    const headers = server.requests.at(-1)?.headers ?? {};
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-central-1\/bedrock\/aws4_request/,
    );
    expect(headers["x-amz-security-token"]).toBe("session");
  });

  it("parsing incl. reasoning, stop reasons, usage incl. cache write, errors, interruption, abort", async () => {
    await commonChecks(server, provider("bedrock-converse"), bearer(), {
      thinking: true,
      cacheWrite: true,
    });
  });
});
