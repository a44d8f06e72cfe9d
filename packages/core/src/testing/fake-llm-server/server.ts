import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Script, ScriptedTurn, ScriptRequestView } from "../script.js";
import { contextOverflowError } from "./context-window.js";
import { planTurn } from "./plan.js";
import { bodyModel, estimateInputTokens, lastUserText } from "./request-body.js";
import { closedFlag, sleep, writeStream } from "./response-writer.js";
import { matchRoute, type Route } from "./routes.js";
import { isSummaryRequest, summaryTurn } from "./summarize.js";
import { ContextWindowSchema, ScriptFileSchema } from "./turn-schema.js";
import type { FakeLlmServer, FakeLlmServerOptions, RecordedRequest } from "./types.js";

// The fake LLM server: routes a request to its wire format, records it, picks the next scripted
// turn and answers in that provider's real format. node:http only, so it runs anywhere Node does.
// Control endpoints (/__fake/…) let another process (e2e tests, the CLI's users) script it.

type GenerateRoute = Extract<Route, { kind: "generate" }>;

class ScriptState {
  queue: ScriptedTurn[] = [];
  decide: ((request: ScriptRequestView) => ScriptedTurn) | undefined;
  readonly requests: RecordedRequest[] = [];
  private serial = 0;
  private toolCalls = 0;

  setScript(script: Script): void {
    if (typeof script === "function") {
      this.queue = [];
      this.decide = script;
    } else {
      this.queue = [...script];
      this.decide = undefined;
    }
  }

  /** the model's context window (context-window.ts); undefined: every request fits */
  contextWindow: number | undefined;
  /** the window a reset returns to (the server's option) */
  initialContextWindow: number | undefined;
  /** count_tokens' counter; default estimateInputTokens (the same figure usage reports) */
  countTokens: ((body: unknown) => number) | undefined;

  /** responses paused by their turn's `holdAfterChunks`, each waiting for a release */
  private readonly held = new Set<() => void>();

  /** Resolves on the next release (or reset), or when the response closes. */
  hold(res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.held.delete(done);
        res.off("close", done);
        resolve();
      };
      this.held.add(done);
      res.once("close", done);
    });
  }

  /** Lets every held response go on; returns how many there were. */
  release(): number {
    const waiting = [...this.held];
    for (const done of waiting) done();
    return waiting.length;
  }

  reset(): void {
    this.release();
    this.queue = [];
    this.decide = undefined;
    this.contextWindow = this.initialContextWindow;
    this.countTokens = undefined;
    this.requests.length = 0;
    this.serial = 0;
    this.toolCalls = 0;
  }

  nextSerial(): number {
    return this.serial++;
  }

  nextToolCallId(prefix: string): string {
    this.toolCalls += 1;
    return `${prefix}_${this.toolCalls}`;
  }

  /** answer summary requests from the transcript (default) or like any other request */
  summaries: "summarize" | "script" = "summarize";
  /** a summary's latency before its first byte (a model takes its time) */
  summaryDelayMs = 0;

  /**
   * A summary request is answered by summarizing (summarize.ts) without taking a turn; otherwise
   * queued turns first, then the script function, then an echo so unscripted use still works.
   */
  nextTurn(view: ScriptRequestView): ScriptedTurn {
    if (this.summaries === "summarize" && isSummaryRequest(view.body)) {
      return { ...summaryTurn(view.body), firstChunkDelayMs: this.summaryDelayMs };
    }
    const queued = this.queue.shift();
    if (queued) return queued;
    if (this.decide) return this.decide(view);
    return { blocks: [{ type: "text", text: `Fake reply to: ${lastUserText(view.body)}` }] };
  }
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (text === "") return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

async function answer(
  state: ScriptState,
  route: GenerateRoute,
  recorded: RecordedRequest,
  index: number,
  res: ServerResponse,
): Promise<void> {
  const isClosed = closedFlag(res);
  const model = route.urlModel ?? bodyModel(recorded.body) ?? "fake-model";
  // a request larger than the model's window is refused as the provider refuses it: no turn taken
  const inputTokens = estimateInputTokens(recorded.body);
  if (state.contextWindow !== undefined && inputTokens > state.contextWindow) {
    const error = contextOverflowError(route.protocol, inputTokens, state.contextWindow);
    const { body, headers } = route.format.errorResponse(error);
    sendJson(res, error.status, body, headers);
    return;
  }
  const turn = state.nextTurn({ protocol: route.protocol, model, index, body: recorded.body });
  await sleep(turn.firstChunkDelayMs ?? 0);
  if (turn.holdAfterChunks === 0) await state.hold(res);
  if (isClosed()) return;

  if (turn.error) {
    const { body, headers } = route.format.errorResponse(turn.error);
    sendJson(res, turn.error.status, body, { ...headers, ...turn.error.headers });
    return;
  }
  const streaming = route.streams(recorded.body);
  if (!streaming && turn.interruptAfterChunks !== undefined) {
    res.socket?.destroy();
    return;
  }
  const plan = planTurn(turn, {
    requestedModel: model,
    serial: state.nextSerial(),
    inputTokens,
    nextToolCallId: () =>
      state.nextToolCallId(route.protocol === "bedrock-converse" ? "tooluse" : "call"),
  });
  if (!streaming) {
    sendJson(res, 200, route.format.json(plan, { body: recorded.body }));
    return;
  }
  res.writeHead(200, {
    "content-type": route.format.streamContentType,
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
  const frames = route.format.streamFrames(plan, { body: recorded.body });
  await writeStream(res, frames, turn, isClosed, () => state.hold(res));
}

async function handle(state: ScriptState, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://fake");
  const method = req.method ?? "GET";
  const body = await readBody(req);

  if (url.pathname.startsWith("/__fake/")) {
    handleControl(state, method, url.pathname, body, res);
    return;
  }
  const route = matchRoute(method, url.pathname);
  if (!route) {
    sendJson(res, 404, {
      error: { message: `fake-llm-server: no route for ${method} ${url.pathname}` },
    });
    return;
  }
  const recorded: RecordedRequest = {
    protocol: route.protocol,
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: flatHeaders(req),
    body,
  };
  const index = state.requests.length;
  state.requests.push(recorded);

  if (route.kind === "countTokens") {
    const refusal = countTokensRefusal(recorded.headers, body);
    if (refusal !== undefined) {
      sendJson(res, refusal.status, {
        type: "error",
        error: { type: refusal.type, message: refusal.message },
      });
      return;
    }
    sendJson(res, 200, { input_tokens: (state.countTokens ?? estimateInputTokens)(body) });
    return;
  }
  await answer(state, route, recorded, index, res);
}

/** The fields Anthropic's POST /v1/messages/count_tokens accepts; any other is refused. */
const COUNT_TOKENS_FIELDS = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "mcp_servers",
]);

/**
 * Why the real count_tokens endpoint would refuse this request, in its own terms: 401
 * authentication_error without a key or token, 400 invalid_request_error without the version
 * header, without `model` or a non-empty `messages`, or with a field it does not take (a
 * Messages-only one such as `max_tokens` or `stream`).
 */
function countTokensRefusal(
  headers: Record<string, string>,
  body: unknown,
): { status: number; type: string; message: string } | undefined {
  if (!headers["x-api-key"] && !headers.authorization?.startsWith("Bearer ")) {
    return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  }
  const invalid = (message: string) => ({ status: 400, type: "invalid_request_error", message });
  if (!headers["anthropic-version"]) return invalid("anthropic-version: header is required");
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return invalid("the request body must be a JSON object");
  }
  const fields = body as Record<string, unknown>;
  const extra = Object.keys(fields).find((key) => !COUNT_TOKENS_FIELDS.has(key));
  if (extra !== undefined) return invalid(`${extra}: Extra inputs are not permitted`);
  if (typeof fields.model !== "string") return invalid("model: Field required");
  if (!Array.isArray(fields.messages) || fields.messages.length === 0) {
    return invalid("messages: at least one message is required");
  }
  return undefined;
}

function handleControl(
  state: ScriptState,
  method: string,
  path: string,
  body: unknown,
  res: ServerResponse,
): void {
  if (method === "POST" && path === "/__fake/script") {
    const parsed = ScriptFileSchema.safeParse(body);
    if (!parsed.success) {
      sendJson(res, 400, { error: { message: parsed.error.message } });
      return;
    }
    state.queue.push(...parsed.data.turns);
    sendJson(res, 200, { queued: state.queue.length });
    return;
  }
  if (method === "POST" && path === "/__fake/context-window") {
    const parsed = ContextWindowSchema.safeParse(body);
    if (!parsed.success) {
      sendJson(res, 400, { error: { message: `tokens: ${parsed.error.message}` } });
      return;
    }
    state.contextWindow = parsed.data.tokens ?? undefined;
    sendJson(res, 200, { context_window: parsed.data.tokens });
    return;
  }
  if (method === "GET" && path === "/__fake/requests") {
    sendJson(res, 200, { requests: state.requests });
    return;
  }
  if (method === "POST" && path === "/__fake/release") {
    sendJson(res, 200, { released: state.release() });
    return;
  }
  if (method === "POST" && path === "/__fake/reset") {
    state.reset();
    sendJson(res, 200, { ok: true });
    return;
  }
  sendJson(res, 404, { error: { message: `fake-llm-server: no control route ${method} ${path}` } });
}

export async function startFakeLlmServer(
  options: FakeLlmServerOptions = {},
): Promise<FakeLlmServer> {
  const state = new ScriptState();
  if (options.script) state.setScript(options.script);
  if (options.summaries) state.summaries = options.summaries;
  state.summaryDelayMs = options.summaryDelayMs ?? 0;
  state.initialContextWindow = options.contextWindow;
  state.contextWindow = options.contextWindow;
  const server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      // a bug in the fake must show up in the test, not hang it
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("fake-llm-server: expected a TCP address");
  }
  const { port } = address;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    requests: state.requests,
    enqueue: (...turns) => {
      state.queue.push(...turns);
    },
    setScript: (script) => state.setScript(script),
    setContextWindow: (tokens) => {
      state.contextWindow = tokens;
    },
    reset: () => state.reset(),
    release: () => state.release(),
    setTokenCounter: (count) => {
      state.countTokens = count;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
