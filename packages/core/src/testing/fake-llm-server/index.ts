// The fake LLM HTTP server: answers in each provider's real wire format, scripted per test.
export { startFakeLlmServer } from "./server.js";
export { isSummaryRequest, summarizeTranscript } from "./summarize.js";
export type {
  FakeLlmServer,
  FakeLlmServerOptions,
  FakeProtocol,
  RecordedRequest,
} from "./types.js";
