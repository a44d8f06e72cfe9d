import { describe, expect, it } from "vitest";
import { z } from "zod";
import { echoTool, recordingLogger } from "../../test/support/agent-fixtures.js";
import { type AgentMessage, type ToolCallContent, userMessage } from "../model/llm-messages.js";
import { type AnyAgentTool, defineTool, ToolError } from "../tools/tool.js";
import { executeToolCalls, type ToolExecutionEnv } from "./tool-execution.js";
import type { AgentEvent, AgentHooks, ToolExecutionStrategy } from "./types.js";

function call(id: string, name: string, args: Record<string, unknown> = {}): ToolCallContent {
  return { type: "toolCall", id, name, arguments: args };
}

function env(
  tools: AnyAgentTool[],
  extra: Partial<ToolExecutionEnv> = {},
): ToolExecutionEnv & { events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  return {
    events,
    tools,
    loopId: "s.c.1",
    sink: { push: (e) => void events.push(e) },
    signal: new AbortController().signal,
    hooks: {},
    logger: recordingLogger(),
    strategy: { type: "parallel" },
    getSteeringMessages: () => [],
    ...extra,
  };
}

/** A tool that records when it starts/ends and resolves after `ms`. */
function timedTool(log: string[]): AnyAgentTool {
  return defineTool({
    name: "timed",
    label: "Timed",
    description: "sleeps",
    parameters: z.object({ ms: z.number(), tag: z.string() }),
    execute: async ({ ms, tag }) => {
      log.push(`start:${tag}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end:${tag}`);
      return { content: [{ type: "text", text: tag }] };
    },
  });
}

const text = (m: { content: Array<{ type: string; text?: string }> }) =>
  m.content.map((c) => c.text).join("");

describe("executeToolCalls", () => {
  it("REQ-045/085: parallel runs calls concurrently and returns results in call order", async () => {
    const log: string[] = [];
    const e = env([timedTool(log)]);
    const out = await executeToolCalls(
      [call("1", "timed", { ms: 30, tag: "slow" }), call("2", "timed", { ms: 1, tag: "fast" })],
      e,
    );
    expect(log).toEqual(["start:slow", "start:fast", "end:fast", "end:slow"]);
    expect(out.results.map(text)).toEqual(["slow", "fast"]);
  });

  it("REQ-084/080: sequential checks steering after each call and skips the rest", async () => {
    const ran: string[] = [];
    const steering: AgentMessage[] = [];
    const steerer = defineTool({
      name: "step",
      label: "Step",
      description: "runs one step; the user steers during the first",
      parameters: z.object({ tag: z.string() }),
      execute: async ({ tag }) => {
        ran.push(tag);
        if (tag === "one") steering.push(userMessage("change of plan"));
        return { content: [{ type: "text", text: tag }] };
      },
    });
    const e = env([steerer], {
      strategy: { type: "sequential" },
      getSteeringMessages: () => steering.splice(0),
    });
    const out = await executeToolCalls(
      [
        call("1", "step", { tag: "one" }),
        call("2", "step", { tag: "two" }),
        call("3", "step", { tag: "three" }),
      ],
      e,
    );
    expect(ran).toEqual(["one"]);
    expect(out.results.map((r) => [r.isError, text(r)])).toEqual([
      [false, "one"],
      [true, "Skipped due to queued user message."],
      [true, "Skipped due to queued user message."],
    ]);
    expect(out.steering).toHaveLength(1);
    expect(e.events.filter((ev) => ev.type === "toolExecutionEnd")).toHaveLength(3);
  });

  it("REQ-086: batched {size: 2} runs [1,2], [3,4], [5]; steering after the first group skips the others", async () => {
    const groups = async (steerAfterFirst: boolean) => {
      const log: string[] = [];
      let checks = 0;
      const strategy: ToolExecutionStrategy = { type: "batched", size: 2 };
      const e = env([timedTool(log)], {
        strategy,
        getSteeringMessages: () => (++checks === 1 && steerAfterFirst ? [userMessage("stop")] : []),
      });
      const calls = [1, 2, 3, 4, 5].map((n) => call(String(n), "timed", { ms: 2, tag: String(n) }));
      const out = await executeToolCalls(calls, e);
      return { log, out };
    };
    const plain = await groups(false);
    const at = (entry: string) => plain.log.indexOf(entry);
    // within a group calls overlap; a group starts only after the previous one finished
    expect(Math.max(at("start:1"), at("start:2"))).toBeLessThan(Math.min(at("end:1"), at("end:2")));
    expect(Math.max(at("end:1"), at("end:2"))).toBeLessThan(Math.min(at("start:3"), at("start:4")));
    expect(Math.max(at("start:3"), at("start:4"))).toBeLessThan(Math.min(at("end:3"), at("end:4")));
    expect(Math.max(at("end:3"), at("end:4"))).toBeLessThan(at("start:5"));
    expect(plain.log).toHaveLength(10);
    const steered = await groups(true);
    expect([...steered.log].sort()).toEqual(["end:1", "end:2", "start:1", "start:2"]);
    expect(steered.out.results.map((r) => r.isError)).toEqual([false, false, true, true, true]);
  });

  it("REQ-079/078: unknown tools, invalid arguments, ToolErrors and thrown errors become error results", async () => {
    const failing = defineTool({
      name: "failing",
      label: "Failing",
      description: "fails",
      parameters: z.object({ how: z.enum(["toolError", "throw", "string"]) }),
      execute: async ({ how }) => {
        if (how === "toolError") throw ToolError.failed("oops");
        if (how === "throw") throw new TypeError("bad state");
        throw "plain string";
      },
    });
    const e = env([echoTool, failing]);
    const out = await executeToolCalls(
      [
        call("1", "nope"),
        call("2", "echo", { text: 42 }),
        call("3", "failing", { how: "toolError" }),
        call("4", "failing", { how: "throw" }),
        call("5", "failing", { how: "string" }),
      ],
      e,
    );
    expect(out.results.every((r) => r.isError)).toBe(true);
    expect(text(out.results[0]!)).toBe("Tool nope not found");
    expect(text(out.results[1]!)).toMatch(/^Invalid arguments for tool echo:\n.*text/s);
    expect(text(out.results[2]!)).toBe("oops");
    expect(text(out.results[3]!)).toBe("bad state");
    expect(text(out.results[4]!)).toBe("plain string");
    expect(out.results.some((r) => text(r).includes("    at "))).toBe(false); // never a stack
  });

  it("REQ-183: beforeToolExecution false skips that tool only; afterToolExecution runs once per call", async () => {
    const after: string[] = [];
    const hooks: AgentHooks = {
      beforeToolExecution: ({ toolCallId }) => toolCallId !== "2",
      afterToolExecution: (r) => void after.push(r.toolCallId),
    };
    const e = env([echoTool], { hooks });
    const out = await executeToolCalls(
      [
        call("1", "echo", { text: "a" }),
        call("2", "echo", { text: "b" }),
        call("3", "echo", { text: "c" }),
      ],
      e,
    );
    expect(out.results.map((r) => r.isError)).toEqual([false, true, false]);
    expect(text(out.results[1]!)).toMatch(/blocked by the beforeToolExecution hook/);
    expect(after.sort()).toEqual(["1", "2", "3"]);
  });

  it("REQ-142/143/184: updates and progress become events; a suppressed update emits nothing and skips its after hook", async () => {
    const reporter = defineTool({
      name: "reporter",
      label: "Reporter",
      description: "reports",
      parameters: z.object({}),
      execute: async (_a, ctx) => {
        ctx.onUpdate({ content: [{ type: "text", text: "keep" }] });
        ctx.onUpdate({ content: [{ type: "text", text: "drop" }] });
        ctx.onProgress("50%");
        return { content: [{ type: "text", text: "final" }], childLoopId: "child.1" };
      },
    });
    const afterUpdates: string[] = [];
    const hooks: AgentHooks = {
      beforeToolExecutionUpdate: (u) => text(u.partialResult) !== "drop",
      afterToolExecutionUpdate: (u) => void afterUpdates.push(text(u.partialResult)),
    };
    const e = env([reporter], { hooks });
    const out = await executeToolCalls([call("1", "reporter")], e);
    const updates = e.events.filter((ev) => ev.type === "toolExecutionUpdate");
    expect(updates).toHaveLength(1);
    expect(afterUpdates).toEqual(["keep"]);
    expect(e.events.find((ev) => ev.type === "progressMessage")).toMatchObject({
      text: "50%",
      toolCallId: "1",
    });
    expect(e.events.find((ev) => ev.type === "toolExecutionEnd")).toMatchObject({
      childLoopId: "child.1",
      isError: false,
    });
    expect(out.results[0]).toMatchObject({ childLoopId: "child.1" });
    expect(e.events.map((ev) => ev.type)).toEqual([
      "toolExecutionStart",
      "toolExecutionUpdate",
      "progressMessage",
      "toolExecutionEnd",
      "messageStart",
      "messageEnd",
    ]);
  });

  it("REQ-140: each tool gets a child signal aborted with the run", async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const grab = defineTool({
      name: "grab",
      label: "Grab",
      description: "keeps its signal",
      parameters: z.object({}),
      execute: async (_a, ctx) => {
        signals.push(ctx.signal);
        return { content: [] };
      },
    });
    await executeToolCalls(
      [call("1", "grab"), call("2", "grab")],
      env([grab], { signal: controller.signal }),
    );
    expect(signals).toHaveLength(2);
    expect(signals[0]).not.toBe(controller.signal);
    controller.abort();
    // finished tools were unlinked (no listener leak), so their signals stay as they were
    expect(signals.every((s) => !s.aborted)).toBe(true);
  });
});

describe("an abort while a tool runs (issue #9 finding 8)", () => {
  it("ends the call at once as a cancelled error result, even when the tool ignores its signal", async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const stubborn = defineTool({
      name: "stubborn",
      label: "Stubborn",
      description: "ignores its signal for 5 s",
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        ctx.signal.addEventListener("abort", () => {
          sawAbort = true;
        });
        await new Promise((r) => setTimeout(r, 5_000).unref());
        return { content: [{ type: "text", text: "too late" }] };
      },
    });
    const e = env([stubborn], { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    const out = await executeToolCalls([call("1", "stubborn")], e);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sawAbort).toBe(true);
    expect(out.results[0]?.isError).toBe(true);
    expect(text(out.results[0]!)).toContain("Cancelled");
  });
});

describe("parallelReadOnly (issue #26 finding 3)", () => {
  /** A tool of `category` that logs its start and end and sleeps `ms`. */
  function categorized(name: string, category: "read" | "write", log: string[]): AnyAgentTool {
    return defineTool({
      name,
      label: name,
      description: "sleeps",
      category,
      parameters: z.object({ ms: z.number(), tag: z.string() }),
      execute: async ({ ms, tag }) => {
        log.push(`start:${tag}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end:${tag}`);
        return { content: [{ type: "text", text: tag }] };
      },
    });
  }

  it("runs consecutive read-only calls together and every other call alone, results in call order", async () => {
    const log: string[] = [];
    const e = env([categorized("look", "read", log), categorized("change", "write", log)], {
      strategy: { type: "parallelReadOnly" },
    });
    const calls = [
      call("1", "look", { ms: 30, tag: "r1" }),
      call("2", "look", { ms: 10, tag: "r2" }),
      call("3", "look", { ms: 20, tag: "r3" }),
      call("4", "change", { ms: 5, tag: "w4" }),
      call("5", "change", { ms: 5, tag: "w5" }),
      call("6", "look", { ms: 5, tag: "r6" }),
    ];
    const out = await executeToolCalls(calls, e);
    // the three reads overlap: each starts before any of them ends
    expect(log.slice(0, 3)).toEqual(["start:r1", "start:r2", "start:r3"]);
    expect(log.slice(3, 6).sort()).toEqual(["end:r1", "end:r2", "end:r3"]);
    // the writes wait for the reads and for each other; the last read waits for the writes
    expect(log.slice(6)).toEqual([
      "start:w4",
      "end:w4",
      "start:w5",
      "end:w5",
      "start:r6",
      "end:r6",
    ]);
    expect(out.results.map(text)).toEqual(["r1", "r2", "r3", "w4", "w5", "r6"]);
    expect(out.results.map((r) => r.toolCallId)).toEqual(["1", "2", "3", "4", "5", "6"]);
  });

  it("a tool without a category, or an unknown one, is not read-only: it runs alone", async () => {
    const log: string[] = [];
    const plain = defineTool({
      name: "plain",
      label: "plain",
      description: "no category",
      parameters: z.object({ tag: z.string() }),
      execute: async ({ tag }) => {
        log.push(`start:${tag}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end:${tag}`);
        return { content: [{ type: "text", text: tag }] };
      },
    });
    const e = env([plain], { strategy: { type: "parallelReadOnly" } });
    const out = await executeToolCalls(
      [call("1", "plain", { tag: "a" }), call("2", "nope"), call("3", "plain", { tag: "b" })],
      e,
    );
    expect(log).toEqual(["start:a", "end:a", "start:b", "end:b"]);
    expect(out.results.map((r) => r.isError)).toEqual([false, true, false]);
  });

  it("steering that arrives during a read-only group skips the calls after the group", async () => {
    const log: string[] = [];
    const steering: AgentMessage[] = [];
    const e = env([categorized("look", "read", log), categorized("change", "write", log)], {
      strategy: { type: "parallelReadOnly" },
      getSteeringMessages: () => {
        if (log.includes("end:r2") && steering.length === 0) steering.push(userMessage("stop"));
        return steering.splice(0);
      },
    });
    const out = await executeToolCalls(
      [
        call("1", "look", { ms: 5, tag: "r1" }),
        call("2", "look", { ms: 5, tag: "r2" }),
        call("3", "change", { ms: 5, tag: "w3" }),
      ],
      e,
    );
    expect(log).not.toContain("start:w3");
    expect(out.results.map((r) => r.isError)).toEqual([false, false, true]);
    expect(out.steering).toHaveLength(1);
  });
});
