export { CAPTURE_CONTENT_VARIABLE, capturingContent, setTelemetrySecrets } from "./content.js";
export { finishReason, type SemconvMessage, semconvMessages } from "./messages.js";
export { watchApprovalsWaiting } from "./metrics.js";
export {
  CONTENT_ATTRIBUTES,
  GEN_AI_SEMCONV_VERSION,
  INSTRUMENTATION_SCOPE,
  type LoopKind,
  TELEMETRY_NAMES,
  type ToolOutcome,
} from "./names.js";
export {
  ChatTrace,
  inSpan,
  type LoopStart,
  LoopTrace,
  type LoopTraceOptions,
  type ToolDecision,
  ToolTrace,
  usageAttributes,
} from "./spans.js";
export {
  activeTraceparent,
  contextFromTraceparent,
  formatTraceparent,
  parseTraceparent,
  tracingActive,
  withTraceparent,
} from "./trace-context.js";
