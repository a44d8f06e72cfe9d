import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../model/llm-messages.js";
import { emptyUsage } from "../model/llm-messages.js";
import {
  CONTEXT_OVERFLOW_PHRASES,
  classifyProviderError,
  classifyThrown,
  isContextOverflow,
  isContextOverflowMessage,
  parseRetryAfterMs,
} from "./errors.js";
import { isRetryable } from "./provider.js";

describe("REQ-076 context overflow detection", () => {
  it("documents at least 15 phrases", () => {
    expect(CONTEXT_OVERFLOW_PHRASES.length).toBeGreaterThanOrEqual(15);
  });

  it.each(CONTEXT_OVERFLOW_PHRASES.map((p) => [p]))(
    "phrase %s → context_overflow, case-insensitive, whatever the status",
    (phrase) => {
      const upper = `Error: ${phrase.toUpperCase()} (details)`;
      expect(isContextOverflow(undefined, upper)).toBe(true);
      expect(classifyProviderError({ status: 400, message: upper }).kind).toBe("context_overflow");
      expect(classifyProviderError({ status: 500, message: phrase }).kind).toBe("context_overflow");
      expect(classifyProviderError({ message: phrase }).kind).toBe("context_overflow");
    },
  );

  it("empty body with 400 or 413 is an overflow (Cerebras/Mistral); with 500 it is not", () => {
    expect(classifyProviderError({ status: 400, message: "" })).toEqual({
      kind: "context_overflow",
      message: "HTTP 400",
      status: 400,
    });
    expect(classifyProviderError({ status: 413, message: "  " }).kind).toBe("context_overflow");
    expect(classifyProviderError({ status: 500, message: "" }).kind).toBe("api");
  });

  it("real provider bodies", () => {
    const bodies = [
      "prompt is too long: 215000 tokens > 200000 maximum",
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      "input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000",
    ];
    for (const body of bodies) expect(isContextOverflow(400, body)).toBe(true);
    expect(isContextOverflow(400, "invalid tool schema")).toBe(false);
  });

  it("isContextOverflowMessage reads error assistant messages only", () => {
    const msg: AssistantMessage = {
      role: "assistant",
      content: [],
      stopReason: "error",
      model: "m",
      provider: "anthropic",
      usage: emptyUsage(),
      timestamp: 0,
      errorMessage: "prompt is too long: 300000 tokens",
    };
    expect(isContextOverflowMessage(msg)).toBe(true);
    expect(isContextOverflowMessage({ ...msg, stopReason: "stop" })).toBe(false);
    expect(isContextOverflowMessage({ ...msg, errorMessage: "overloaded" })).toBe(false);
  });
});

describe("REQ-075 classification order", () => {
  it.each([
    [429, "slow down", "rate_limited"],
    [529, "Overloaded", "overloaded"],
    [503, "service unavailable", "overloaded"],
    [500, '{"type":"overloaded_error"}', "overloaded"],
    [401, "invalid x-api-key", "auth"],
    [403, "forbidden", "auth"],
    [404, "model not found", "api"],
    [500, "internal", "api"],
    [400, "invalid_request_error: bad tool", "api"],
    [502, "bad gateway", "network"],
  ] as const)("%i %s → %s", (status, message, kind) => {
    expect(classifyProviderError({ status, message }).kind).toBe(kind);
  });

  it("429 stays a rate limit even when it mentions tokens (per-minute quota)", () => {
    expect(
      classifyProviderError({ status: 429, message: "Too many tokens, please wait" }).kind,
    ).toBe("rate_limited");
  });

  it("REQ-072 only rate_limited, overloaded and network are retryable", () => {
    expect(isRetryable(classifyProviderError({ status: 429, message: "x" }))).toBe(true);
    expect(isRetryable(classifyProviderError({ message: "fetch failed" }))).toBe(true);
    expect(isRetryable(classifyProviderError({ status: 401, message: "x" }))).toBe(false);
    expect(isRetryable(classifyProviderError({ status: 400, message: "" }))).toBe(false);
  });

  it.each([
    "connect ECONNREFUSED 127.0.0.1:1",
    "read ECONNRESET",
    "fetch failed",
    "socket hang up",
    "The operation timed out",
    "stream interrupted",
    "terminated",
  ])("network failure %s → network", (message) => {
    expect(classifyProviderError({ message }).kind).toBe("network");
  });

  it("looks into the cause chain (fetch failed ← ECONNREFUSED)", () => {
    const cause = Object.assign(new Error("connect failed"), { code: "ECONNREFUSED" });
    expect(classifyProviderError({ message: "Cannot connect to API", cause }).kind).toBe("network");
    expect(classifyProviderError({ message: "something odd" }).kind).toBe("other");
  });
});

describe("REQ-073 retry-after", () => {
  it("header seconds, header ms, HTTP date and body", () => {
    expect(parseRetryAfterMs({ "Retry-After": "7" }, "")).toBe(7000);
    expect(parseRetryAfterMs({ "retry-after-ms": "250", "retry-after": "9" }, "")).toBe(250);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfterMs({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }, "", now)).toBe(
      30000,
    );
    expect(parseRetryAfterMs(undefined, "Please retry in 3.5s.")).toBe(3500);
    expect(parseRetryAfterMs(undefined, '{"retryDelay": "12s"}')).toBe(12000);
    expect(parseRetryAfterMs(undefined, "no hint")).toBeUndefined();
  });

  it("rate_limited carries retryAfterMs and status", () => {
    expect(
      classifyProviderError({ status: 429, message: "rate", headers: { "retry-after": "2" } }),
    ).toEqual({ kind: "rate_limited", message: "rate", retryAfterMs: 2000, status: 429 });
  });
});

describe("classifyThrown", () => {
  const apiError = (statusCode: number, responseBody: string, headers?: Record<string, string>) =>
    new APICallError({
      message: "Bad Request",
      url: "http://x",
      requestBodyValues: {},
      statusCode,
      responseBody,
      ...(headers ? { responseHeaders: headers } : {}),
    });

  it("maps APICallError status, JSON body and headers", () => {
    expect(
      classifyThrown(
        apiError(
          400,
          '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 1 > 0"}}',
        ),
      ),
    ).toEqual({ kind: "context_overflow", message: "prompt is too long: 1 > 0", status: 400 });
    expect(classifyThrown(apiError(413, ""))).toMatchObject({ kind: "context_overflow" });
    expect(
      classifyThrown(apiError(429, '{"error":{"message":"slow"}}', { "retry-after": "1" })),
    ).toEqual({ kind: "rate_limited", message: "slow", retryAfterMs: 1000, status: 429 });
    expect(classifyThrown(apiError(401, "{}"))).toMatchObject({ kind: "auth", status: 401 });
  });

  it("abort → cancelled", () => {
    const ctrl = new AbortController();
    ctrl.abort();
    expect(classifyThrown(new Error("whatever"), ctrl.signal).kind).toBe("cancelled");
    expect(classifyThrown(new DOMException("aborted", "AbortError")).kind).toBe("cancelled");
  });

  it("error stream part payloads (objects) are read for their message", () => {
    expect(classifyThrown({ type: "overloaded_error", message: "Overloaded" }).kind).toBe(
      "overloaded",
    );
    expect(classifyThrown("fetch failed").kind).toBe("network");
  });
});

describe("classifyThrown on broken successful responses", () => {
  it("APICallError with status 200 and a terminated socket → network", () => {
    const error = new APICallError({
      message: "Failed to process successful response",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError("terminated", { cause: new Error("other side closed") }),
    });
    expect(classifyThrown(error).kind).toBe("network");
  });
});
