// REQ-171/172: heap over 1,000 turns with compaction on, sampled after a forced GC every 100
// turns. Target: flat once compaction starts — growth over the last 500 turns < 2 MB.
//
// Two figures:
// - "Agent": the real Agent driven by the ScriptedProvider, one prompt per turn (a tool call whose
//   result is 20–500 code lines, then a final answer). Compaction shapes each run's working
//   history, but the Agent itself keeps the full uncompacted history (agent.ts: new messages are
//   merged into `messages` after each run), so its heap grows with that history; the notes give
//   the history's own growth for comparison.
// - "compaction": the working history replaced by compactMessages' output before every model
//   call, as the loop does within a run — what REQ-172 asks of a history with compaction.
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import { compactMessages } from "../src/agent/optimization.js";
import type { ContextConfig } from "../src/agent/types.js";
import { modelConfig } from "../src/model/llm-config.js";
import type { AgentMessage } from "../src/model/llm-messages.js";
import { ScriptedProvider } from "../src/testing/scripted-provider.js";
import { defineTool } from "../src/tools/tool.js";
import { HistoryGenerator, REALISTIC_SHAPE } from "../test/support/random-history.js";
import type { BenchFigure } from "./figure.js";

const TURNS = 1_000;
const SAMPLE_EVERY = 100;
const MAX_GROWTH_MB = 2;
const MB = 1024 * 1024;
const config: ContextConfig = {
  maxContextTokens: 32_000,
  systemPromptTokens: 1_000,
  keepRecent: 10,
  keepFirst: 2,
  toolOutputMaxLines: 50,
};

function heapMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc (pnpm bench does)");
  gc();
  gc();
  return process.memoryUsage().heapUsed / MB;
}

/** heap growth between the sample at turn 500 and the last one */
function lateGrowth(samples: number[]): number {
  const mid = samples[Math.floor(samples.length / 2)]!;
  return samples.at(-1)! - mid;
}

async function agentRun(): Promise<{
  growth: number;
  historyGrowthMb: number;
  firstCompaction: number;
  samples: number[];
}> {
  const gen = new HistoryGenerator(11);
  const readFile = defineTool({
    name: "read_file",
    label: "Read file",
    description: "Reads a file.",
    parameters: z.object({ path: z.string() }),
    execute: async () => ({ content: [{ type: "text", text: gen.lines(gen.int(20, 500)) }] }),
  });
  // even requests call the tool, odd ones answer
  const provider = new ScriptedProvider(({ index }) =>
    index % 2 === 0
      ? {
          blocks: [
            { type: "text", text: "Reading it." },
            { type: "toolCall", name: "read_file", arguments: { path: `src/f${index}.ts` } },
          ],
        }
      : { blocks: [{ type: "text", text: `Done with step ${index}.` }] },
  );
  const agent = new Agent({
    provider,
    model: modelConfig({ protocol: "offline", model: "bench" }),
    tools: [readFile],
    contextConfig: config,
    executionLimits: null,
  });
  const samples: number[] = [];
  const historyMb: number[] = [];
  let firstCompaction = -1;
  for (let turn = 1; turn <= TURNS; turn++) {
    for await (const event of agent.prompt(`Step ${turn}: ${gen.sentence(12)}`)) {
      if (event.type === "compaction" && firstCompaction < 0) firstCompaction = turn;
    }
    provider.requests.length = 0; // the fake records every request; not part of the agent's heap
    if (turn % SAMPLE_EVERY === 0) {
      samples.push(heapMb());
      historyMb.push(agent.saveMessages().length / MB);
    }
  }
  return {
    growth: lateGrowth(samples),
    historyGrowthMb: lateGrowth(historyMb),
    firstCompaction,
    samples,
  };
}

function compactionRun(): { growth: number; maxMessages: number; samples: number[] } {
  const gen = new HistoryGenerator(12);
  let history: AgentMessage[] = [gen.user("Build the feature in SPEC.md")];
  const samples: number[] = [];
  let maxMessages = 0;
  for (let turn = 1; turn <= TURNS; turn++) {
    history = compactMessages(history, config).messages;
    maxMessages = Math.max(maxMessages, history.length);
    const final = gen.chance(0.15);
    history = [...history, ...gen.step(REALISTIC_SHAPE, final)];
    if (final) history.push(gen.user());
    if (turn % SAMPLE_EVERY === 0) samples.push(heapMb());
  }
  return { growth: lateGrowth(samples), maxMessages, samples };
}

export async function run(): Promise<BenchFigure[]> {
  const target = `< ${MAX_GROWTH_MB} MB over last 500 turns`;
  const compaction = compactionRun();
  const agent = await agentRun();
  const fmt = (s: number[]): string => s.map((v) => v.toFixed(1)).join(" ");
  return [
    {
      name: "heap growth, compacted history, 1k turns",
      value: compaction.growth,
      unit: "MB",
      target,
      pass: compaction.growth < MAX_GROWTH_MB,
      notes: `max ${compaction.maxMessages} messages; heap MB every 100 turns: ${fmt(compaction.samples)}`,
    },
    {
      name: "heap growth, Agent + ScriptedProvider, 1k turns",
      value: agent.growth,
      unit: "MB",
      target,
      pass: agent.growth < MAX_GROWTH_MB,
      notes: `first compaction at turn ${agent.firstCompaction}; the Agent's (compacted) history grew ${agent.historyGrowthMb.toFixed(1)} MB (JSON) in the same span; heap MB: ${fmt(agent.samples)}`,
    },
  ];
}
