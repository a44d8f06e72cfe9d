import { APICallError } from "@ai-sdk/provider";
import type { AssistantMessage } from "../model/llm-messages.js";
import type { ProviderError } from "./provider.js";

// Provider failure classification (REQ-075 / REQ-076). The order matters and is the contract:
// context overflow first (a 400 that says "prompt is too long" must trigger optimization, not be
// reported as a plain API error), then rate limiting, overload, auth, network, other statuses.

/**
 * Phrases providers use when the prompt does not fit the context window (case-insensitive
 * substring match). Collected from Anthropic, OpenAI, Azure, Gemini, Bedrock, Mistral, Groq,
 * Cerebras, OpenRouter, llama.cpp, vLLM and Ollama error bodies.
 */
export const CONTEXT_OVERFLOW_PHRASES: readonly string[] = [
  "prompt is too long",
  "context length exceeded",
  "maximum context length",
  "context_length_exceeded",
  "exceeds the context window",
  "too many tokens",
  "input is too long",
  "request too large",
  "token limit",
  "reduce the length",
  "string too long",
  "exceeds maximum input",
  "input length and `max_tokens` exceed context limit",
  "maximum prompt length",
  "content too large",
  "context window exceeds",
  "exceeds the maximum number of tokens",
  "input token count",
  "too long for the context",
  "requested too many tokens",
  "model_context_window_exceeded",
];

const NETWORK_PATTERNS: readonly string[] = [
  "econnrefused",
  "econnreset",
  "econnaborted",
  "etimedout",
  "enotfound",
  "eai_again",
  "epipe",
  "ehostunreach",
  "enetunreach",
  "und_err",
  "fetch failed",
  "socket hang up",
  "network error",
  "timed out",
  "timeout",
  "terminated",
  "other side closed",
  "stream interrupted",
  "premature close",
  "connection closed",
  "connection reset",
];

export interface ProviderErrorInput {
  status?: number;
  /** the error message or the response body */
  message: string;
  /** response headers, any case */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** REQ-076: true when status/body say the context window was exceeded. */
export function isContextOverflow(status: number | undefined, message: string): boolean {
  if ((status === 400 || status === 413) && message.trim() === "") return true;
  const lower = message.toLowerCase();
  return CONTEXT_OVERFLOW_PHRASES.some((phrase) => lower.includes(phrase));
}

/** REQ-075: classify one provider failure. Pure; never throws. */
export function classifyProviderError(input: ProviderErrorInput): ProviderError {
  const { status } = input;
  const message = input.message;
  const text = `${message}\n${causeText(input.cause)}`;
  const lower = text.toLowerCase();
  const display = message.trim() === "" ? `HTTP ${status ?? "error"}` : message;

  // 429 is excluded: "too many tokens, please wait" there is a per-minute quota, not the window.
  if (status !== 429 && isContextOverflow(status, message)) {
    return withStatus({ kind: "context_overflow", message: display }, status);
  }
  if (status === 429 || (status === undefined && /rate.?limit/.test(lower))) {
    return withRetry({ kind: "rate_limited", message: display }, status, input);
  }
  if (status === 529 || status === 503 || lower.includes("overloaded")) {
    return withRetry({ kind: "overloaded", message: display }, status, input);
  }
  if (status === 401 || status === 403) {
    return { kind: "auth", message: display, status };
  }
  if (status === undefined) {
    if (NETWORK_PATTERNS.some((p) => lower.includes(p))) return { kind: "network", message };
    return { kind: "other", message };
  }
  if (status === 408 || status === 502 || status === 504) {
    // gateway timeouts are transient transport failures, retry like network errors
    return { kind: "network", message: display };
  }
  return { kind: "api", message: display, status };
}

/**
 * Classify anything a provider call threw or put in an `error` stream part.
 * AI SDK `APICallError`s carry status, body and headers; other errors are inspected by message.
 */
export function classifyThrown(error: unknown, signal?: AbortSignal): ProviderError {
  if (signal?.aborted || isAbortError(error)) {
    return { kind: "cancelled", message: "Request was aborted." };
  }
  if (APICallError.isInstance(error)) {
    // a 2xx "error" is a response that broke while being read (connection dropped mid-stream):
    // classify by the cause chain (terminated, other side closed…), not by status
    if (error.statusCode === undefined || error.statusCode < 400) {
      return classifyProviderError({ message: error.message, cause: error.cause });
    }
    const body = error.responseBody ?? "";
    const status = error.statusCode;
    // An empty 400/413 body is itself the overflow signal (REQ-076), so keep it empty there.
    const emptyMeansOverflow = status === 400 || status === 413;
    const message =
      extractErrorMessage(body) ??
      (body.trim() !== "" ? body : emptyMeansOverflow ? "" : error.message);
    return classifyProviderError({
      ...(status !== undefined ? { status } : {}),
      message,
      ...(error.responseHeaders ? { headers: error.responseHeaders } : {}),
      cause: error.cause,
    });
  }
  if (error instanceof Error) {
    return classifyProviderError({ message: error.message, cause: error.cause });
  }
  if (typeof error === "string") return classifyProviderError({ message: error });
  // error stream parts from the AI SDK are often the provider's decoded error JSON
  const fromObject = extractErrorMessage(safeStringify(error));
  return classifyProviderError({ message: fromObject ?? safeStringify(error) });
}

export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === "AbortError" ||
      error.name === "ResponseAborted" ||
      error.name === "TimeoutError")
  );
}

/** REQ-077 hook: does this (error) assistant message report a context overflow? */
export function isContextOverflowMessage(msg: AssistantMessage): boolean {
  if (msg.stopReason !== "error" || msg.errorMessage === undefined) return false;
  return isContextOverflow(undefined, msg.errorMessage);
}

/** Pulls `error.message` / `message` out of a JSON error body; undefined when not JSON. */
export function extractErrorMessage(body: string): string | undefined {
  const trimmed = body.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    const root = Array.isArray(parsed) ? parsed[0] : parsed;
    if (!isRecord(root)) return undefined;
    const err = root.error;
    if (isRecord(err) && typeof err.message === "string") return err.message;
    if (typeof err === "string") return err;
    if (typeof root.message === "string") return root.message;
    if (typeof root.Message === "string") return root.Message;
    return undefined;
  } catch {
    return undefined;
  }
}

/** Milliseconds to wait, from `retry-after-ms`, `retry-after` (seconds or HTTP date) or the body. */
export function parseRetryAfterMs(
  headers: Record<string, string> | undefined,
  body: string,
  now = Date.now(),
): number | undefined {
  if (headers) {
    const lowered = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const ms = lowered.get("retry-after-ms");
    if (ms !== undefined && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
    const ra = lowered.get("retry-after");
    if (ra !== undefined) {
      const seconds = Number(ra);
      if (ra.trim() !== "" && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
      const date = Date.parse(ra);
      if (!Number.isNaN(date)) return Math.max(0, date - now);
    }
  }
  // bodies: "retry after 20s", "Please retry in 3.5s", "retryDelay": "7s", "try again in 250ms"
  const match =
    /(?:retry|try again)[^0-9]{0,20}(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)\b/i.exec(
      body,
    ) ?? /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)(s)"/i.exec(body);
  if (match?.[1] !== undefined) {
    const value = Number(match[1]);
    const unit = (match[2] ?? "s").toLowerCase();
    return Math.round(unit.startsWith("m") ? value : value * 1000);
  }
  return undefined;
}

function withStatus<T extends { kind: string; message: string }>(
  error: T,
  status: number | undefined,
): T & { status?: number } {
  return status === undefined ? error : { ...error, status };
}

function withRetry(
  error: { kind: "rate_limited" | "overloaded"; message: string },
  status: number | undefined,
  input: ProviderErrorInput,
): ProviderError {
  const retry = parseRetryAfterMs(input.headers, input.message);
  return {
    ...error,
    ...(retry !== undefined ? { retryAfterMs: retry } : {}),
    ...(status !== undefined ? { status } : {}),
  };
}

function causeText(cause: unknown, depth = 0): string {
  if (cause === undefined || cause === null || depth > 3) return "";
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return `${cause.name} ${cause.message} ${typeof code === "string" ? code : ""} ${causeText(cause.cause, depth + 1)}`;
  }
  return typeof cause === "string" ? cause : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function safeStringify(value: unknown): string {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}
