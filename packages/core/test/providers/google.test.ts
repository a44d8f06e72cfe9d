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

type Content = { role: string; parts: Array<Record<string, unknown>> };

function expectGeminiBody(body: Record<string, unknown>): void {
  expect(body.systemInstruction).toEqual({ parts: [{ text: "You are a weather bot." }] });
  // REQ-129 for Gemini: the spec's budgets as they are, thoughts included
  expect(body.generationConfig).toMatchObject({
    maxOutputTokens: 1000,
    thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
  });
  const contents = body.contents as Content[];
  expect(contents.map((c) => c.role)).toEqual(["user", "model", "user", "user"]);
  expect(contents[1]?.parts[1]).toMatchObject({ functionCall: { name: "list_files", args: {} } });
  expect(contents[2]?.parts[0]).toMatchObject({ functionResponse: { name: "list_files" } });
  const tools = body.tools as Array<{ functionDeclarations: Array<{ name: string }> }>;
  expect(tools[0]?.functionDeclarations.map((f) => f.name)).toEqual(["list_files", "get_weather"]);
  // Gemini caches implicitly: no markers anywhere
  expect(JSON.stringify(body)).not.toMatch(/cache_?[cC]ontrol|cachePoint/);
}

describe("google-gemini (REQ-120, REQ-167)", () => {
  // a bare host: the factory adds /v1beta
  const model = () =>
    modelConfig({
      protocol: "google-gemini",
      model: "gemini-2.5-flash",
      apiKey: "g-key",
      baseUrl: server.url,
    });

  it("request format: streamGenerateContent, key header, system, tools, thinking", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const message = done(await run(provider("google-gemini"), request(model())));
    expect(message.provider).toBe("google");
    const recorded = server.requests.at(-1);
    expect(recorded?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    expect(recorded?.query.alt).toBe("sse");
    expect(recorded?.headers["x-goog-api-key"]).toBe("g-key");
    expectGeminiBody(lastBody(server));
  });

  it("parsing incl. thoughts, stop reasons, usage, errors, interruption, abort", async () => {
    await commonChecks(server, provider("google-gemini"), model(), {
      thinking: true,
      cacheWrite: false,
    });
  });
});

describe("google-vertex (REQ-121, REQ-167)", () => {
  const model = () =>
    modelConfig({
      protocol: "google-vertex",
      model: "gemini-2.5-pro",
      baseUrl: server.url,
      options: { project: "proj-1", location: "europe-west4", accessToken: "ya29.token" },
    });

  it("request format: project/location path and Bearer access token", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "ok" }] });
    const message = done(await run(provider("google-vertex"), request(model())));
    expect(message.provider).toBe("google_vertex");
    const recorded = server.requests.at(-1);
    expect(recorded?.protocol).toBe("google-vertex");
    expect(recorded?.path).toBe(
      "/v1beta1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
    );
    expect(recorded?.headers.authorization).toBe("Bearer ya29.token");
    expectGeminiBody(lastBody(server));
  });

  it("parsing incl. thoughts, stop reasons, usage, errors, interruption, abort", async () => {
    await commonChecks(server, provider("google-vertex"), model(), {
      thinking: true,
      cacheWrite: false,
    });
  });
});
