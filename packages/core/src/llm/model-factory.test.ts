import { describe, expect, it } from "vitest";
import { modelConfig } from "../model/llm-config.js";
import {
  compatRequestBodyTransform,
  createLanguageModel,
  normalizeAnthropicBaseUrl,
  normalizeAzureBaseUrl,
  normalizeGeminiBaseUrl,
  PROVIDER_IDS,
  usesOpenAiCompatible,
  vertexBaseUrl,
} from "./model-factory.js";

describe("model factory", () => {
  it("normalises ANTHROPIC_BASE_URL both ways", () => {
    expect(normalizeAnthropicBaseUrl(undefined)).toBe("https://api.anthropic.com/v1");
    expect(normalizeAnthropicBaseUrl("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787/v1");
    expect(normalizeAnthropicBaseUrl("http://127.0.0.1:8787/v1/")).toBe("http://127.0.0.1:8787/v1");
    expect(normalizeAnthropicBaseUrl("https://api.anthropic.com")).toBe(
      "https://api.anthropic.com/v1",
    );
  });

  it("other base URL rules", () => {
    expect(normalizeGeminiBaseUrl("http://h:1")).toBe("http://h:1/v1beta");
    expect(normalizeGeminiBaseUrl("http://h:1/v1beta/")).toBe("http://h:1/v1beta");
    expect(normalizeAzureBaseUrl("https://r.openai.azure.com/")).toBe(
      "https://r.openai.azure.com/openai",
    );
    expect(normalizeAzureBaseUrl("http://127.0.0.1:5/openai")).toBe("http://127.0.0.1:5/openai");
    expect(vertexBaseUrl("http://h:1", "p", "us-central1")).toBe(
      "http://h:1/v1beta1/projects/p/locations/us-central1/publishers/google",
    );
    expect(vertexBaseUrl(undefined, "p", "global")).toBe(
      "https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global/publishers/google",
    );
  });

  it("openai-chat uses openai-compatible only for non-OpenAI base URLs", () => {
    expect(usesOpenAiCompatible(modelConfig({ protocol: "openai-chat", model: "m" }))).toBe(false);
    expect(
      usesOpenAiCompatible(
        modelConfig({ protocol: "openai-chat", model: "m", baseUrl: "https://api.openai.com/v1" }),
      ),
    ).toBe(false);
    expect(
      usesOpenAiCompatible(
        modelConfig({ protocol: "openai-chat", model: "m", baseUrl: "http://localhost:11434/v1" }),
      ),
    ).toBe(true);
  });

  it("REQ-147 body transform: max_completion_tokens and developer role", () => {
    const transform = compatRequestBodyTransform(
      modelConfig({
        protocol: "openai-chat",
        model: "m",
        maxTokensField: "max_completion_tokens",
        supportsDeveloperRole: true,
      }),
    );
    expect(
      transform({
        max_tokens: 5,
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: "u" },
        ],
      }),
    ).toEqual({
      max_completion_tokens: 5,
      messages: [
        { role: "developer", content: "s" },
        { role: "user", content: "u" },
      ],
    });
    const identity = compatRequestBodyTransform(
      modelConfig({ protocol: "openai-chat", model: "m" }),
    );
    const body = { max_tokens: 5, messages: [{ role: "system", content: "s" }] };
    expect(identity(body)).toEqual(body);
  });

  it("builds a model for each of the seven protocols without touching the network", async () => {
    const configs = [
      modelConfig({ protocol: "anthropic-messages", model: "claude", apiKey: "k" }),
      modelConfig({ protocol: "openai-chat", model: "gpt", apiKey: "k" }),
      modelConfig({ protocol: "openai-chat", model: "llama", baseUrl: "http://localhost:1/v1" }),
      modelConfig({ protocol: "openai-responses", model: "gpt", apiKey: "k" }),
      modelConfig({
        protocol: "azure-openai-responses",
        model: "dep",
        apiKey: "k",
        options: { resourceName: "r" },
      }),
      modelConfig({ protocol: "google-gemini", model: "gemini", apiKey: "k" }),
      modelConfig({
        protocol: "google-vertex",
        model: "gemini",
        options: { project: "p", accessToken: "t" },
      }),
      modelConfig({ protocol: "bedrock-converse", model: "anthropic.claude", apiKey: "k" }),
    ];
    const providers = (await Promise.all(configs.map((c) => createLanguageModel(c)))).map(
      (model) => model.provider,
    );
    expect(providers).toEqual([
      "anthropic.messages",
      "openai.chat",
      "openaiCompatible.chat",
      "openai.responses",
      "azure.responses",
      "google.generative-ai",
      "google.vertex.chat",
      "amazon-bedrock",
    ]);
    expect(Object.values(PROVIDER_IDS)).toEqual([
      "anthropic",
      "openai",
      "openai_responses",
      "azure_openai",
      "google",
      "google_vertex",
      "bedrock",
    ]);
    await expect(
      createLanguageModel(modelConfig({ protocol: "azure-openai-responses", model: "d" })),
    ).rejects.toThrow(/resourceName/);
  });
});
