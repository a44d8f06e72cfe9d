import { describe, expect, it } from "vitest";
import { randomContextHistory, text } from "../../../test/support/random-context-history.js";
import { modelConfig } from "../../model/llm-config.js";
import type { ContextMessage } from "../../model/message-types.js";
import { OptimizationConfigSchema } from "../../model/session-config.js";
import { ScriptedProvider } from "../../testing/scripted-provider.js";
import type { ExtractiveSummarizer } from "./extractive-summarizer.js";
import { optimizeBranch } from "./optimizer.js";
import { countRequestTokens } from "./request-tokens.js";
import { LlmSummarizer, SummarizationError } from "./summarizer.js";

const model = modelConfig({ protocol: "offline", model: "summarizer" });
const signal = new AbortController().signal;

function optimizeWith(
  messages: ContextMessage[],
  summarizer: LlmSummarizer | ExtractiveSummarizer,
) {
  let n = 0;
  const base = {
    messages,
    systemPrompt: "sys",
    tools: [],
    config: OptimizationConfigSchema.parse({ strategy: { type: "recent_n", n: 4 } }),
    summarizer,
    now: () => "2025-03-01T00:00:00.000Z",
    newId: () => `new-${n++}`,
    sessionId: "s1",
    branchId: "b1",
    signal,
  };
  return optimizeBranch({
    ...base,
    contextWindow: Math.floor(countRequestTokens(base).total / 1.2),
  });
}

describe("Message summarization", () => {
  it("sends a batch of old messages to the LLM and stores the summary as a new SystemControl replacing them in the view only", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "The user fixed the parser." }] },
    ]);
    const messages = randomContextHistory(4, { turns: 12, maxOutputLines: 4 });
    const snapshot = structuredClone(messages);
    const result = await optimizeWith(messages, new LlmSummarizer({ provider, model }));

    expect(provider.requests).toHaveLength(1);
    const prompt = JSON.stringify(provider.requests[0]!.messages);
    expect(prompt).toContain(
      messages[0]!.body.message_type === "text" ? messages[0]!.body.text.slice(0, 30) : "",
    );
    expect(provider.requests[0]!.tools).toEqual([]);

    expect(result.summaries).toHaveLength(1);
    const summary = result.summaries[0]!;
    expect(summary).toMatchObject({
      session_id: "s1",
      role: "system",
      status: "complete",
      body: {
        message_type: "system_control",
        kind: "summary",
        text: "The user fixed the parser.",
        data: { summarizer: "llm" },
      },
    });
    expect(result.view[0]).toBe(summary);
    const replaces = summary.body.message_type === "system_control" ? summary.body.replaces : [];
    expect(replaces).toEqual(
      messages.slice(0, messages.length - result.view.length + 1).map((m) => m.id),
    );
    // the originals remain in storage, untouched
    expect(messages).toEqual(snapshot);
  });

  it("throws a clear error when the LLM fails, and the optimizer falls back to the extractive summary", async () => {
    const failing = new ScriptedProvider([
      { error: { status: 500, message: "upstream exploded" } },
    ]);
    const llm = new LlmSummarizer({ provider: failing, model });
    await expect(llm.summarize([text("a", "user", "hi")], signal)).rejects.toThrow(
      SummarizationError,
    );
    await expect(
      new LlmSummarizer({
        provider: new ScriptedProvider([{ error: { status: 500, message: "upstream exploded" } }]),
        model,
      }).summarize([text("a", "user", "hi")], signal),
    ).rejects.toThrow(
      /LLM summarization with mock\/summarizer failed \(\w+\): .*upstream exploded/,
    );

    const messages = randomContextHistory(6, { turns: 12, maxOutputLines: 4 });
    const provider = new ScriptedProvider([
      { error: { status: 500, message: "upstream exploded" } },
    ]);
    const result = await optimizeWith(messages, new LlmSummarizer({ provider, model }));
    const summary = result.summaries[0]!;
    expect(summary.body).toMatchObject({ kind: "summary", data: { summarizer: "extractive" } });
    expect(JSON.stringify(summary.body)).toContain("upstream exploded");
  });

  it("rejects an empty LLM answer", async () => {
    const provider = new ScriptedProvider([{ blocks: [] }]);
    await expect(
      new LlmSummarizer({ provider, model }).summarize([text("a", "user", "hi")], signal),
    ).rejects.toThrow(/no text/);
  });
});
