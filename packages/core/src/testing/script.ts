import type { StopReason, Usage } from "../model/llm-messages.js";

// One script format drives both fakes: the in-process ScriptedProvider (unit tests) and the fake
// LLM HTTP server (integration/e2e tests), so a test can move between them without rewriting.

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  /** `id` is generated ("call_<n>") when absent */
  | { type: "toolCall"; id?: string; name: string; arguments: Record<string, unknown> };

/** An HTTP-level failure instead of a response (fake server), or a ProviderError (fake provider). */
export interface ScriptedError {
  status: number;
  /** response body; defaults to the protocol's usual error JSON with `message` */
  message?: string;
  body?: string;
  headers?: Record<string, string>;
}

/** One model response. */
export interface ScriptedTurn {
  blocks?: ScriptedBlock[];
  /** default: "toolUse" when a toolCall block is present, else "stop" */
  stopReason?: Exclude<StopReason, "error" | "aborted">;
  /** reported usage; defaults derived from text length */
  usage?: Partial<Pick<Usage, "input" | "output" | "cacheRead" | "cacheWrite">>;
  /** characters per streamed text/thinking delta; default 16. Tool arguments stream in 2 pieces. */
  chunkSize?: number;
  /** delay before each chunk, ms (default 0) */
  chunkDelayMs?: number;
  /** delay before the first byte/event, ms (default 0) */
  firstChunkDelayMs?: number;
  /** fail instead of answering */
  error?: ScriptedError;
  /** drop the connection (server) / end with a network error (provider) after this many chunks */
  interruptAfterChunks?: number;
  /**
   * Fake server only: pause the response after this many wire events (0: before it starts) until
   * the test releases it (POST /__fake/release, `server.release()`), so a test can act while an
   * answer is in flight without racing a timer.
   */
  holdAfterChunks?: number;
  /** model id to report; defaults to the requested model */
  model?: string;
}

/** Either a fixed queue of turns, or a function that decides from the request. */
export type Script = ScriptedTurn[] | ((request: ScriptRequestView) => ScriptedTurn);

/** What a script function sees of a request, whatever the wire format. */
export interface ScriptRequestView {
  /** which wire format the request came in */
  protocol: string;
  model: string;
  /** index of this request among all requests the fake served (0-based) */
  index: number;
  /** the decoded JSON body as the client sent it */
  body: unknown;
}

export function defaultStopReason(turn: ScriptedTurn): Exclude<StopReason, "error" | "aborted"> {
  if (turn.stopReason) return turn.stopReason;
  return turn.blocks?.some((b) => b.type === "toolCall") ? "toolUse" : "stop";
}
