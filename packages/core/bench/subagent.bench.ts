// The sub-agent tool's overhead (issue #14): a sub-agent call (SubAgentTool.execute: child abort
// signal, child config, event forwarding as tool updates and progress, final text, usage)
// against running the same child loop directly with runAgentLoop. Both run the same scripted
// child: one tool call, then an answer streamed in 50 chunks, against the in-process
// ScriptedProvider (no network), so the difference is the tool's own cost. Target: < 1 ms.

import { z } from "zod";
import { runAgentLoop } from "../src/agent/loop.js";
import type { AgentEvent } from "../src/agent/types.js";
import { modelConfig } from "../src/model/llm-config.js";
import { userMessage } from "../src/model/llm-messages.js";
import { SubAgentTool } from "../src/subagents/sub-agent-tool.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { defineTool } from "../src/tools/tool.js";
import { type BenchFigure, median } from "./figure.js";

const RUNS = 2000;
const WARMUP = 200;

const echo = defineTool({
  name: "echo",
  label: "Echo",
  description: "Returns its text.",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: "text", text }] }),
});

export async function run(): Promise<BenchFigure[]> {
  // a script function: each request answers by its place in the child's conversation
  const provider = new ScriptedProvider((view) => {
    const messages = (view.body as { messages: unknown[] }).messages;
    return messages.length === 1
      ? { blocks: [{ type: "toolCall", name: "echo", arguments: { text: "probe" } }] }
      : { blocks: [{ type: "text", text: "x".repeat(800) }], chunkSize: 16 };
  });
  const model = modelConfig({ protocol: "offline", model: "bench-child" });
  const tool = new SubAgentTool({
    name: "helper",
    description: "Helps.",
    provider,
    model,
    systemPrompt: "You help.",
    tools: [echo],
    base: { contextConfig: null },
  });
  const config = tool.childConfig();
  let updates = 0;
  const ctx = {
    toolCallId: "call-1",
    toolName: "helper",
    signal: new AbortController().signal,
    loopId: "bench.parent.1",
    onUpdate: () => {
      updates++;
    },
    onProgress: () => {
      updates++;
    },
  };
  const direct = async (): Promise<void> => {
    const events: AgentEvent[] = [];
    const messages = await runAgentLoop(
      [userMessage("task")],
      { systemPrompt: "You help.", messages: [], tools: [echo], parentLoopId: "bench.parent.1" },
      config,
      { push: (e) => void events.push(e) },
      new AbortController().signal,
    );
    if (messages.length !== 4) throw new Error(`direct: ${messages.length} messages`);
  };
  const viaTool = async (): Promise<void> => {
    const result = await tool.execute({ task: "task" }, ctx);
    if (result.content[0]?.type !== "text" || result.content[0].text.length !== 800) {
      throw new Error("via tool: unexpected result");
    }
  };
  const directMs: number[] = [];
  const toolMs: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    // alternate which goes first, so neither always runs on a warmer heap
    const order = i % 2 === 0 ? [direct, viaTool] : [viaTool, direct];
    for (const step of order) {
      const t = performance.now();
      await step();
      const ms = performance.now() - t;
      if (i >= WARMUP) (step === direct ? directMs : toolMs).push(ms);
    }
  }
  if (updates === 0) throw new Error("the tool forwarded nothing");
  const overhead = median(toolMs) - median(directMs);
  return [
    {
      name: "sub-agent tool overhead over the same child loop run directly",
      value: overhead,
      unit: "ms",
      target: "< 1 ms",
      pass: overhead < 1,
      notes: `median of ${RUNS}: via the tool ${median(toolMs).toFixed(3)} ms, direct ${median(directMs).toFixed(3)} ms (child: 1 tool call + an answer in 50 chunks; ScriptedProvider in process)`,
    },
  ];
}
