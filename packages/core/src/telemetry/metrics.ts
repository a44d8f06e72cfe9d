import {
  type Attributes,
  type Counter,
  type Histogram,
  type MeterProvider,
  metrics,
  type ObservableGauge,
  type ObservableResult,
  type UpDownCounter,
} from "@opentelemetry/api";
import type { Usage } from "../model/llm-messages.js";
import { pollStore } from "../store/poll.js";
import { INSTRUMENTATION_SCOPE, TELEMETRY_NAMES, type ToolOutcome } from "./names.js";

// Arbor's metrics. The instruments are made from whichever MeterProvider is registered when they
// are first used, and again when another one is registered later (the API hands out no-op
// instruments before an SDK registers, and never upgrades them).

const M = TELEMETRY_NAMES.metrics;
const A = TELEMETRY_NAMES.attributes;

/** The buckets the conventions advise for gen_ai.client.token.usage and operation.duration. */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

interface Instruments {
  provider: MeterProvider;
  tokenUsage: Histogram;
  operationDuration: Histogram;
  toolCalls: Counter;
  toolDuration: Histogram;
  activeRuns: UpDownCounter;
}

let current: Instruments | undefined;

function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (current?.provider === provider) return current;
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  current = {
    provider,
    tokenUsage: meter.createHistogram(M.tokenUsage, {
      description: "Number of input and output tokens used",
      unit: "{token}",
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    operationDuration: meter.createHistogram(M.operationDuration, {
      description: "GenAI operation duration",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    toolCalls: meter.createCounter(M.toolCalls, {
      description: "Tool calls, by tool and outcome (approved, denied, auto, error)",
      unit: "{call}",
    }),
    toolDuration: meter.createHistogram(M.toolDuration, {
      description: "Tool call duration, by tool and outcome",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    activeRuns: meter.createUpDownCounter(M.activeRuns, {
      description: "Agent loops running now on this instance",
      unit: "{run}",
    }),
  };
  return current;
}

/** The attribute sets of one kind of request: built once, reused by every request like it. */
interface RequestAttributes {
  duration: Attributes;
  input: Attributes;
  output: Attributes;
}

/** Few distinct (provider, model, error) combinations occur; bounded all the same. */
const MAX_ATTRIBUTE_SETS = 256;
const requestAttributeSets = new Map<string, RequestAttributes>();

function requestAttributes(info: {
  provider: string;
  requestModel: string;
  responseModel?: string;
  errorType?: string;
}): RequestAttributes {
  const key = `${info.provider}\0${info.requestModel}\0${info.responseModel ?? ""}\0${info.errorType ?? ""}`;
  const known = requestAttributeSets.get(key);
  if (known !== undefined) return known;
  const duration: Record<string, string> = {
    [A.operationName]: "chat",
    [A.providerName]: info.provider,
    [A.requestModel]: info.requestModel,
  };
  if (info.responseModel !== undefined) duration[A.responseModel] = info.responseModel;
  if (info.errorType !== undefined) duration[A.errorType] = info.errorType;
  const sets: RequestAttributes = {
    duration,
    input: { ...duration, [A.tokenType]: "input" },
    output: { ...duration, [A.tokenType]: "output" },
  };
  if (requestAttributeSets.size >= MAX_ATTRIBUTE_SETS) requestAttributeSets.clear();
  requestAttributeSets.set(key, sets);
  return sets;
}

/** One model request's duration and (on success) its tokens, per the GenAI conventions. */
export function recordModelRequest(
  info: { provider: string; requestModel: string; responseModel?: string; errorType?: string },
  seconds: number,
  usage: Usage | undefined,
): void {
  const i = instruments();
  const attributes = requestAttributes(info);
  i.operationDuration.record(seconds, attributes.duration);
  if (usage === undefined || info.errorType !== undefined) return;
  i.tokenUsage.record(usage.input + usage.cacheRead + usage.cacheWrite, attributes.input);
  i.tokenUsage.record(usage.output, attributes.output);
}

/** One tool call, by tool name and outcome. */
export function recordToolCall(toolName: string, outcome: ToolOutcome, seconds: number): void {
  const i = instruments();
  const attributes = { [A.toolName]: toolName, [A.toolOutcome]: outcome };
  i.toolCalls.add(1, attributes);
  i.toolDuration.record(seconds, attributes);
}

/**
 * Reports arbor.approvals.waiting, an observable gauge, from the store: `count` (the store's
 * countPendingApprovals, one indexed count) is read at once and then every `intervalMs` (the
 * shared store poll), and the gauge's callback reports the last count read, so a collection never
 * queries the database and every instance on one database reports the same number. Nothing is
 * reported until the first read answered. Returns the stop.
 */
export function watchApprovalsWaiting(
  count: () => Promise<number>,
  onError: (error: Error) => void,
  options: { intervalMs?: number; meterProvider?: MeterProvider } = {},
): () => void {
  let last: number | undefined;
  let observed: { provider: MeterProvider; gauge: ObservableGauge } | undefined;
  const report = (result: ObservableResult): void => {
    if (last !== undefined) result.observe(last);
  };
  // on the provider registered now (an SDK registered after the start gets the gauge at the next read)
  const attach = (): void => {
    const provider = options.meterProvider ?? metrics.getMeterProvider();
    if (observed?.provider === provider) return;
    observed?.gauge.removeCallback(report);
    const gauge = provider
      .getMeter(INSTRUMENTATION_SCOPE)
      .createObservableGauge(M.approvalsWaiting, {
        description:
          "Tool calls waiting for a person's decision, in the database (every instance reports the same number: do not sum over instances)",
        unit: "{call}",
      });
    gauge.addCallback(report);
    observed = { provider, gauge };
  };
  const reread = async (): Promise<void> => {
    last = await count();
    attach();
  };
  let stopped = false;
  reread().catch((error: unknown) => {
    if (!stopped) onError(error instanceof Error ? error : new Error(String(error)));
  });
  const stopPoll = pollStore(reread, onError, options.intervalMs);
  return () => {
    stopped = true;
    stopPoll();
    observed?.gauge.removeCallback(report);
    observed = undefined;
  };
}

/** A loop started (+1) or ended (-1) on this instance. */
export function recordActiveRun(delta: 1 | -1): void {
  instruments().activeRuns.add(delta);
}
