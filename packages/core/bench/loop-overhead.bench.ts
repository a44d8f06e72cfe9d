// Loop overhead: driving 10,000 streamed text chunks (8 characters each) through an agent loop,
// consuming every event, side by side with two peers in ONE run:
// - Arbor's Agent on the ScriptedProvider, against iterating the same provider stream directly
//   (target: < 1.5× raw);
// - pi-agent-core's `agentLoop` on pi-ai's own fake provider (`registerFauxProvider`, token size
//   fixed at 2 tokens = 8 characters, no pacing: it yields a microtask per chunk);
// - the AI SDK's `streamText` on a `MockLanguageModelV3` whose doStream returns the chunks as
//   LanguageModelV3 stream parts (all enqueued at once, as the ScriptedProvider does).
// Each repetition runs the three systems in a rotating order, each as a pair (its fake stream
// iterated alone, then through its loop), with a gc() before every timed run (`pnpm bench` runs
// node with --expose-gc), so load from other processes on this 2-core machine and GC debt hit
// every side alike. The peer figures are medians of per-repetition ratios to Arbor's Agent.
// Only public entry points: @arbor/core, @arbor/core/testing and the peers' own packages.

import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { Agent, DEFAULT_CACHE_CONFIG, modelConfig, type StreamRequest } from "@arbor/core";
import { ScriptedProvider, type ScriptedTurn } from "@arbor/core/testing";
import { type AgentMessage, agentLoop } from "@mariozechner/pi-agent-core";
import {
  fauxAssistantMessage,
  type Message,
  registerFauxProvider,
  streamSimple,
} from "@mariozechner/pi-ai";
import { streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { type BenchFigure, median } from "./figure.js";

const CHUNKS = 10_000;
const CHUNK_CHARS = 8;
const TEXT = "x".repeat(CHUNKS * CHUNK_CHARS);
const RUNS = 31;
const WARMUP = 10;
/** `pnpm bench` runs node with --expose-gc: collect before each timed run so GC debt is not carried over */
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function expectCount(what: string, got: number): void {
  if (got !== CHUNKS) throw new Error(`${what}: expected ${CHUNKS} text deltas, got ${got}`);
}

async function timed(what: string, body: () => Promise<number>): Promise<number> {
  gc();
  const started = performance.now();
  const deltas = await body();
  const elapsed = performance.now() - started;
  expectCount(what, deltas);
  return elapsed;
}

// --- Arbor: the Agent (default settings: compaction, limits and retry on, as a user runs it) ---

const arborModel = modelConfig({ protocol: "offline", model: "bench" });
const arborTurn: ScriptedTurn = { blocks: [{ type: "text", text: TEXT }], chunkSize: CHUNK_CHARS };

async function arborRaw(): Promise<number> {
  const provider = new ScriptedProvider([arborTurn]);
  const request: StreamRequest = {
    model: arborModel,
    systemPrompt: "",
    messages: [{ role: "user", content: [{ type: "text", text: "go" }], timestamp: 0 }],
    tools: [],
    thinkingLevel: "off",
    cache: DEFAULT_CACHE_CONFIG,
  };
  let deltas = 0;
  for await (const event of provider.stream(request, new AbortController().signal)) {
    if (event.type === "textDelta") deltas++;
  }
  return deltas;
}

async function arborAgent(): Promise<number> {
  const agent = new Agent({ provider: new ScriptedProvider([arborTurn]), model: arborModel });
  let updates = 0;
  for await (const event of agent.prompt("go")) {
    if (event.type === "messageUpdate") updates++;
  }
  return updates;
}

// --- pi-agent-core: agentLoop on pi-ai's faux provider ---

// 2 tokens × 4 characters = 8-character chunks, like the others; no tokensPerSecond: no pacing
const faux = registerFauxProvider({ tokenSize: { min: 2, max: 2 } });
const piModel = faux.getModel();
const piPrompt = (): AgentMessage => ({ role: "user", content: "go", timestamp: Date.now() });

async function piRaw(): Promise<number> {
  faux.setResponses([fauxAssistantMessage(TEXT)]);
  let deltas = 0;
  for await (const event of streamSimple(piModel, { systemPrompt: "", messages: [piPrompt()] })) {
    if (event.type === "text_delta") deltas++;
  }
  return deltas;
}

async function piLoop(): Promise<number> {
  faux.setResponses([fauxAssistantMessage(TEXT)]);
  const stream = agentLoop(
    [piPrompt()],
    { systemPrompt: "", messages: [], tools: [] },
    {
      model: piModel,
      // the loop's documented default: keep the LLM's own message roles
      convertToLlm: (messages) =>
        messages.filter(
          (m): m is Message =>
            m.role === "user" || m.role === "assistant" || m.role === "toolResult",
        ),
    },
  );
  let updates = 0;
  for await (const event of stream) {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
      updates++;
  }
  return updates;
}

// --- AI SDK: streamText on a mock LanguageModelV3 ---

const aiParts: LanguageModelV3StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t0" },
  ...Array.from(
    { length: CHUNKS },
    (_, i): LanguageModelV3StreamPart => ({
      type: "text-delta",
      id: "t0",
      delta: TEXT.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS),
    }),
  ),
  { type: "text-end", id: "t0" },
  {
    type: "finish",
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: CHUNKS * 2, text: CHUNKS * 2, reasoning: 0 },
    },
  },
];
const aiModel = () =>
  new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream(aiParts) }),
  });

async function aiRaw(): Promise<number> {
  const { stream } = await aiModel().doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  });
  let deltas = 0;
  for await (const part of stream) {
    if (part.type === "text-delta") deltas++;
  }
  return deltas;
}

async function aiStreamText(): Promise<number> {
  const result = streamText({ model: aiModel(), prompt: "go" });
  let deltas = 0;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") deltas++;
  }
  return deltas;
}

// --- the paired run ---

interface System {
  name: string;
  raw: () => Promise<number>;
  loop: () => Promise<number>;
  rawTimes: number[];
  loopTimes: number[];
}

const systems: System[] = [
  { name: "Arbor Agent", raw: arborRaw, loop: arborAgent, rawTimes: [], loopTimes: [] },
  { name: "pi agentLoop", raw: piRaw, loop: piLoop, rawTimes: [], loopTimes: [] },
  { name: "AI SDK streamText", raw: aiRaw, loop: aiStreamText, rawTimes: [], loopTimes: [] },
];

const ms = (v: number) => `${v.toFixed(2)} ms`;
const x = (v: number) => `${v.toFixed(2)}×`;

export async function run(): Promise<BenchFigure[]> {
  for (let i = 0; i < WARMUP; i++) {
    for (const s of systems) {
      expectCount(`${s.name} (fake alone)`, await s.raw());
      expectCount(s.name, await s.loop());
    }
  }
  for (let i = 0; i < RUNS; i++) {
    // rotate the order each repetition, so no system always runs first or after the same one
    for (let k = 0; k < systems.length; k++) {
      const s = systems[(i + k) % systems.length] as System;
      s.rawTimes.push(await timed(`${s.name} (fake alone)`, s.raw));
      s.loopTimes.push(await timed(s.name, s.loop));
    }
  }
  const [arbor, pi, ai] = systems as [System, System, System];
  const pairRatio = (a: number[], b: number[]) => median(a.map((t, i) => t / (b[i] as number)));

  const agentRatio = pairRatio(arbor.loopTimes, arbor.rawTimes);
  const best = Math.min(...arbor.loopTimes) / Math.min(...arbor.rawTimes);
  const arborMs = median(arbor.loopTimes);
  const piMs = median(pi.loopTimes);
  const aiMs = median(ai.loopTimes);
  const piRatio = pairRatio(pi.loopTimes, arbor.loopTimes);
  const aiRatio = pairRatio(ai.loopTimes, arbor.loopTimes);
  const own = (s: System) =>
    `${s.name} ${ms(median(s.loopTimes))} (its fake alone ${ms(median(s.rawTimes))}, ${x(pairRatio(s.loopTimes, s.rawTimes))} of it)`;
  const peers = `median of ${RUNS} repetitions, per 10k chunks: ${own(arbor)}; ${own(pi)}; ${own(ai)}`;
  return [
    {
      name: "loop overhead: 10k chunks through Agent / raw provider stream",
      value: agentRatio,
      unit: "×",
      target: "< 1.5× raw",
      pass: agentRatio < 1.5,
      notes: `median of ${RUNS} paired runs; medians agent ${ms(arborMs)}, raw ${ms(median(arbor.rawTimes))} (${((arborMs * 1000) / CHUNKS).toFixed(3)} µs/chunk); best-vs-best ${best.toFixed(2)}×`,
    },
    {
      name: "loop peers: 10k chunks, Arbor Agent",
      value: arborMs,
      unit: "ms",
      target: "-",
      pass: true,
      informational: true,
      notes: `${((arborMs * 1000) / CHUNKS).toFixed(3)} µs/chunk; pi agentLoop ${ms(piMs)}, AI SDK streamText ${ms(aiMs)} in the same run`,
    },
    {
      name: "loop peers: pi-agent-core agentLoop / Arbor Agent",
      value: piRatio,
      unit: "×",
      target: "> 1× (Arbor ahead)",
      pass: piRatio > 1,
      notes: peers,
    },
    {
      name: "loop peers: AI SDK streamText / Arbor Agent",
      value: aiRatio,
      unit: "×",
      target: "> 1× (Arbor ahead)",
      pass: aiRatio > 1,
      notes: peers,
    },
  ];
}
