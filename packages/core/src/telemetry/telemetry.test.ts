import { type Span, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { decodeSessionControl, encodeSessionControl } from "../store/coordination.js";
import { capturingContent, contentAttribute, setTelemetrySecrets } from "./content.js";
import { finishReason, semconvMessages } from "./messages.js";
import { CONTENT_ATTRIBUTES, GEN_AI_SEMCONV_VERSION, TELEMETRY_NAMES } from "./names.js";
import { usageAttributes } from "./spans.js";
import {
  contextFromTraceparent,
  formatTraceparent,
  parseTraceparent,
  tracingActive,
} from "./trace-context.js";

// Span shapes against the GenAI semantic conventions (v1.45.0 names), the W3C traceparent that
// loop records and forwarded operations carry, and content capture. No SDK is registered in
// this file: everything here must also hold with the API's no-op providers.

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("the names", () => {
  it("are the conventions' GenAI names (semantic-conventions 1.45.0)", () => {
    expect(GEN_AI_SEMCONV_VERSION).toBe("1.45.0");
    const a = TELEMETRY_NAMES.attributes;
    expect([
      a.operationName,
      a.providerName,
      a.agentName,
      a.agentId,
      a.conversationId,
      a.requestModel,
      a.responseModel,
      a.responseFinishReasons,
      a.responseTimeToFirstChunk,
      a.usageInputTokens,
      a.usageOutputTokens,
      a.usageCacheReadInputTokens,
      a.usageCacheCreationInputTokens,
      a.toolName,
      a.toolCallId,
      a.toolType,
      a.tokenType,
      a.inputMessages,
      a.outputMessages,
      a.systemInstructions,
      a.toolCallArguments,
      a.toolCallResult,
    ]).toEqual([
      "gen_ai.operation.name",
      "gen_ai.provider.name",
      "gen_ai.agent.name",
      "gen_ai.agent.id",
      "gen_ai.conversation.id",
      "gen_ai.request.model",
      "gen_ai.response.model",
      "gen_ai.response.finish_reasons",
      "gen_ai.response.time_to_first_chunk",
      "gen_ai.usage.input_tokens",
      "gen_ai.usage.output_tokens",
      "gen_ai.usage.cache_read.input_tokens",
      "gen_ai.usage.cache_creation.input_tokens",
      "gen_ai.tool.name",
      "gen_ai.tool.call.id",
      "gen_ai.tool.type",
      "gen_ai.token.type",
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      "gen_ai.system_instructions",
      "gen_ai.tool.call.arguments",
      "gen_ai.tool.call.result",
    ]);
    expect(TELEMETRY_NAMES.metrics.tokenUsage).toBe("gen_ai.client.token.usage");
    expect(TELEMETRY_NAMES.metrics.operationDuration).toBe("gen_ai.client.operation.duration");
    expect(TELEMETRY_NAMES.spans).toMatchObject({
      invokeAgent: "invoke_agent",
      chat: "chat",
      executeTool: "execute_tool",
    });
    // every Arbor addition is namespaced, never a gen_ai name of our own making
    for (const name of Object.values(a)) expect(name).toMatch(/^(gen_ai|error|arbor)\./);
    expect(CONTENT_ATTRIBUTES).toHaveLength(5);
  });

  it("counts every prompt token as input, cached ones included", () => {
    expect(
      usageAttributes({ input: 10, output: 4, cacheRead: 100, cacheWrite: 7, totalTokens: 121 }),
    ).toEqual({
      "gen_ai.usage.input_tokens": 117,
      "gen_ai.usage.output_tokens": 4,
      "gen_ai.usage.cache_read.input_tokens": 100,
      "gen_ai.usage.cache_creation.input_tokens": 7,
    });
  });

  it("maps stop reasons and messages to the conventions' shapes", () => {
    expect(
      ["stop", "length", "toolUse", "error", "aborted"].map((r) => finishReason(r as never)),
    ).toEqual(["stop", "length", "tool_call", "error", "cancelled"]);
    expect(
      semconvMessages([
        { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 },
        {
          role: "toolResult",
          toolCallId: "c1",
          toolName: "echo",
          content: [{ type: "text", text: "out" }],
          isError: false,
          timestamp: 2,
        },
      ]),
    ).toEqual([
      { role: "user", parts: [{ type: "text", content: "hi" }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "out" }] },
    ]);
  });
});

describe("W3C trace context", () => {
  it("round-trips a traceparent and refuses what is not one", () => {
    const spanContext = parseTraceparent(TRACEPARENT);
    expect(spanContext).toMatchObject({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
      isRemote: true,
    });
    expect(spanContext && formatTraceparent(spanContext)).toBe(TRACEPARENT);
    for (const bad of [
      "",
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
    ]) {
      expect(parseTraceparent(bad), bad).toBeUndefined();
    }
    const span = trace.getSpan(contextFromTraceparent(TRACEPARENT)) as Span;
    expect(span.spanContext().spanId).toBe("00f067aa0ba902b7");
  });

  it("travels with a forwarded operation between instances", () => {
    const text = encodeSessionControl({
      type: "forward",
      request_id: "r1",
      operation: { kind: "decide", decisions: [{ tool_call_id: "c1", decision: "approve" }] },
      traceparent: TRACEPARENT,
    });
    expect(decodeSessionControl(text)).toMatchObject({ traceparent: TRACEPARENT });
  });

  it("knows when no SDK is registered (nothing is read from the database for traces then)", () => {
    expect(tracingActive()).toBe(false);
  });
});

describe("content capture", () => {
  it("is on only when the variable says true", () => {
    expect(capturingContent({})).toBe(false);
    expect(capturingContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "false" })).toBe(
      false,
    );
    expect(capturingContent({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "TRUE" })).toBe(
      true,
    );
  });

  it("redacts secrets before JSON escapes them, with the tool layer's redaction", () => {
    const secret = 'pa"ss\\word-123';
    setTelemetrySecrets([secret]);
    try {
      const text = contentAttribute({ args: `use ${secret} now`, [secret]: 1 });
      expect(text).not.toContain("word-123");
      expect(JSON.parse(text)).toEqual({ args: "use [redacted] now", "[redacted]": 1 });
    } finally {
      setTelemetrySecrets(undefined);
    }
  });
});
