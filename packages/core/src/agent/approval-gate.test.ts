import { describe, expect, it } from "vitest";
import {
  collect,
  echoTool,
  loopConfig,
  recordingLogger,
} from "../../test/support/agent-fixtures.js";
import { type AgentMessage, messageText, userMessage } from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { agentLoop, agentLoopContinue } from "./loop.js";
import type { AgentContext, ApproveToolCalls, ToolCallVerdict } from "./types.js";

// The approval gate: the seam through which the Context Manager holds tool calls for a person's
// decision. Deferred calls end the run with the calls unanswered; a later continuation (possibly
// in another process, from a reloaded history) runs them.

function context(messages: AgentMessage[] = []): AgentContext {
  return {
    systemPrompt: "test",
    messages,
    tools: [echoTool],
    agentId: "agent",
    sessionId: "session",
  };
}

const twoCalls = {
  blocks: [
    { type: "text" as const, text: "Echoing twice." },
    { type: "toolCall" as const, id: "c1", name: "echo", arguments: { text: "one" } },
    { type: "toolCall" as const, id: "c2", name: "echo", arguments: { text: "two" } },
  ],
};

describe("approval gate", () => {
  it("defers: the calls before the first deferred one run, the rest wait; the run ends with pendingToolCalls", async () => {
    const provider = new ScriptedProvider([twoCalls]);
    const gate: ApproveToolCalls = (calls) =>
      calls.map((c) => ({ toolCallId: c.id, verdict: c.id === "c2" ? "defer" : "run" }));
    const ctx = context();
    const events = await collect(
      agentLoop([userMessage("go", 1)], ctx, loopConfig(provider, { approveToolCalls: gate })),
    );
    const started = events.flatMap((e) => (e.type === "toolExecutionStart" ? [e.toolCallId] : []));
    expect(started).toEqual(["c1"]);
    const end = events.at(-1);
    expect(end?.type === "agentEnd" && end.pendingToolCalls).toEqual(["c2"]);
    expect(ctx.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    const turnEnd = events.find((e) => e.type === "turnEnd");
    expect(turnEnd?.type === "turnEnd" && turnEnd.toolResults.map((r) => r.toolCallId)).toEqual([
      "c1",
    ]);
    expect(provider.requests).toHaveLength(1);
  });

  it("defers: nothing runs when the first call waits (a later call may depend on it)", async () => {
    const provider = new ScriptedProvider([twoCalls]);
    const gate: ApproveToolCalls = (calls) =>
      calls.map((c) => ({ toolCallId: c.id, verdict: c.id === "c1" ? "defer" : "run" }));
    const ctx = context();
    const events = await collect(
      agentLoop([userMessage("go", 1)], ctx, loopConfig(provider, { approveToolCalls: gate })),
    );
    expect(events.some((e) => e.type === "toolExecutionStart")).toBe(false);
    const end = events.at(-1);
    expect(end?.type === "agentEnd" && end.pendingToolCalls).toEqual(["c1"]);
    expect(ctx.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("continues a partly answered round: only the unanswered calls are asked for and run, results in call order", async () => {
    const first = new ScriptedProvider([twoCalls]);
    const ctx = context();
    await collect(
      agentLoop(
        [userMessage("go", 1)],
        ctx,
        loopConfig(first, {
          approveToolCalls: (calls) =>
            calls.map((c) => ({ toolCallId: c.id, verdict: c.id === "c2" ? "defer" : "run" })),
        }),
      ),
    );
    const restored = context(JSON.parse(JSON.stringify(ctx.messages)) as AgentMessage[]);
    const second = new ScriptedProvider([{ blocks: [{ type: "text", text: "Done." }] }]);
    const asked: string[][] = [];
    const events = await collect(
      agentLoopContinue(
        restored,
        loopConfig(second, {
          approveToolCalls: (calls) => {
            asked.push(calls.map((c) => c.id));
            return calls.map((c) => ({ toolCallId: c.id, verdict: "run" }));
          },
        }),
      ),
    );
    expect(asked).toEqual([["c2"]]);
    const started = events.flatMap((e) => (e.type === "toolExecutionStart" ? [e.toolCallId] : []));
    expect(started).toEqual(["c2"]);
    const results = second.requests[0]!.messages.filter((m) => m.role === "toolResult");
    expect(results.map((m) => m.role === "toolResult" && m.toolCallId)).toEqual(["c1", "c2"]);
    expect(restored.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
  });

  it("resumes deferred calls with agentLoopContinue from a reloaded history, then asks the model again", async () => {
    const first = new ScriptedProvider([twoCalls]);
    const ctx = context();
    await collect(
      agentLoop(
        [userMessage("go", 1)],
        ctx,
        loopConfig(first, {
          approveToolCalls: (calls) => calls.map((c) => ({ toolCallId: c.id, verdict: "defer" })),
        }),
      ),
    );
    // a restart in between: only the saved history survives
    const restored = context(JSON.parse(JSON.stringify(ctx.messages)) as AgentMessage[]);
    const second = new ScriptedProvider([{ blocks: [{ type: "text", text: "Done." }] }]);
    const decisions: Record<string, ToolCallVerdict> = {
      c1: { toolCallId: "c1", verdict: "run" },
      c2: { toolCallId: "c2", verdict: "deny", reason: "The user denied this tool call." },
    };
    const stream = agentLoopContinue(
      restored,
      loopConfig(second, {
        approveToolCalls: (calls) => calls.map((c) => decisions[c.id]!),
      }),
    );
    const events = await collect(stream);
    const ends = events.flatMap((e) => (e.type === "toolExecutionEnd" ? [e] : []));
    // parallel execution: the denied call ends first; results still come in call order
    expect(Object.fromEntries(ends.map((e) => [e.toolCallId, e.isError]))).toEqual({
      c1: false,
      c2: true,
    });
    const deniedEnd = ends.find((e) => e.toolCallId === "c2")!;
    expect(messageText({ role: "user", content: deniedEnd.result.content, timestamp: 0 })).toBe(
      "The user denied this tool call.",
    );
    expect(restored.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    // the model saw both results, the denial as an error
    const request = second.requests[0]!;
    const results = request.messages.filter((m) => m.role === "toolResult");
    expect(results.map((m) => m.role === "toolResult" && m.isError)).toEqual([false, true]);
    const turnStarts = events.filter((e) => e.type === "turnStart");
    expect(turnStarts.map((e) => e.type === "turnStart" && e.triggeredBy)).toEqual([
      "continuation",
      "continuation",
    ]);
  });

  it("a throwing gate defers (never runs calls unapproved) and logs", async () => {
    const provider = new ScriptedProvider([twoCalls]);
    const logger = recordingLogger();
    const ctx = context();
    const events = await collect(
      agentLoop(
        [userMessage("go", 1)],
        ctx,
        loopConfig(provider, {
          logger,
          approveToolCalls: () => {
            throw new Error("policy store down");
          },
        }),
      ),
    );
    const end = events.at(-1);
    expect(end?.type === "agentEnd" && end.pendingToolCalls).toEqual(["c1", "c2"]);
    expect(events.some((e) => e.type === "toolExecutionStart")).toBe(false);
    expect(logger.entries.some((e) => e.level === "error")).toBe(true);
  });

  it("REQ-108 still refuses to continue from an assistant message without tool calls", () => {
    const ctx = context([
      userMessage("hi", 1),
      {
        role: "assistant",
        content: [{ type: "text", text: "hello" }],
        stopReason: "stop",
        model: "m",
        provider: "p",
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
        timestamp: 2,
      },
    ]);
    expect(() => agentLoopContinue(ctx, loopConfig(new ScriptedProvider([])))).toThrow(
      /assistant message/,
    );
  });
});
