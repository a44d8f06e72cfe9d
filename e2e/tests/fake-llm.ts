import type { APIRequestContext } from "@playwright/test";
import { LANE } from "./lane.js";

// Scripts the fake LLM server the app talks to (its control endpoints), per test. The turn format
// is core's ScriptedTurn (packages/core/src/testing/script.ts), repeated here as plain JSON types:
// the e2e tests talk to the fake over HTTP, as the app does.
// Each worker scripts the fake of its own lane (lane.ts).
export const FAKE_LLM_URL = `http://127.0.0.1:${LANE.fakeLlmPort}`;

export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; id?: string; name: string; arguments: Record<string, unknown> };

export interface FakeTurn {
  blocks?: FakeBlock[];
  stopReason?: "stop" | "length" | "toolUse";
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  /** characters per streamed text delta (default 16) */
  chunkSize?: number;
  /** delay before each wire event, ms */
  chunkDelayMs?: number;
  /** delay before the response starts, ms */
  firstChunkDelayMs?: number;
  /** answer with an HTTP error instead */
  error?: { status: number; message?: string };
  /** drop the connection after this many wire events */
  interruptAfterChunks?: number;
  /** pause after this many wire events (0: before the response starts) until releaseFakeLlm */
  holdAfterChunks?: number;
}

/** One LLM request as the fake received it (Anthropic Messages wire format for the e2e app). */
export interface FakeRequest {
  protocol: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export async function resetFakeLlm(request: APIRequestContext): Promise<void> {
  const response = await request.post(`${FAKE_LLM_URL}/__fake/reset`);
  if (!response.ok()) throw new Error(`fake LLM reset failed: ${response.status()}`);
}

/**
 * Lets every answer paused by its turn's `holdAfterChunks` go on (how many there were): a test acts
 * while an answer is in flight, then releases it, instead of racing a slow stream's timer.
 */
export async function releaseFakeLlm(request: APIRequestContext): Promise<number> {
  const response = await request.post(`${FAKE_LLM_URL}/__fake/release`);
  if (!response.ok()) throw new Error(`fake LLM release failed: ${response.status()}`);
  return ((await response.json()) as { released: number }).released;
}

export async function scriptFakeLlm(request: APIRequestContext, turns: FakeTurn[]): Promise<void> {
  const response = await request.post(`${FAKE_LLM_URL}/__fake/script`, { data: { turns } });
  if (!response.ok()) throw new Error(`fake LLM script failed: ${response.status()}`);
}

async function generationRequests(request: APIRequestContext): Promise<FakeRequest[]> {
  const response = await request.get(`${FAKE_LLM_URL}/__fake/requests`);
  if (!response.ok()) throw new Error(`fake LLM requests failed: ${response.status()}`);
  const { requests } = (await response.json()) as { requests: FakeRequest[] };
  return requests.filter((r) => r.path.endsWith("/messages"));
}

/**
 * A request of optimization's summarizer (issue #15): its user prompt starts "Summarize these"
 * (core's SUMMARY_REQUEST_PREFIX); the fake answers it by summarizing, not from the script.
 */
export function isSummaryRequest(request: FakeRequest): boolean {
  const messages = (request.body as { messages?: Array<{ content?: unknown }> }).messages ?? [];
  const content = messages.at(-1)?.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? String((content[0] as { text?: unknown } | undefined)?.text ?? "")
        : "";
  return text.startsWith("Summarize these");
}

/** The conversation's requests the fake served since the last reset (summaries left out). */
export async function fakeLlmRequests(request: APIRequestContext): Promise<FakeRequest[]> {
  return (await generationRequests(request)).filter((r) => !isSummaryRequest(r));
}

/** The summary requests (optimization's summarizer) the fake served since the last reset. */
export async function fakeSummaryRequests(request: APIRequestContext): Promise<FakeRequest[]> {
  return (await generationRequests(request)).filter(isSummaryRequest);
}

/** A text reply streamed slowly: `chunks` deltas of `chunkSize` characters, `delayMs` apart. */
export function slowText(text: string, delayMs: number, chunkSize = 8): FakeTurn {
  return { blocks: [{ type: "text", text }], chunkSize, chunkDelayMs: delayMs };
}

/** Numbered sentences, so a test can tell a complete, undamaged, unduplicated text apart. */
export function numberedSentences(count: number, prefix: string): string {
  return Array.from({ length: count }, (_, i) => `${prefix} sentence ${i + 1}.`).join(" ");
}
