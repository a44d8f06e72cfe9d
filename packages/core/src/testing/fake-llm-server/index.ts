// The fake LLM HTTP server: answers in each provider's real wire format, scripted per test.
export { contextOverflowError } from "./context-window.js";
export { estimateInputTokens } from "./request-body.js";
export { startFakeLlmServer } from "./server.js";
export { isSummaryRequest, summarizeTranscript } from "./summarize.js";
export type {
  FakeLlmServer,
  FakeLlmServerOptions,
  FakeProtocol,
  RecordedRequest,
} from "./types.js";
