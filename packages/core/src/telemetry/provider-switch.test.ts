import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, describe, expect, it } from "vitest";
import { emptyUsage } from "../model/llm-messages.js";
import { LoopTrace } from "./spans.js";

// Core looks its tracer up once per registered provider (spans.ts), not at every span: a provider
// registered later (an SDK started after a first run, a test registering its own) must still get
// every span from then on, and none before.

function provider(): { exporter: InMemorySpanExporter; provider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  return {
    exporter,
    provider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  };
}

function run(loopId: string): LoopTrace {
  const loop = LoopTrace.start({
    loopId,
    agentId: "arbor",
    sessionId: "s-switch",
    kind: "run",
    provider: "anthropic",
    model: "claude-test",
  });
  loop.end({ usage: emptyUsage(), turns: 1 });
  return loop;
}

afterAll(() => {
  trace.disable();
});

describe("the tracer core uses", () => {
  it("follows the provider registered now: none, then one, then another", () => {
    expect(run("l-before").traceparent).toBeUndefined();

    const first = provider();
    trace.setGlobalTracerProvider(first.provider);
    expect(run("l-first").traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    trace.disable();
    const second = provider();
    trace.setGlobalTracerProvider(second.provider);
    run("l-second");

    const loopIds = (exporter: InMemorySpanExporter) =>
      exporter.getFinishedSpans().map((s) => s.attributes["arbor.loop.id"]);
    expect(loopIds(first.exporter)).toEqual(["l-first"]);
    expect(loopIds(second.exporter)).toEqual(["l-second"]);
  });
});
