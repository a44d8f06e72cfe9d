import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { type Browser, type BrowserContext, chromium, expect, test } from "@playwright/test";
import {
  freePort,
  repoRoot,
  type ServerProcess,
  startApp,
  startFakeLlm,
} from "../crash/app-server.js";
import { readSse, type SseEvent } from "../crash/sse.js";

export { groupRssKb } from "../support/process-memory.js";

// The security suite's servers and HTTP client (issue #9). Each spec file starts its own fake LLM
// and its own `next start` of the production build (e2e/crash/app-server.ts: process groups on
// free loopback ports), with secrets of its own: the install token (ARBOR_TOKEN)
// and a provider key, each random and distinctive, so a test can search any output for them. The
// workspace and the data directory are fresh temporary directories. Every request the suite makes
// goes through node:http rather than fetch, so the headers (Host, Origin, Cookie, Content-Type,
// Sec-Fetch-*) are exactly the ones a test sets: fetch replaces Host and adds Sec-Fetch-Mode.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface StoredMessage {
  id: string;
  role: "user" | "assistant" | "system" | "tool";
  status: string;
  body: { message_type: string } & Record<string, unknown>;
  client_metadata?: unknown;
}

export interface SessionState {
  type: string;
  recoverable?: boolean;
  error?: string;
  pending_requests?: string[];
}

/** One LLM request as the fake server recorded it. */
export interface FakeRequest {
  protocol: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "toolCall"; id?: string; name: string; arguments: Record<string, unknown> };

export interface FakeTurn {
  blocks?: FakeBlock[];
  chunkDelayMs?: number;
  firstChunkDelayMs?: number;
  /** characters per streamed text delta (default 16) */
  chunkSize?: number;
  /** the usage the response reports (default: from the text's length) */
  usage?: { input?: number; output?: number };
  /** pause after this many wire events (0: before the response starts) until `release()` */
  holdAfterChunks?: number;
}

/** The sizes the UI specs check at: a desktop and a phone (issue #27). */
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Debian's Chromium (Playwright's own download cannot be fetched here) with the flags of
 * playwright.config.ts that keep it from calling out.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  // Every page is seen as by a person who asked for reduced motion, as in playwright.config.ts
  // (its `reducedMotion` reaches only the fixtures' contexts; these specs make their own).
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = (options) => newContext({ reducedMotion: "reduce", ...options });
  browser.newPage = (options) => newPage({ reducedMotion: "reduce", ...options });
  return browser;
}

/**
 * A spec file that drives the UI: registers its beforeAll (the servers of `options`, then
 * Chromium; `ready` gets both) and its afterAll (closes both). A spec that prepares more (files in
 * the workspace, a session) does it in a beforeAll of its own, declared after this call: Playwright
 * runs a file's hooks in the order they were declared.
 */
export function useServersAndBrowser(
  options: StartOptions,
  ready: (started: { servers: Servers; browser: Browser }) => void,
): void {
  let started: { servers?: Servers; browser?: Browser } = {};
  test.beforeAll(async () => {
    started = {};
    started.servers = await Servers.start(options);
    started.browser = await launchChromium();
    ready({ servers: started.servers, browser: started.browser });
  });
  test.afterAll(async () => {
    await started.browser?.close();
    await started.servers?.close();
  });
}

/**
 * A browser context signed in as the owner through the `?token=` URL, as a person opens the
 * printed link; the app is its baseURL.
 */
export async function ownerContext(browser: Browser, servers: Servers): Promise<BrowserContext> {
  const owner = await browser.newContext({ baseURL: servers.url });
  const page = await owner.newPage();
  // a navigation that hangs fails here, naming itself, instead of at the hook's timeout
  await page.goto(`/?token=${encodeURIComponent(servers.token)}`, { timeout: 60_000 });
  await expect(page).toHaveURL(`${servers.url}/`);
  await page.close();
  return owner;
}

/** A random secret with a recognisable prefix: any appearance of it is a leak. */
export function secret(prefix: string): string {
  return `${prefix}-${randomBytes(24).toString("base64url")}`;
}

/** A short unique name for a test's files and commands. */
export function nonce(): string {
  return randomBytes(6).toString("hex");
}

/** States in which nothing runs: the session waits for a person or is done. */
export const AT_REST = new Set([
  "Idle",
  "Paused",
  "Failed",
  "AwaitingToolApproval",
  "AwaitingUserAnswer",
]);

export interface StartOptions {
  /** more environment for the app (over the suite's defaults) */
  env?: Record<string, string>;
  /** where the workspace is made (default the OS temp dir) */
  workspaceParent?: string;
  /**
   * the workspace and the data directory to use as they are (default: fresh temporary ones); a
   * test that prepares them (a data directory inside the workspace) passes both
   */
  dirs?: { workspace: string; dataDir: string };
  /** the app's port (default a free one): for a test that must name it in ARBOR_PUBLIC_URL first */
  port?: number;
}

/**
 * A running pair of servers with the suite's secrets. `api` sends the install token as a Bearer
 * credential; `raw` sends nothing it is not told to.
 */
export class Servers {
  readonly token = secret("arbor-token");
  readonly providerKey = secret("sk-ant-e2e");
  readonly dataDir: string;
  readonly workspace: string;
  app!: ServerProcess;
  fake!: ServerProcess;
  port = 0;
  readonly #env: Record<string, string>;

  private constructor(options: StartOptions) {
    this.dataDir = options.dirs?.dataDir ?? mkdtempSync(join(tmpdir(), "arbor-sec-data-"));
    this.workspace =
      options.dirs?.workspace ??
      mkdtempSync(join(options.workspaceParent ?? tmpdir(), "arbor-sec-ws-"));
    this.#env = options.env ?? {};
  }

  static async start(options: StartOptions = {}): Promise<Servers> {
    const servers = new Servers(options);
    servers.fake = await startFakeLlm();
    servers.port = options.port ?? (await freePort());
    await servers.startApp();
    return servers;
  }

  /** The environment the app runs with (also what a tool must never see). */
  appEnv(): Record<string, string> {
    return {
      // any OpenAI or Gemini request would reach the fake too, which records it
      OPENAI_BASE_URL: `${this.fake.url}/v1`,
      GOOGLE_GENERATIVE_AI_BASE_URL: `${this.fake.url}/v1beta`,
      ARBOR_TOKEN: this.token,
      ANTHROPIC_API_KEY: this.providerKey,
      WORKSPACE_DIR: this.workspace,
      ...this.#env,
    };
  }

  /**
   * Starts the app on this.port. A start that is not ready within 45 s (a port taken between
   * freePort() and the bind, a machine under load) is reported with the app's log on stderr and
   * tried once more on a new port, inside the hook's timeout, so a failure names its cause.
   */
  async startApp(): Promise<void> {
    const start = () =>
      startApp({
        port: this.port,
        dataDir: this.dataDir,
        fakeLlmUrl: this.fake.url,
        env: this.appEnv(),
        readyTimeoutMs: 45_000,
      });
    try {
      this.app = await start();
    } catch (error) {
      process.stderr.write(`the app on port ${this.port} did not start; once more:\n${error}\n`);
      this.port = await freePort();
      this.app = await start();
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Trusts every definition of the workspace's configuration as it is now, as a person would
   * through the trust prompt (GET, then POST each with the hash shown); returns their names.
   */
  async trustWorkspace(): Promise<string[]> {
    const answer = await this.api.get("/api/workspace/trust");
    const { definitions } = answer.json as {
      definitions: Array<{ file: string; name: string; hash: string; status: string }>;
    };
    for (const { file, name, hash, status } of definitions) {
      if (status === "trusted") continue;
      const trusted = await this.api.post("/api/workspace/trust", { file, name, hash });
      if (trusted.status !== 200)
        throw new Error(`trust ${name}: ${trusted.status} ${trusted.text}`);
    }
    return definitions.map((d) => d.name);
  }

  /**
   * The owner's browser: the `?token=` URL traded for a session (docs/accounts.md); the cookie
   * pair `arbor.session_token=…`.
   */
  async ownerCookie(): Promise<string> {
    const traded = await this.raw.get(`/?token=${encodeURIComponent(this.token)}`);
    const pair = traded.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0] ?? "")
      .find((cookie) => cookie.startsWith("arbor.session_token="));
    if (traded.status !== 303 || pair === undefined) {
      throw new Error(`sign the owner in: ${traded.status} ${traded.text.slice(0, 200)}`);
    }
    return pair;
  }

  /**
   * A new person, as an admin would bring them: an invitation in `role`, taken with a password;
   * their browser's client (the session cookie and this server's Origin).
   */
  async invite(
    role: "admin" | "member" | "viewer",
    name = `${role} ${Math.random().toString(36).slice(2, 6)}`,
  ): Promise<{ id: string; name: string; email: string; cookie: string; client: Client }> {
    const email = `${name.replace(/\W+/g, ".").toLowerCase()}@people.test`;
    const invited = await this.api.post("/api/invitations", { role, email });
    if (invited.status !== 201) throw new Error(`invite: ${invited.status} ${invited.text}`);
    const { token } = invited.json as { token: string };
    const joined = await this.raw
      .with({ origin: this.url })
      .post("/api/auth/sign-up/invitation", { token, name, email, password: "e2e password 0123" });
    const pair = joined.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0] ?? "")
      .find((cookie) => cookie.startsWith("arbor.session_token="));
    if (joined.status !== 200 || pair === undefined) {
      throw new Error(`accept the invitation: ${joined.status} ${joined.text}`);
    }
    const { user } = joined.json as { user: { id: string } };
    return {
      id: user.id,
      name,
      email,
      cookie: pair,
      client: new Client(this.url, { cookie: pair, origin: this.url }, this.appLog),
    };
  }

  /** The tail of the app's log: what a request that gets no answer reports. */
  readonly appLog = (): string => this.app?.output().slice(-4_000) ?? "";

  /** A client with `Authorization: Bearer <install token>`. */
  get api(): Client {
    return new Client(this.url, { authorization: `Bearer ${this.token}` }, this.appLog);
  }

  /** A client that sends no credential. */
  get raw(): Client {
    return new Client(this.url, {}, this.appLog);
  }

  async script(turns: FakeTurn[]): Promise<void> {
    const response = await fetch(`${this.fake.url}/__fake/script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ turns }),
    });
    if (!response.ok) throw new Error(`script the fake LLM: ${response.status}`);
  }

  /** Lets every answer paused by its turn's `holdAfterChunks` go on; how many there were. */
  async release(): Promise<number> {
    const response = await fetch(`${this.fake.url}/__fake/release`, { method: "POST" });
    if (!response.ok) throw new Error(`release the fake LLM: ${response.status}`);
    return ((await response.json()) as { released: number }).released;
  }

  async resetFake(): Promise<void> {
    const response = await fetch(`${this.fake.url}/__fake/reset`, { method: "POST" });
    if (!response.ok) throw new Error(`reset the fake LLM: ${response.status}`);
  }

  /** Every LLM request the fake served since its last reset (token counting included). */
  async fakeRequests(): Promise<FakeRequest[]> {
    const response = await fetch(`${this.fake.url}/__fake/requests`);
    return ((await response.json()) as { requests: FakeRequest[] }).requests;
  }

  async close(): Promise<void> {
    await this.app?.kill();
    await this.fake?.kill();
    rmSync(this.dataDir, { recursive: true, force: true });
    rmSync(this.workspace, { recursive: true, force: true });
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** the body parsed as JSON; undefined when it is not JSON */
  json: unknown;
  /** milliseconds from sending to the whole answer */
  ms: number;
}

export interface RequestOptions {
  /** sent as JSON with `Content-Type: application/json` unless `raw` or `contentType` say otherwise */
  body?: unknown;
  /** a body sent as it is */
  raw?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** HTTP with fixed headers; never follows redirects, so a 303 is seen as it is. */
export class Client {
  constructor(
    readonly base: string,
    readonly headers: Record<string, string>,
    /** what a request that gets no answer reports besides its route (the app's log tail) */
    private readonly diagnose?: () => string,
  ) {}

  with(headers: Record<string, string>): Client {
    return new Client(this.base, { ...this.headers, ...headers }, this.diagnose);
  }

  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] ??= options.contentType ?? "application/json";
    const started = Date.now();
    try {
      return await send(
        this.base + path,
        method,
        headers,
        body,
        options.signal ?? AbortSignal.timeout(60_000),
      );
    } catch (error) {
      // a hung request names itself and what the app printed, not only "The operation timed out"
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const log = this.diagnose?.() ?? "";
      throw new Error(
        `${method} ${path}: no answer after ${seconds} s (${String(error)})${log ? `\nthe app printed:\n${log}` : ""}`,
        { cause: error },
      );
    }
  }

  /** The whole answer (an SSE answer is read to its end). */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    const started = performance.now();
    const response = await this.fetch(method, path, options);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      status: response.status,
      headers: response.headers,
      text,
      json,
      ms: performance.now() - started,
    };
  }

  get(path: string, options?: RequestOptions): Promise<Answer> {
    return this.request("GET", path, options);
  }

  post(path: string, body?: unknown, options: RequestOptions = {}): Promise<Answer> {
    return this.request("POST", path, { ...options, ...(body !== undefined ? { body } : {}) });
  }

  patch(path: string, body: unknown): Promise<Answer> {
    return this.request("PATCH", path, { body });
  }

  delete(path: string): Promise<Answer> {
    return this.request("DELETE", path);
  }

  /** POSTs and reads the answer's SSE events to the end of the stream. */
  async events(path: string, body?: unknown): Promise<SseEvent[]> {
    const response = await this.fetch("POST", path, body !== undefined ? { body } : {});
    if (response.status !== 200 || response.body === null) {
      throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    }
    const events: SseEvent[] = [];
    for await (const event of readSse(response.body)) events.push(event);
    return events;
  }

  /** POSTs and yields the answer's SSE events as they arrive (the caller may stop early). */
  async stream(path: string, body?: unknown): Promise<AsyncGenerator<SseEvent>> {
    const response = await this.fetch("POST", path, {
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.timeout(120_000),
    });
    if (response.status !== 200 || response.body === null) {
      throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    }
    return readSse(response.body);
  }

  // ---- the session API, for setting up a case ---------------------------------------------

  async createSession(config: Record<string, Json> = {}, title = "security"): Promise<string> {
    const answer = await this.post("/api/sessions", { title, config });
    if (answer.status !== 201) throw new Error(`create a session: ${answer.status} ${answer.text}`);
    return (answer.json as { session_id: string }).session_id;
  }

  send(sessionId: string, payload: Json, extra: Record<string, Json> = {}): Promise<SseEvent[]> {
    return this.events(`/api/sessions/${sessionId}/messages`, {
      session_id: sessionId,
      payload,
      ...extra,
    });
  }

  async messages(sessionId: string): Promise<StoredMessage[]> {
    const answer = await this.get(`/api/sessions/${sessionId}/messages?view=full`);
    if (answer.status !== 200) throw new Error(`get messages: ${answer.status} ${answer.text}`);
    return (answer.json as { messages: StoredMessage[] }).messages;
  }

  async state(sessionId: string): Promise<SessionState> {
    const answer = await this.get(`/api/sessions/${sessionId}`);
    if (answer.status !== 200) throw new Error(`get a session: ${answer.status} ${answer.text}`);
    return (answer.json as { state: SessionState }).state;
  }

  /** Polls the session until `until` holds for its state; the last state otherwise. */
  async waitForState(
    sessionId: string,
    until: (state: SessionState) => boolean,
    timeoutMs = 10_000,
  ): Promise<SessionState> {
    const deadline = Date.now() + timeoutMs;
    let state = await this.state(sessionId);
    while (!until(state) && Date.now() < deadline) {
      await sleep(50);
      state = await this.state(sessionId);
    }
    return state;
  }
}

/** One HTTP exchange over node:http, answered as a fetch Response (body streamed). */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: AbortSignal,
): Promise<Response> {
  // node:http sends a body of GET, DELETE or OPTIONS neither chunked nor with a length (the
  // server would read it as the next request): such a body gets its Content-Length, as any
  // client sends it. POST, PUT and PATCH stream chunked when the test gives no length.
  const lower = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const sized =
    body !== undefined &&
    ["GET", "DELETE", "OPTIONS"].includes(method) &&
    !lower.has("content-length") &&
    !lower.has("transfer-encoding")
      ? { ...headers, "content-length": String(Buffer.byteLength(body)) }
      : headers;
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers: sized, agent: false, signal });
    request.once("error", reject);
    request.once("response", (incoming: IncomingMessage) => {
      const status = incoming.statusCode ?? 0;
      const nullBody = status === 204 || status === 304 || method === "HEAD";
      if (nullBody) incoming.resume();
      resolve(
        new Response(nullBody ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
          status,
          headers: headersOf(incoming),
        }),
      );
    });
    request.end(body);
  });
}

export function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

// ---- what the answers hold ------------------------------------------------------------------

/** The fields a 400 answer names (`fields[].field`). */
export function fieldsOf(answer: Answer): string[] {
  return ((answer.json as { fields?: Array<{ field: string }> } | undefined)?.fields ?? []).map(
    (f) => f.field,
  );
}

export function errorEvents(events: SseEvent[]): Array<{ code: string; message: string }> {
  return events
    .filter((e) => e.event === "error")
    .map((e) => e.data as { code: string; message: string });
}

/** A short account of an event stream for failure messages: names, states, error messages. */
export function summary(events: SseEvent[]): string {
  return events
    .map((e) => {
      const data = e.data as Record<string, unknown>;
      if (e.event === "context_update") {
        return (data.current_state as { type: string }).type;
      }
      if (e.event === "error") return `error(${String(data.code)}: ${String(data.message)})`;
      return e.event;
    })
    .filter((name, i, all) => name !== all[i - 1])
    .join(" > ");
}

/** The states the operation's context_update events moved through, in order. */
export function statesOf(events: SseEvent[]): string[] {
  return events.flatMap((e) =>
    e.event === "context_update"
      ? [(e.data as { current_state: { type: string } }).current_state.type]
      : [],
  );
}

export interface StoredCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  approval: string;
  approval_note?: string;
}

export function toolCalls(messages: StoredMessage[]): StoredCall[] {
  return messages.flatMap((m) =>
    m.body.message_type === "tool_request" ? (m.body.calls as StoredCall[]) : [],
  );
}

export interface StoredResult {
  tool_call_id: string;
  tool_name: string;
  status: string;
  text: string;
}

export function toolResults(messages: StoredMessage[]): StoredResult[] {
  return messages.flatMap((m) => {
    if (m.body.message_type !== "tool_result") return [];
    const content = (m.body.content as Array<{ type: string; text?: string }>) ?? [];
    return [
      {
        tool_call_id: m.body.tool_call_id as string,
        tool_name: m.body.tool_name as string,
        status: m.body.status as string,
        text: content.map((c) => c.text ?? "").join("\n"),
      },
    ];
  });
}

/** The tool_use ids and tool_result ids of an Anthropic Messages request body. */
export function toolPairs(body: unknown): { uses: string[]; results: string[] } {
  const messages = (body as { messages?: Array<{ content: unknown }> } | undefined)?.messages ?? [];
  const uses: string[] = [];
  const results: string[] = [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block.type === "tool_use") uses.push(String(block.id));
      if (block.type === "tool_result") results.push(String(block.tool_use_id));
    }
  }
  return { uses, results };
}

const STACK_FRAME = /\n\s*at\s+\S+.*(?:\(|\s)(?:file:\/\/|\/|node:)\S*:\d+(?::\d+)?/;
const SOURCE_PATH =
  /(?:\/[\w.@-]+)+\.(?:[cm]?js|tsx?)(?::\d+)?|node_modules\/|webpack-internal:|\.next\/server/;

/** Why a text looks like it carries a stack trace or a server file path; undefined when clean. */
export function stackTraceIn(text: string): string | undefined {
  const frame = STACK_FRAME.exec(text);
  if (frame) return `stack frame: ${frame[0].trim()}`;
  const path = SOURCE_PATH.exec(text);
  if (path) return `server path: ${path[0]}`;
  return undefined;
}

// ---- processes --------------------------------------------------------------------------------

/** Live processes whose command line contains `marker` (zombies left out). */
export function processesMatching(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (!cmdline.includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const stateField = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (stateField !== "Z") found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** SIGKILLs every process whose command line contains `marker`, and its group (cleanup). */
export function killProcessesMatching(marker: string): void {
  for (const pid of processesMatching(marker)) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // not a group leader, or gone
      }
    }
  }
}

/** Waits until no live process carries `marker`; true when none is left. */
export async function processesGone(marker: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processesMatching(marker).length > 0) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Waits until `check` holds (polled every 50 ms); whether it did before the timeout. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

export type { SseEvent };

// ---- the API's catalog ------------------------------------------------------------------------

export interface CatalogEntry {
  method: string;
  /** with `{id}`-style placeholders */
  path: string;
  /** the request body's schema name; undefined for none */
  body: string | undefined;
}

/**
 * Every endpoint of apps/web/lib/api/endpoints.ts, read from its rendering in docs/api.md (whose
 * staleness test keeps the two equal): the suite then covers a route added later without an edit.
 */
export function apiCatalog(): CatalogEntry[] {
  const docs = readFileSync(join(repoRoot, "docs", "api.md"), "utf8");
  const overview = docs.slice(docs.indexOf("## Overview"), docs.indexOf("## Endpoints"));
  const entries: CatalogEntry[] = [];
  for (const line of overview.split("\n")) {
    const row = /^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]*) \|/.exec(line);
    if (!row?.[1] || !row[2]) continue;
    const body = /\[`(\w+)`\]/.exec(row[3] ?? "")?.[1];
    entries.push({ method: row[1], path: row[2], body });
  }
  if (entries.length < 20) throw new Error(`docs/api.md lists only ${entries.length} endpoints`);
  return entries;
}

/** A catalog path with its placeholders filled in. */
export function fillPath(path: string, ids: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? `unknown-${name}`);
}
