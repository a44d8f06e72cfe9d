import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { transcriptOf } from "../../context/optimization/summarizer.js";
import type { ContextMessage } from "../../model/message-types.js";
import { type FakeLlmServer, startFakeLlmServer } from "./index.js";
import { requestedMaxTokens, summarizeTranscript } from "./summarize.js";

// The fake model answers optimization's summary requests by summarizing what it is shown, and
// such a request never takes a scripted turn (issue #15).

let server: FakeLlmServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startFakeLlmServer();
  client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function text(id: string, role: "user" | "assistant", body: string): ContextMessage {
  return {
    id,
    session_id: "s",
    role,
    status: "complete",
    created_at: "2025-01-01T00:00:00.000Z",
    body: { message_type: "text", text: body },
  };
}

const transcript = transcriptOf([
  text("1", "user", "Hello there. The vault code for room R12 is garnet-1084."),
  text("2", "assistant", "Noted, I will keep that in mind."),
  text("3", "user", "Config lives in src/app/config.ts. Thanks!"),
]);
const prompt = `Summarize these 3 messages:\n\n${transcript}`;

describe("fake LLM server: summary requests", () => {
  it("keeps the sentences with numbers, codes and paths and drops the rest", () => {
    const { text: summary, cut } = summarizeTranscript(prompt, 600);
    expect(summary).toBe(
      "- The vault code for room R12 is garnet-1084.\n- Config lives in src/app/config.ts.",
    );
    expect(cut).toBe(false);
  });

  it("stops at max_tokens", () => {
    const { text: summary, cut } = summarizeTranscript(prompt, 16);
    expect(summary).toBe("- The vault code for room R12 is garnet-1084.");
    expect(cut).toBe(true);
  });

  it("reads max_tokens in every wire format", () => {
    expect(requestedMaxTokens({ max_tokens: 7 })).toBe(7);
    expect(requestedMaxTokens({ max_output_tokens: 8 })).toBe(8);
    expect(requestedMaxTokens({ generationConfig: { maxOutputTokens: 9 } })).toBe(9);
    expect(requestedMaxTokens({ inferenceConfig: { maxTokens: 10 } })).toBe(10);
    expect(requestedMaxTokens({})).toBeUndefined();
  });

  it("answers a summary request without taking the queued turn", async () => {
    server.enqueue({ blocks: [{ type: "text", text: "the scripted answer" }] });
    const summary = await client.messages.create({
      model: "claude-test-model",
      max_tokens: 600,
      messages: [{ role: "user", content: prompt }],
    });
    expect(summary.content).toEqual([
      {
        type: "text",
        text: "- The vault code for room R12 is garnet-1084.\n- Config lives in src/app/config.ts.",
      },
    ]);
    const next = await client.messages.create({
      model: "claude-test-model",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(next.content).toEqual([{ type: "text", text: "the scripted answer" }]);
    expect(server.requests).toHaveLength(2);
  });
});
