import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, echoTool, loopConfig, testModel } from "../../test/support/agent-fixtures.js";
import { agentLoop } from "../agent/loop.js";
import type { AgentEvent } from "../agent/types.js";
import { userMessage } from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool } from "../tools/tool.js";
import {
  extractFinalText,
  NO_TEXT_OUTPUT,
  type SubAgentDetails,
  SubAgentTool,
} from "./sub-agent-tool.js";

function ctx(signal = new AbortController().signal) {
  const updates: unknown[] = [];
  const progress: string[] = [];
  return {
    updates,
    progress,
    context: {
      toolCallId: "call-1",
      toolName: "researcher",
      signal,
      loopId: "s.parent.1",
      onUpdate: (partial: { details?: unknown }) => updates.push(partial.details),
      onProgress: (text: string) => progress.push(text),
    },
  };
}

describe("SubAgentTool", () => {
  it("REQ-148/151: runs a child loop with its own prompt, tools and turn limit; final text is the result", async () => {
    const child = new ScriptedProvider([
      {
        blocks: [{ type: "toolCall", name: "echo", arguments: { text: "hi" } }],
        usage: { input: 5, output: 2 },
      },
      { blocks: [{ type: "text", text: "The answer is 42." }], usage: { input: 7, output: 3 } },
    ]);
    const events: AgentEvent[] = [];
    const tool = new SubAgentTool({
      name: "researcher",
      description: "Researches.",
      provider: child,
      model: testModel,
      onLoopEvent: (e) => {
        events.push(e);
      },
    })
      .withSystemPrompt("You research.")
      .withTools([echoTool])
      .withMaxTurns(3);
    const { context, updates, progress } = ctx();
    const result = await tool.execute({ task: "Find the answer" }, context);

    expect(result.content).toEqual([{ type: "text", text: "The answer is 42." }]);
    expect(child.requests[0]?.systemPrompt).toBe("You research.");
    expect(child.requests[0]?.tools?.map((t) => t.name)).toEqual(["echo"]);
    expect(result.usage).toMatchObject({ input: 12, output: 5 });
    const details = result.details as Extract<SubAgentDetails, { kind: "ended" }>;
    expect(details).toMatchObject({ kind: "ended", status: "completed", turns: 2 });
    // REQ-194/195: the child loop names its parent, and the result names the child loop
    const start = events.find((e) => e.type === "agentStart");
    expect(start).toMatchObject({ parentLoopId: "s.parent.1" });
    expect(result.childLoopId).toBe(start?.loopId);
    // REQ-150: text streams as updates, the child's tool calls as progress
    expect(updates[0]).toMatchObject({ kind: "started", loop_id: result.childLoopId });
    expect(updates.filter((u) => (u as { kind: string }).kind === "text").length).toBeGreaterThan(
      0,
    );
    expect(progress).toEqual(['echo {"text":"hi"}']);
    const turnStart = events.find((e) => e.type === "turnStart");
    expect(turnStart).toMatchObject({ triggeredBy: "subAgent" });
  });

  it("stops at its turn limit and reports it", async () => {
    const looping = new ScriptedProvider([], {
      fallback: { blocks: [{ type: "toolCall", name: "echo", arguments: { text: "again" } }] },
    });
    const tool = new SubAgentTool({
      name: "looper",
      description: "Loops.",
      provider: looping,
      model: testModel,
      tools: [echoTool],
      maxTurns: 2,
    });
    const result = await tool.execute({ task: "go" }, ctx().context);
    expect(looping.requests).toHaveLength(2);
    expect(result.details).toMatchObject({ status: "turn_limit", turns: 2 });
    expect(result.content).toEqual([{ type: "text", text: NO_TEXT_OUTPUT }]);
  });

  it("REQ-163: a failed child answers with the reason, keeping its loop id", async () => {
    const failing = new ScriptedProvider([{ error: { status: 400, message: "bad model" } }]);
    const tool = new SubAgentTool({
      name: "broken",
      description: "Fails.",
      provider: failing,
      model: testModel,
      base: {
        retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 1, maxDelayMs: 1 },
      },
    });
    const result = await tool.execute({ task: "go" }, ctx().context);
    expect(result.details).toMatchObject({ status: "failed" });
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    expect(text).toMatch(/^\(sub-agent failed: .*bad model/);
    expect(result.childLoopId).toBeTruthy();
  });

  it("refuses an empty task", async () => {
    const tool = new SubAgentTool({
      name: "x",
      description: "x",
      provider: new ScriptedProvider(),
      model: testModel,
    });
    await expect(tool.execute({ task: "   " }, ctx().context)).rejects.toMatchObject({
      kind: "invalidArgs",
    });
  });

  it("REQ-141: the parent's abort reaches the child's model request and tools at once", async () => {
    let toolSignal: AbortSignal | undefined;
    const slow = defineTool({
      name: "slow",
      label: "Slow",
      description: "Waits.",
      parameters: z.object({}),
      execute: (_p, c) =>
        new Promise<never>((_, reject) => {
          toolSignal = c.signal;
          c.signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    });
    const child = new ScriptedProvider([
      { blocks: [{ type: "toolCall", name: "slow", arguments: {} }] },
      { blocks: [{ type: "text", text: "never" }] },
    ]);
    const tool = new SubAgentTool({
      name: "waiter",
      description: "Waits.",
      provider: child,
      model: testModel,
      tools: [slow],
    });
    const parent = new AbortController();
    const running = tool.execute({ task: "wait" }, ctx(parent.signal).context);
    while (toolSignal === undefined) await new Promise((r) => setTimeout(r, 1));
    parent.abort();
    expect(toolSignal.aborted).toBe(true);
    await expect(running).rejects.toMatchObject({ kind: "cancelled" });
    expect(child.requests).toHaveLength(1);

    // and a streaming model request is cut at once
    const streaming = new ScriptedProvider([
      { blocks: [{ type: "text", text: "a".repeat(400) }], chunkSize: 1, chunkDelayMs: 5 },
    ]);
    const second = new SubAgentTool({
      name: "talker",
      description: "Talks.",
      provider: streaming,
      model: testModel,
    });
    const aborter = new AbortController();
    const c = ctx(aborter.signal);
    const talking = second.execute({ task: "talk" }, c.context);
    while (c.updates.length < 3) await new Promise((r) => setTimeout(r, 1));
    const at = Date.now();
    aborter.abort();
    await expect(talking).rejects.toMatchObject({ kind: "cancelled" });
    expect(Date.now() - at).toBeLessThan(100);
  });

  it("runs as a tool of a parent loop: the parent's result and tool events carry the child loop", async () => {
    const parent = new ScriptedProvider([
      { blocks: [{ type: "toolCall", name: "helper", arguments: { task: "say hi" } }] },
      { blocks: [{ type: "text", text: "done" }] },
    ]);
    const child = new ScriptedProvider([{ blocks: [{ type: "text", text: "hi there" }] }]);
    const helper = new SubAgentTool({
      name: "helper",
      description: "Helps.",
      provider: child,
      model: testModel,
    });
    const stream = agentLoop(
      [userMessage("go")],
      { systemPrompt: "p", messages: [], tools: [helper], sessionId: "s", agentId: "a" },
      loopConfig(parent),
    );
    const events = await collect(stream);
    const end = events.find((e) => e.type === "toolExecutionEnd");
    expect(end).toMatchObject({ isError: false, result: { content: [{ text: "hi there" }] } });
    expect(end?.type === "toolExecutionEnd" && end.childLoopId).toBeTruthy();
    const messages = await stream.result();
    const toolResult = messages.find((m) => m.role === "toolResult");
    expect(toolResult).toMatchObject({
      childLoopId: expect.any(String),
      usage: expect.any(Object),
    });
    expect(events.some((e) => e.type === "toolExecutionUpdate")).toBe(true);
  });
});

describe("extractFinalText (REQ-149)", () => {
  it("returns the last assistant text, or the fallback for tool-call-only answers", () => {
    const assistant = (content: never[]) =>
      ({
        role: "assistant",
        content,
        stopReason: "stop",
        model: "m",
        provider: "p",
        api: "x",
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
        timestamp: 0,
      }) as never;
    expect(
      extractFinalText([
        assistant([{ type: "text", text: "first" }] as never[]),
        assistant([{ type: "toolCall", id: "1", name: "x", arguments: {} }] as never[]),
      ]),
    ).toBe("first");
    expect(
      extractFinalText([
        assistant([{ type: "toolCall", id: "1", name: "x", arguments: {} }] as never[]),
      ]),
    ).toBe(NO_TEXT_OUTPUT);
  });
});
