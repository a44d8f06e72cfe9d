import type { Usage } from "../../model/llm-messages.js";
import { defaultStopReason, type ScriptedTurn } from "../script.js";
import { tokensForChars } from "./request-body.js";

// A ScriptedTurn resolved into everything a wire renderer needs: ids generated, text cut into the
// pieces that become deltas, usage filled in. Every renderer reads the same plan, so all formats
// chunk identically and tests can move between them.

export type PlannedBlock =
  | { type: "text"; text: string; pieces: string[] }
  | { type: "thinking"; thinking: string; signature: string | undefined; pieces: string[] }
  | {
      type: "toolCall";
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      /** the arguments as JSON, and that JSON cut in two for streaming */
      json: string;
      pieces: string[];
    };

export type PlannedUsage = Omit<Usage, "totalTokens"> & {
  /** the share of `output` spent on thinking (reported by formats that break it out) */
  reasoning: number;
};

export interface TurnPlan {
  /** model id to report */
  model: string;
  /** a per-server unique number, for response/message ids */
  serial: number;
  /** unix seconds */
  createdAt: number;
  blocks: PlannedBlock[];
  stopReason: "stop" | "length" | "toolUse";
  usage: PlannedUsage;
}

export interface PlanContext {
  requestedModel: string;
  serial: number;
  /** input tokens estimated from the request, used when the turn does not say */
  inputTokens: number;
  /** generates a tool call id when the script gives none */
  nextToolCallId: () => string;
}

export const DEFAULT_CHUNK_SIZE = 16;

/** Cuts text into pieces of `size` characters, never splitting a surrogate pair. */
export function splitText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += step) pieces.push(chars.slice(i, i + step).join(""));
  return pieces;
}

/** Tool arguments always stream in two pieces, so clients must join partial JSON. */
export function splitInTwo(json: string): string[] {
  const chars = Array.from(json);
  const half = Math.ceil(chars.length / 2);
  return [chars.slice(0, half).join(""), chars.slice(half).join("")].filter((p) => p !== "");
}

export function planTurn(turn: ScriptedTurn, context: PlanContext): TurnPlan {
  const chunkSize = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const blocks: PlannedBlock[] = (turn.blocks ?? []).map((block): PlannedBlock => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text, pieces: splitText(block.text, chunkSize) };
      case "thinking":
        return {
          type: "thinking",
          thinking: block.thinking,
          signature: block.signature,
          pieces: splitText(block.thinking, chunkSize),
        };
      case "toolCall": {
        const json = JSON.stringify(block.arguments);
        return {
          type: "toolCall",
          id: block.id ?? context.nextToolCallId(),
          name: block.name,
          arguments: block.arguments,
          json,
          pieces: splitInTwo(json),
        };
      }
      default:
        return block satisfies never;
    }
  });

  let outputChars = 0;
  let thinkingChars = 0;
  for (const block of blocks) {
    if (block.type === "text") outputChars += block.text.length;
    else if (block.type === "thinking") thinkingChars += block.thinking.length;
    else outputChars += block.name.length + block.json.length;
  }
  const reasoning = thinkingChars > 0 ? tokensForChars(thinkingChars) : 0;
  const output = turn.usage?.output ?? tokensForChars(outputChars) + reasoning;

  return {
    model: turn.model ?? context.requestedModel,
    serial: context.serial,
    createdAt: Math.floor(Date.now() / 1000),
    blocks,
    stopReason: defaultStopReason(turn),
    usage: {
      input: turn.usage?.input ?? context.inputTokens,
      output,
      cacheRead: turn.usage?.cacheRead ?? 0,
      cacheWrite: turn.usage?.cacheWrite ?? 0,
      reasoning: Math.min(reasoning, output),
    },
  };
}
