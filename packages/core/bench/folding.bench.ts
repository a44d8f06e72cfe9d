// Context folding (issue #13): a scripted long task of 10 subtasks run folded (each subtask in a
// fold: branch → tool calls → return) and unfolded (the parent does the same tool calls itself),
// against the scripted provider. Figures: parent context growth per fold (goal < 500 tokens),
// folds ending within budget (goal 100%), branch/return overhead (goal < 1 ms), and the peak
// parent context, unfolded / folded (goal ≥ 5×). Contexts are counted with the runtime's own
// token estimate over every request's system prompt and messages.

import { z } from "zod";
import { runAgentLoop } from "../src/agent/loop.js";
import { estimateTextTokens } from "../src/agent/token-count.js";
import { FoldRuntime } from "../src/folding/fold-runtime.js";
import type { StreamRequest } from "../src/llm/provider.js";
import { modelConfig } from "../src/model/llm-config.js";
import { type AgentMessage, messageText, userMessage } from "../src/model/llm-messages.js";
import type { ScriptedTurn } from "../src/testing/script.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { defineTool, type ToolResult } from "../src/tools/tool.js";
import { type BenchFigure, median } from "./figure.js";

const SUBTASKS = 10;
const STEPS_PER_SUBTASK = 4;
const model = modelConfig({ protocol: "offline", model: "scripted-model" });

/** A file read returning ~500 tokens of realistic text. */
const readTool = defineTool({
  name: "read_file",
  label: "Read",
  description: "Reads a file.",
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }): Promise<ToolResult> => ({
    content: [
      {
        type: "text",
        text: Array.from(
          { length: 60 },
          (_, i) => `${path}:${i + 1} export const value${i} = compute(${i}, "${path}");`,
        ).join("\n"),
      },
    ],
  }),
});

const config = (provider: ScriptedProvider) => ({
  provider,
  model,
  contextConfig: null,
  executionLimits: null,
  retryConfig: { maxRetries: 0, initialDelayMs: 1, backoffMultiplier: 2, maxDelayMs: 1 },
});

function contextTokens(req: StreamRequest): number {
  return (
    estimateTextTokens(req.systemPrompt) +
    req.messages.reduce(
      (n, m) =>
        n + estimateTextTokens(messageText(m as AgentMessage) + JSON.stringify(toolArgs(m))),
      0,
    )
  );
}
function toolArgs(m: unknown): unknown {
  const content = (m as { content?: unknown }).content;
  return Array.isArray(content)
    ? content.filter((c: { type?: string }) => c.type === "toolCall")
    : [];
}
const results = (req: StreamRequest) => req.messages.filter((m) => m.role === "toolResult").length;
const firstText = (req: StreamRequest) =>
  req.messages[0] ? messageText(req.messages[0] as AgentMessage) : "";
const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
});

const SYSTEM = "You are Arbor's agent. Work through the task's subtasks one by one.";
const TASK = `Long task: check ${SUBTASKS} modules for unused exports.`;

async function runTask(folded: boolean): Promise<{
  parentPeak: number;
  growth: number[];
  runtime: FoldRuntime | undefined;
}> {
  const parentSizes: number[] = [];
  const provider = new ScriptedProvider((view) => {
    const req = view.body as StreamRequest;
    const first = firstText(req);
    if (first.startsWith("Long task")) {
      parentSizes.push(contextTokens(req));
      const done = results(req);
      if (folded) {
        if (done >= SUBTASKS) return { blocks: [{ type: "text", text: "All modules checked." }] };
        return call("branch", {
          description: `check module ${done}`,
          budget: 16_384,
          prompt: `Check module m${done} for unused exports: read its ${STEPS_PER_SUBTASK} files.`,
        });
      }
      if (done >= SUBTASKS * STEPS_PER_SUBTASK)
        return { blocks: [{ type: "text", text: "All modules checked." }] };
      const module = Math.floor(done / STEPS_PER_SUBTASK);
      return call("read_file", { path: `m${module}/f${done % STEPS_PER_SUBTASK}.ts` });
    }
    const module = /module m(\d+)/.exec(first)?.[1] ?? "?";
    const done = results(req);
    if (done < STEPS_PER_SUBTASK) return call("read_file", { path: `m${module}/f${done}.ts` });
    return call("return", {
      message: `m${module}: value3 and value7 are unused in f1.ts; the rest are used.`,
    });
  });
  const runtime = folded
    ? new FoldRuntime({
        sessionId: "bench",
        systemPrompt: SYSTEM,
        tools: [readTool],
        loopConfig: config(provider),
        scrub: (t) => t,
      })
    : undefined;
  const tools = runtime ? [readTool, runtime.branchTool()] : [readTool];
  await runAgentLoop(
    [userMessage(TASK)],
    { systemPrompt: SYSTEM, messages: [], tools },
    config(provider),
    { push: () => undefined },
  );
  const growth = parentSizes.slice(1).map((n, i) => n - (parentSizes[i] ?? 0));
  return { parentPeak: Math.max(...parentSizes), growth, runtime };
}

async function overheadMs(): Promise<number> {
  const provider = new ScriptedProvider(() => call("return", { message: "done" }));
  const runtime = new FoldRuntime({
    sessionId: "bench",
    systemPrompt: SYSTEM,
    tools: [],
    loopConfig: config(provider),
    scrub: (t) => t,
  });
  const branch = runtime.branchTool();
  const ctx = {
    toolCallId: "c",
    toolName: "branch",
    signal: new AbortController().signal,
    onUpdate: () => {},
    onProgress: () => {},
  };
  const batch = 200;
  const samples: number[] = [];
  for (let round = 0; round < 15; round++) {
    const started = performance.now();
    for (let i = 0; i < batch; i++)
      await branch.execute({ description: "noop", prompt: "return at once" }, ctx);
    samples.push((performance.now() - started) / batch);
  }
  return median(samples);
}

export async function run(): Promise<BenchFigure[]> {
  const folded = await runTask(true);
  const unfolded = await runTask(false);
  const folds = folded.runtime?.folds() ?? [];
  const within = folds.filter((f) => f.status === "returned" && f.used <= f.budget).length;
  const growth = median(folded.growth);
  const ratio = unfolded.parentPeak / folded.parentPeak;
  const overhead = await overheadMs();
  return [
    {
      name: "parent context growth per fold",
      value: growth,
      unit: "tokens",
      target: "< 500 tokens",
      pass: growth < 500,
      notes: `median over ${folded.growth.length} folds; max ${Math.max(...folded.growth)}`,
    },
    {
      name: "folds ending within budget",
      value: folds.length === 0 ? 0 : (100 * within) / folds.length,
      unit: "%",
      target: "100%",
      pass: folds.length === SUBTASKS && within === folds.length,
      notes: `${within}/${folds.length} folds; max used ${Math.max(...folds.map((f) => f.used))} of ${folds[0]?.budget}`,
    },
    {
      name: "branch/return overhead (one scripted model turn)",
      value: overhead,
      unit: "ms",
      target: "< 1 ms",
      pass: overhead < 1,
      notes: "a fold whose one model turn calls return; median of 15 batches of 200",
    },
    {
      name: "peak parent context, unfolded / folded (10 subtasks)",
      value: ratio,
      unit: "×",
      target: "≥ 5×",
      pass: ratio >= 5,
      notes: `peak ${unfolded.parentPeak} tokens unfolded, ${folded.parentPeak} folded`,
    },
  ];
}
