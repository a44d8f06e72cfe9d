import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  collect,
  echoTool,
  loopConfig,
  recordingLogger,
  types,
} from "../../test/support/agent-fixtures.js";
import {
  type AgentMessage,
  type AssistantMessage,
  messageText,
  userMessage,
} from "../model/llm-messages.js";
import { ScriptedProvider } from "../testing/scripted-provider.js";
import { defineTool, type ToolResult } from "../tools/tool.js";
import type { AgentEventSink } from "./event-sink.js";
import { agentLoop, agentLoopContinue, runAgentLoop } from "./loop.js";
import type { AgentContext, AgentEvent, AgentHooks } from "./types.js";

function context(messages: AgentMessage[] = [], extra: Partial<AgentContext> = {}): AgentContext {
  return { systemPrompt: "You are a test.", messages, tools: [echoTool], ...extra };
}

const ask = (text = "hi") => [userMessage(text, 1)];

describe("agentLoop", () => {
  it("REQ-036/039: a single text turn emits the exact event sequence and returns prompt + answer", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "text", text: "Hello there" }], chunkSize: 4 },
    ]);
    const stream = agentLoop(ask(), context(), loopConfig(provider));
    const events = await collect(stream);
    expect(types(events)).toEqual([
      "agentStart",
      "turnStart",
      "messageStart",
      "messageEnd",
      "messageStart",
      "messageUpdate",
      "messageUpdate",
      "messageUpdate",
      "messageEnd",
      "turnEnd",
      "agentEnd",
    ]);
    const result = await stream.result();
    expect(result.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messageText(result[1] as AssistantMessage)).toBe("Hello there");
    const end = events.at(-1);
    expect(end?.type === "agentEnd" && end.messages).toEqual(result);
    expect(end?.type === "agentEnd" && end.usage.totalTokens).toBeGreaterThan(0);
    const deltas = events.flatMap((e) =>
      e.type === "messageUpdate" && e.delta.type === "text" ? [e.delta.delta] : [],
    );
    expect(deltas.join("")).toBe("Hello there");
  });

  it("REQ-038/045/046: a tool call runs and the model is called again with its result", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", id: "c1", name: "echo", arguments: { text: "ping" } }] },
      { blocks: [{ type: "text", text: "done" }] },
    ]);
    const stream = agentLoop(ask(), context(), loopConfig(provider));
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(result[2]).toMatchObject({
      toolCallId: "c1",
      toolName: "echo",
      isError: false,
      details: { length: 4 },
    });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
    ]);
    expect(provider.requests[0]?.tools.map((t) => t.name)).toEqual(["echo"]);
    const turnEnds = events.filter((e) => e.type === "turnEnd");
    expect(turnEnds).toHaveLength(2);
    expect(turnEnds[0]?.type === "turnEnd" && turnEnds[0].toolResults).toHaveLength(1);
    expect(types(events).filter((t) => t.startsWith("toolExecution"))).toEqual([
      "toolExecutionStart",
      "toolExecutionEnd",
    ]);
  });

  it("REQ-044/145: extension messages never reach the model; transformContext runs before every call", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", name: "echo", arguments: { text: "a" } }] },
      { blocks: [{ type: "text", text: "ok" }] },
    ]);
    const history: AgentMessage[] = [{ role: "extension", kind: "note", data: { x: 1 } }];
    const config = loopConfig(provider, {
      transformContext: (messages) => [userMessage("[prefix]", 0), ...messages],
    });
    await collect(agentLoop(ask(), context(history), config));
    for (const request of provider.requests) {
      expect(request.messages.some((m) => (m.role as string) === "extension")).toBe(false);
      expect(messageText(request.messages[0] as AgentMessage)).toBe("[prefix]");
    }
  });

  it("REQ-068/069: a rejecting input filter stops the run before any model call", async () => {
    const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "never" }] }]);
    const seen: string[] = [];
    const config = loopConfig(provider, {
      inputFilters: [
        {
          name: "spy",
          filter: (text) => {
            seen.push(text);
            return { action: "pass" };
          },
        },
        { name: "block", filter: () => ({ action: "reject", reason: "no secrets" }) },
      ],
    });
    const stream = agentLoop(
      [userMessage("my password"), userMessage("is hunter2")],
      context(),
      config,
    );
    const events = await collect(stream);
    expect(types(events)).toEqual(["agentStart", "inputRejected", "agentEnd"]);
    expect(events[1]).toMatchObject({ reason: "no secrets" });
    expect(await stream.result()).toEqual([]);
    expect(provider.requests).toHaveLength(0);
    expect(seen).toEqual(["my password\nis hunter2"]);
  });

  it("REQ-070: warnings are appended to the last user message and the run continues", async () => {
    const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "ok" }] }]);
    const prompt = userMessage("rm -rf /");
    const config = loopConfig(provider, {
      inputFilters: [
        { name: "warn", filter: () => ({ action: "warn", message: "looks destructive" }) },
      ],
    });
    const result = await agentLoop([prompt], context(), config).result();
    expect(result[0]).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "rm -rf /" },
        { type: "text", text: "[Warning: looks destructive]" },
      ],
    });
    expect(prompt.content).toHaveLength(1); // the caller's message is not mutated
    expect(provider.requests).toHaveLength(1);
  });

  it("REQ-190/192: identity is generated, written back into the context and carried by agentStart", async () => {
    const provider = new ScriptedProvider();
    const ctx = context([], { parentLoopId: "p.1" });
    const events = await collect(agentLoop(ask(), ctx, loopConfig(provider)));
    expect(ctx.agentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ctx.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ctx.loopId).toBe(`${ctx.sessionId}.mock.scripted-model.1`);
    expect(events[0]).toMatchObject({
      type: "agentStart",
      agentId: ctx.agentId,
      sessionId: ctx.sessionId,
      loopId: ctx.loopId,
      parentLoopId: "p.1",
    });
    expect(events.every((e) => e.loopId === ctx.loopId)).toBe(true);
  });

  it("REQ-140/161: abort mid-tool reaches the tool's signal; the turn closes and no new model call starts", async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const waitTool = defineTool({
      name: "wait",
      label: "Wait",
      description: "waits for abort",
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise<ToolResult>((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("tool aborted"));
          });
          controller.abort();
        }),
    });
    const provider = new ScriptedProvider([
      {
        blocks: [
          { type: "toolCall", id: "w", name: "wait", arguments: {} },
          { type: "toolCall", id: "e", name: "echo", arguments: { text: "x" } },
        ],
      },
      { blocks: [{ type: "text", text: "never" }] },
    ]);
    const stream = agentLoop(
      ask(),
      context([], { tools: [waitTool, echoTool] }),
      loopConfig(provider, {
        toolExecution: { type: "sequential" },
      }),
      controller.signal,
    );
    const events = await collect(stream);
    const result = await stream.result();
    expect(sawAbort).toBe(true);
    expect(result.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
    expect(result[2]).toMatchObject({ isError: true, content: [{ text: "tool aborted" }] });
    expect(result[3]).toMatchObject({
      isError: true,
      content: [{ text: "Skipped because the run was aborted." }],
    });
    expect(provider.requests).toHaveLength(1);
    expect(types(events).slice(-2)).toEqual(["turnEnd", "agentEnd"]);
  });

  it("REQ-091: beforeTurn returning false on turn 1 stops after turn 0 without agentEnd; afterLoop still runs once", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", name: "echo", arguments: { text: "a" } }] },
      { blocks: [{ type: "text", text: "never" }] },
    ]);
    let afterLoop = 0;
    const stream = agentLoop(
      ask(),
      context(),
      loopConfig(provider, {
        hooks: { beforeTurn: (_m, turn) => turn < 1, afterLoop: () => void afterLoop++ },
      }),
    );
    const events = await collect(stream);
    expect(types(events)).not.toContain("agentEnd");
    expect(events.filter((e) => e.type === "turnStart")).toHaveLength(1);
    expect(provider.requests).toHaveLength(1);
    expect(afterLoop).toBe(1);
  });

  it("REQ-182: beforeLoop returning false emits agentEnd with no messages instead of agentStart", async () => {
    const provider = new ScriptedProvider();
    const afterLoop: unknown[] = [];
    const stream = agentLoop(
      ask(),
      context(),
      loopConfig(provider, {
        hooks: { beforeLoop: () => false, afterLoop: (messages) => void afterLoop.push(messages) },
      }),
    );
    const events = await collect(stream);
    expect(types(events)).toEqual(["agentEnd"]);
    expect(await stream.result()).toEqual([]);
    expect(afterLoop).toEqual([[]]);
    expect(provider.requests).toHaveLength(0);
  });

  it("REQ-185: hooks and events keep the documented order on a multi-turn, multi-tool run; throwing hooks proceed", async () => {
    const progressTool = defineTool({
      name: "progress",
      label: "Progress",
      description: "reports progress",
      parameters: z.object({}),
      execute: async (_a, ctx) => {
        ctx.onUpdate({ content: [{ type: "text", text: "half" }] });
        ctx.onProgress("working");
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    const provider = new ScriptedProvider([
      {
        blocks: [
          { type: "toolCall", id: "a", name: "echo", arguments: { text: "1" } },
          { type: "toolCall", id: "b", name: "progress", arguments: {} },
        ],
      },
      { blocks: [{ type: "toolCall", id: "c", name: "echo", arguments: { text: "2" } }] },
      { blocks: [{ type: "text", text: "bye" }] },
    ]);
    const log: string[] = [];
    const note = (name: string) => () => void log.push(name);
    const logger = recordingLogger();
    const hooks: AgentHooks = {
      beforeLoop: () => {
        log.push("beforeLoop");
        return true;
      },
      afterLoop: note("afterLoop"),
      beforeTurn: (_m, turn) => {
        log.push(`beforeTurn:${turn}`);
        return true;
      },
      afterTurn: note("afterTurn"),
      beforeToolExecution: ({ toolCallId }) => {
        log.push(`beforeTool:${toolCallId}`);
        if (toolCallId === "c") throw new Error("hook bug"); // logged, treated as proceed
        return true;
      },
      afterToolExecution: (r) => void log.push(`afterTool:${r.toolCallId}`),
      beforeToolExecutionUpdate: () => {
        log.push("beforeUpdate");
        return true;
      },
      afterToolExecutionUpdate: note("afterUpdate"),
    };
    const sink: AgentEventSink = {
      push: (e: AgentEvent) => {
        if (e.type === "messageUpdate") return;
        if (e.type === "messageStart" || e.type === "messageEnd")
          log.push(`${e.type}:${e.message.role}`);
        else if (e.type === "turnStart" || e.type === "turnEnd") log.push(`${e.type}:${e.turn}`);
        else if ("toolCallId" in e) log.push(`${e.type}:${e.toolCallId}`);
        else log.push(e.type);
      },
    };
    const config = loopConfig(provider, { hooks, logger, toolExecution: { type: "sequential" } });
    await runAgentLoop(ask(), context([], { tools: [echoTool, progressTool] }), config, sink);
    expect(log).toEqual([
      "beforeLoop",
      "agentStart",
      "beforeTurn:0",
      "turnStart:0",
      "messageStart:user",
      "messageEnd:user",
      "messageStart:assistant",
      "messageEnd:assistant",
      "beforeTool:a",
      "toolExecutionStart:a",
      "toolExecutionEnd:a",
      "afterTool:a",
      "messageStart:toolResult",
      "messageEnd:toolResult",
      "beforeTool:b",
      "toolExecutionStart:b",
      "beforeUpdate",
      "toolExecutionUpdate:b",
      "afterUpdate",
      "progressMessage:b",
      "toolExecutionEnd:b",
      "afterTool:b",
      "messageStart:toolResult",
      "messageEnd:toolResult",
      "turnEnd:0",
      "afterTurn",
      "beforeTurn:1",
      "turnStart:1",
      "messageStart:assistant",
      "messageEnd:assistant",
      "beforeTool:c",
      "toolExecutionStart:c",
      "toolExecutionEnd:c",
      "afterTool:c",
      "messageStart:toolResult",
      "messageEnd:toolResult",
      "turnEnd:1",
      "afterTurn",
      "beforeTurn:2",
      "turnStart:2",
      "messageStart:assistant",
      "messageEnd:assistant",
      "turnEnd:2",
      "afterTurn",
      "agentEnd",
      "afterLoop",
    ]);
    expect(
      logger.entries.some(
        (e) => e.message.includes("beforeToolExecution") && e.fields?.error === "hook bug",
      ),
    ).toBe(true);
  });

  it("REQ-193/181: turnStart.triggeredBy is user on turn 0 of an origin call and continuation afterwards", async () => {
    const provider = new ScriptedProvider([
      { blocks: [{ type: "toolCall", name: "echo", arguments: { text: "a" } }] },
      { blocks: [{ type: "text", text: "ok" }] },
    ]);
    const events = await collect(agentLoop(ask(), context(), loopConfig(provider)));
    const triggers = events.flatMap((e) => (e.type === "turnStart" ? [e.triggeredBy] : []));
    expect(triggers).toEqual(["user", "continuation"]);
    const sub = await collect(
      agentLoop(
        ask(),
        context(),
        loopConfig(new ScriptedProvider(), { firstTurnTrigger: "subAgent" }),
      ),
    );
    expect(sub.find((e) => e.type === "turnStart")).toMatchObject({ triggeredBy: "subAgent" });
  });
});

describe("agentLoopContinue", () => {
  const identity = { agentId: "agent-1", sessionId: "session-1" };

  it("REQ-037/180/193: resumes without re-appending prompts; branch → triggeredBy branch, rerun → continuation", async () => {
    for (const [kind, trigger] of [
      [{ type: "branch", tag: "2026-01-01T00:00:00Z" }, "branch"],
      [{ type: "rerun", tag: "2026-01-01T00:00:00Z" }, "continuation"],
      [{ type: "default" }, "continuation"],
    ] as const) {
      const provider = new ScriptedProvider([{ blocks: [{ type: "text", text: "resumed" }] }]);
      const ctx = context([userMessage("earlier")], {
        ...identity,
        continuationKind: kind,
        parentLoopId: "session-1.x.1",
      });
      const stream = agentLoopContinue(ctx, loopConfig(provider));
      const events = await collect(stream);
      expect(events[0]).toMatchObject({
        type: "agentStart",
        continuationKind: kind,
        parentLoopId: "session-1.x.1",
      });
      expect(events.find((e) => e.type === "turnStart")).toMatchObject({ triggeredBy: trigger });
      expect((await stream.result()).map((m) => m.role)).toEqual(["assistant"]);
      expect(provider.requests[0]?.messages).toHaveLength(1);
    }
  });

  it("REQ-108/191: precondition failures throw synchronously with clear messages", () => {
    const provider = new ScriptedProvider();
    const config = loopConfig(provider);
    expect(() => agentLoopContinue(context([userMessage("x")]), config)).toThrow(
      "agentLoopContinue requires context.agentId to be set",
    );
    expect(() => agentLoopContinue(context([userMessage("x")], { agentId: "a" }), config)).toThrow(
      "agentLoopContinue requires context.sessionId to be set",
    );
    expect(() => agentLoopContinue(context([], identity), config)).toThrow(/at least one message/);
    const assistant: AgentMessage = {
      role: "assistant",
      content: [],
      stopReason: "stop",
      model: "m",
      provider: "mock",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      timestamp: 1,
    };
    expect(() =>
      agentLoopContinue(context([userMessage("x"), assistant], identity), config),
    ).toThrow(/cannot continue from an assistant message/);
    expect(provider.requests).toHaveLength(0);
  });
});
