import type {
  AgentMessage,
  AssistantMessage,
  Content,
  ToolResultMessage,
  UserMessage,
} from "../../src/model/llm-messages.js";

// Seeded generator of valid agent histories for the compaction property tests (REQ-165) and the
// compaction/heap benches. Deterministic per seed, no dependencies. Not part of the public API.

/** mulberry32: a small, fast, well-distributed 32-bit PRNG. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface HistoryShape {
  /** user turns to generate */
  turns: number;
  /** assistant steps (model calls) per user turn, inclusive range */
  stepsPerTurn: [number, number];
  /** tool calls per assistant step that calls tools, inclusive range */
  callsPerStep: [number, number];
  /** lines of a tool result text, inclusive range */
  resultLines: [number, number];
  /** probabilities in [0, 1] */
  imageChance: number;
  extensionChance: number;
  thinkingChance: number;
  errorChance: number;
}

export const REALISTIC_SHAPE: HistoryShape = {
  turns: 10,
  stepsPerTurn: [1, 6],
  callsPerStep: [1, 3],
  resultLines: [20, 500],
  imageChance: 0.03,
  extensionChance: 0.05,
  thinkingChance: 0.3,
  errorChance: 0.1,
};

const WORDS = [
  "config",
  "parse",
  "render",
  "token",
  "stream",
  "result",
  "handler",
  "session",
  "buffer",
  "schema",
  "cache",
  "index",
  "request",
  "value",
  "update",
  "merge",
];
const TOOLS = ["read_file", "bash", "edit_file", "list_files", "grep", "write_file"];

export class HistoryGenerator {
  readonly #rand: () => number;
  #clock = 1_700_000_000_000;
  #callSeq = 0;

  constructor(seed: number) {
    this.#rand = seededRandom(seed);
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.#rand() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.#rand() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#rand() * items.length)]!;
  }

  #now(): number {
    this.#clock += this.int(10, 5_000);
    return this.#clock;
  }

  sentence(words: number): string {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(this.pick(WORDS));
    return out.join(" ");
  }

  /** Code-like tool output, ~60–90 chars a line. */
  lines(count: number): string {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const w = this.pick(WORDS);
      out.push(`  const ${w}${i} = ${this.pick(WORDS)}(${this.pick(WORDS)}, ${i * 7}); // ${w}`);
    }
    return out.join("\n");
  }

  /** base64 of `bytes` pseudo-random bytes */
  imageData(bytes: number): string {
    const raw = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i++) raw[i] = this.int(0, 255);
    return raw.toString("base64");
  }

  user(text = `Please ${this.sentence(this.int(3, 20))}`, withImage = false): UserMessage {
    const content: UserMessage["content"] = [{ type: "text", text }];
    if (withImage) {
      content.push({
        type: "image",
        data: this.imageData(this.int(100, 4_000)),
        mimeType: "image/png",
      });
    }
    return { role: "user", content, timestamp: this.#now() };
  }

  assistant(content: Content[]): AssistantMessage {
    const blocks = content.filter((c) => c.type !== "image");
    return {
      role: "assistant",
      content: blocks,
      stopReason: blocks.some((c) => c.type === "toolCall") ? "toolUse" : "stop",
      model: "fake-model",
      provider: "fake",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      timestamp: this.#now(),
    };
  }

  toolResult(toolCallId: string, toolName: string, shape: HistoryShape): ToolResultMessage {
    const isError = this.chance(shape.errorChance);
    const text = isError
      ? `Error: ${this.sentence(this.int(2, 8))}`
      : this.lines(this.int(shape.resultLines[0], shape.resultLines[1]));
    const content: ToolResultMessage["content"] = [{ type: "text", text }];
    if (this.chance(shape.imageChance)) {
      content.push({
        type: "image",
        data: this.imageData(this.int(100, 4_000)),
        mimeType: "image/png",
      });
    }
    return { role: "toolResult", toolCallId, toolName, content, isError, timestamp: this.#now() };
  }

  extension(): AgentMessage {
    return this.chance(0.5)
      ? { role: "extension", kind: "notice", data: { level: "info" }, timestamp: this.#now() }
      : {
          role: "extension",
          kind: "note",
          data: { text: this.sentence(5) },
          timestamp: this.#now(),
        };
  }

  /** One assistant step with its tool results (or a final text answer when `final`). */
  step(shape: HistoryShape, final: boolean): AgentMessage[] {
    const content: Content[] = [];
    if (this.chance(shape.thinkingChance)) {
      content.push({ type: "thinking", thinking: this.sentence(this.int(5, 60)) });
    }
    if (final || this.chance(0.7))
      content.push({ type: "text", text: this.sentence(this.int(3, 40)) });
    if (final) return [this.assistant(content)];
    const calls: Array<{ id: string; name: string }> = [];
    for (let c = this.int(shape.callsPerStep[0], shape.callsPerStep[1]); c > 0; c--) {
      const call = { id: `call_${++this.#callSeq}`, name: this.pick(TOOLS) };
      calls.push(call);
      content.push({
        type: "toolCall",
        id: call.id,
        name: call.name,
        arguments: { path: `src/${this.pick(WORDS)}.ts`, line: this.int(1, 900) },
      });
    }
    const out: AgentMessage[] = [this.assistant(content)];
    for (const call of calls) {
      if (this.chance(shape.extensionChance)) out.push(this.extension());
      out.push(this.toolResult(call.id, call.name, shape));
    }
    return out;
  }

  /** A user turn: the user message, tool-using steps, a final answer, maybe an extension note. */
  turn(shape: HistoryShape): AgentMessage[] {
    const out: AgentMessage[] = [this.user(undefined, this.chance(shape.imageChance))];
    const steps = this.int(shape.stepsPerTurn[0], shape.stepsPerTurn[1]);
    for (let s = 1; s <= steps; s++) out.push(...this.step(shape, s === steps));
    if (this.chance(shape.extensionChance)) out.push(this.extension());
    return out;
  }

  history(shape: HistoryShape): AgentMessage[] {
    const out: AgentMessage[] = [];
    for (let t = 0; t < shape.turns; t++) out.push(...this.turn(shape));
    return out;
  }
}
