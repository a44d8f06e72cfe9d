import type { Script, ScriptedTurn } from "../script.js";

/** The wire formats the fake server answers; `anthropic-count-tokens` is Anthropic's token counter. */
export type FakeProtocol =
  | "anthropic-messages"
  | "anthropic-count-tokens"
  | "openai-chat"
  | "openai-responses"
  | "azure-openai-responses"
  | "google-gemini"
  | "google-vertex"
  | "bedrock-converse";

/** One request as the server received it. Recorded before the server starts answering. */
export interface RecordedRequest {
  protocol: FakeProtocol;
  method: string;
  /** URL path without the query string */
  path: string;
  query: Record<string, string>;
  /** lower-cased header names; repeated headers joined with ", " */
  headers: Record<string, string>;
  /** the decoded JSON body; the raw text when it is not JSON; undefined when empty */
  body: unknown;
}

export interface FakeLlmServer {
  /** `http://host:port`, no trailing slash */
  url: string;
  /** every LLM request served so far, oldest first (control endpoints are not recorded) */
  requests: RecordedRequest[];
  /** append turns to the queue; queued turns are served before a script function */
  enqueue(...turns: ScriptedTurn[]): void;
  /** replace the script: an array replaces the queue, a function answers once the queue is empty */
  setScript(script: Script): void;
  /**
   * the model's context window in tokens: a larger request is refused with the provider's own
   * context-overflow error (context-window.ts), taking no turn; undefined: every request fits
   */
  setContextWindow(tokens: number | undefined): void;
  /**
   * forget the queue, the script function, the token counter, recorded requests and id
   * counters; the context window returns to the server's option
   */
  reset(): void;
  /**
   * What POST /v1/messages/count_tokens answers as `input_tokens` for a body; default: the JSON
   * size of the body / 4, the same figure a turn reports as its input usage
   */
  /** lets every response paused by its turn's `holdAfterChunks` go on; returns how many */
  release(): number;
  setTokenCounter(count: ((body: unknown) => number) | undefined): void;
  close(): Promise<void>;
}

export interface FakeLlmServerOptions {
  script?: Script;
  /** default 0: an ephemeral port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /**
   * "summarize" (default): a request of optimization's LLM summarizer is answered by summarizing
   * the transcript it carries (summarize.ts), without taking a scripted turn; "script": like any
   * other request
   */
  summaries?: "summarize" | "script";
  /** the model's context window in tokens (see FakeLlmServer.setContextWindow); default none */
  contextWindow?: number;
  /** delay before a summary answer starts, ms (default 0) */
  summaryDelayMs?: number;
}
