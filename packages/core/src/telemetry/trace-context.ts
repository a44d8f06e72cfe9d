import {
  type Context,
  context,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from "@opentelemetry/api";

// W3C trace context (traceparent, https://www.w3.org/TR/trace-context/) as plain strings: what a
// loop record stores in the database, and what a forwarded operation carries to the instance that
// runs the session, so a run's spans stay in one trace across restarts and instances. Written
// here rather than through the global propagator, which is a no-op until an SDK registers one.

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-{trace id}-{span id}-{flags}` of a span context; undefined for an invalid one. */
export function formatTraceparent(spanContext: SpanContext): string | undefined {
  if (!trace.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The remote span context a traceparent names; undefined when it is not one. */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  if (value === undefined) return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** A context whose parent is the span a traceparent names (`base` when it names none). */
export function contextFromTraceparent(
  value: string | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  const spanContext = parseTraceparent(value);
  return spanContext === undefined ? base : trace.setSpanContext(base, spanContext);
}

/** The traceparent of the active span (a forwarded operation carries it); undefined outside one. */
export function activeTraceparent(): string | undefined {
  const span = trace.getSpan(context.active());
  return span === undefined ? undefined : formatTraceparent(span.spanContext());
}

/** Runs `fn` with the span a traceparent names as the active parent (as is, without one). */
export function withTraceparent<T>(value: string | undefined, fn: () => T): T {
  if (parseTraceparent(value) === undefined) return fn();
  return context.with(contextFromTraceparent(value, context.active()), fn);
}

const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether an SDK registered a tracer provider: callers skip work only tracing needs (reading a
 * stored trace context from the database) when none did.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  return delegate !== NOOP_TRACER_PROVIDER;
}
