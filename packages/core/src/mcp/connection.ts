import { realpath } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  PromptListChangedNotificationSchema,
  type ReadResourceResult,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../agent/types.js";
import { bubblewrapArgs, type Sandbox, sandboxGate } from "../tools/sandbox.js";
import { ToolError } from "../tools/tool.js";
import { toolEnvironment } from "../tools/tool-env.js";
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from "./config.js";

// One configured MCP server: its client connection (stdio, or Streamable HTTP falling back to
// HTTP+SSE), what it offers (tools, resources, templates, prompts, every page), and its status.
// A server that fails to start or initialize is marked failed with the reason. One that dies
// later is reconnected with backoff; its calls in flight end with an error (the SDK rejects the
// pending requests when the transport closes).
//
// A stdio server is a process Arbor starts, so it runs like bash's commands: in the sandbox
// (tools/sandbox.ts, the same bwrap command line) with the scrubbed environment, the workspace
// writable, the data dir hidden, its own PID namespace, and the network unless its entry says
// `"network": false`. Without a working sandbox, sandboxGate decides whether it starts at all. Its
// start counts as unattended even when a person trusted its definition: it keeps running and
// serves every session's calls, auto-approved ones included. So under ARBOR_SANDBOX=auto it starts
// unconfined only after an explicit ARBOR_SANDBOX=off.

/** How a configured server is spoken to, as the API names it. */
export function transportKind(config: McpServerConfig): McpTransportKind {
  return config.transport === "stdio" ? "stdio" : config.sseOnly ? "sse" : "http";
}

export type McpServerStatus = "connecting" | "connected" | "failed" | "disabled";
export type McpTransportKind = "stdio" | "http" | "sse";

type Env = Readonly<Record<string, string | undefined>>;

export interface McpBackoff {
  initialMs: number;
  maxMs: number;
  /** reconnect attempts after a connected server died, before it is marked failed */
  maxAttempts: number;
}

export const DEFAULT_MCP_BACKOFF: McpBackoff = { initialMs: 500, maxMs: 30_000, maxAttempts: 8 };
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;
const STDERR_KEEP = 2_000;

export interface McpConnectionOptions {
  config: McpServerConfig;
  /** the default working directory of stdio servers, and WORKSPACE_DIR in their environment */
  workspaceRoot: string;
  /** the server's environment: stdio servers get only its scrubbed part (tools/tool-env.ts) */
  env: Env;
  logger: Logger;
  /** called whenever status, tools, resources or prompts change */
  onChange: () => void;
  backoff?: McpBackoff;
  connectTimeoutMs?: number;
  /** where stdio servers run (default: no sandbox, as the caller chose); see detectSandbox */
  sandbox?: Sandbox;
  /** the server answers beyond loopback: without a sandbox, stdio servers are refused */
  servingBeyondLoopback?: boolean;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (text: string) => void;
}

const CLIENT_INFO = { name: "arbor", version: "0.1.0" };

export class McpConnection {
  readonly config: McpServerConfig;
  status: McpServerStatus;
  error: string | undefined;
  transport: McpTransportKind;
  tools: Tool[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  prompts: Prompt[] = [];
  readonly #options: McpConnectionOptions;
  readonly #backoff: McpBackoff;
  #client: Client | undefined;
  #generation = 0;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #stderr = "";
  #pending: Promise<void> = Promise.resolve();

  constructor(options: McpConnectionOptions) {
    this.#options = options;
    this.config = options.config;
    this.#backoff = options.backoff ?? DEFAULT_MCP_BACKOFF;
    this.status = options.config.disabled ? "disabled" : "connecting";
    this.error = undefined;
    this.transport = transportKind(options.config);
  }

  get name(): string {
    return this.config.name;
  }

  /** Connects in the background; `settled()` resolves once this attempt has ended. */
  start(): void {
    if (this.config.disabled || this.#closed) return;
    this.#pending = this.#connect();
  }

  /** Resolves when the current connection attempt has ended (connected or failed). */
  settled(): Promise<void> {
    return this.#pending;
  }

  /** Drops the current connection (if any) and connects again; resolves when that has ended. */
  async reconnect(): Promise<void> {
    if (this.config.disabled || this.#closed) return;
    this.#attempt = 0;
    this.#clearRetry();
    await this.#drop();
    this.#pending = this.#connect();
    await this.#pending;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#clearRetry();
    this.#generation++;
    await this.#drop();
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    const client = this.#connected();
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
        timeout: options.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        ...(options.onProgress !== undefined
          ? { onprogress: (p) => options.onProgress?.(progressText(p)) }
          : {}),
      });
      return result as CallToolResult;
    } catch (error) {
      throw ToolError.failed(`MCP server ${this.name}: ${messageOf(error)}`);
    }
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.#connected().readResource({ uri }, signal !== undefined ? { signal } : {});
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    return this.#connected().getPrompt({ name, arguments: args });
  }

  /** The SDK client while connected (benchmarks compare against it). */
  get client(): Client | undefined {
    return this.status === "connected" ? this.#client : undefined;
  }

  #connected(): Client {
    const client = this.#client;
    if (client === undefined || this.status !== "connected") {
      const why = this.error !== undefined ? `: ${this.error}` : "";
      throw ToolError.failed(`MCP server ${this.name} is not connected (${this.status}${why})`);
    }
    return client;
  }

  #set(status: McpServerStatus, error?: string): void {
    this.status = status;
    this.error = error;
    this.#options.onChange();
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    this.#set("connecting", this.status === "connecting" ? this.error : undefined);
    this.#stderr = "";
    let client: Client | undefined;
    try {
      const opened = await this.#open();
      client = opened.client;
      if (generation !== this.#generation) {
        await client.close().catch(() => undefined);
        return;
      }
      this.transport = opened.transport;
      this.#client = client;
      client.onclose = () => {
        if (generation === this.#generation && !this.#closed) this.#lost();
      };
      this.#watchLists(client, generation);
      await this.#listAll(client);
      if (generation !== this.#generation) return;
      this.#attempt = 0;
      this.#set("connected");
      this.#options.logger.info("mcp server connected", {
        server: this.name,
        transport: this.transport,
        tools: this.tools.length,
      });
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#client = undefined;
      await client?.close().catch(() => undefined);
      const reason = this.#reason(error);
      this.#clearLists();
      if (this.#attempt > 0 && this.#attempt < this.#backoff.maxAttempts) {
        this.#scheduleRetry(reason);
        return;
      }
      this.#set("failed", reason);
      this.#options.logger.error("mcp server failed", { server: this.name, error: reason });
    }
  }

  /** The connection closed on its own: reconnect with backoff. */
  #lost(): void {
    this.#client = undefined;
    this.#clearLists();
    const reason = this.#reason(new Error("the server closed the connection"));
    this.#options.logger.warn("mcp server disconnected", { server: this.name, error: reason });
    this.#attempt = 0;
    this.#scheduleRetry(reason);
  }

  #scheduleRetry(reason: string): void {
    const delay = Math.min(this.#backoff.initialMs * 2 ** this.#attempt, this.#backoff.maxMs);
    this.#attempt++;
    this.#set("connecting", `${reason}; reconnecting (attempt ${this.#attempt})`);
    this.#clearRetry();
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#closed) this.#pending = this.#connect();
    }, delay);
    this.#retry.unref?.();
  }

  #clearRetry(): void {
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#generation++;
    this.#clearLists();
    if (client !== undefined) await client.close().catch(() => undefined);
  }

  #clearLists(): void {
    this.tools = [];
    this.resources = [];
    this.resourceTemplates = [];
    this.prompts = [];
  }

  #reason(error: unknown): string {
    const message = messageOf(error);
    const stderr = this.#stderr.trim();
    return stderr === "" ? message : `${message} (stderr: ${stderr.slice(-500)})`;
  }

  async #open(): Promise<{ client: Client; transport: McpTransportKind }> {
    const config = this.config;
    const timeout = this.#options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
    if (config.transport === "stdio") {
      const client = newClient();
      await client.connect(await this.#stdioTransport(config), { timeout });
      return { client, transport: "stdio" };
    }
    if (!config.sseOnly) {
      const client = newClient();
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(config.url), {
            requestInit: { headers: config.headers },
          }),
          { timeout },
        );
        return { client, transport: "http" };
      } catch (streamableError) {
        await client.close().catch(() => undefined);
        try {
          return { client: await this.#openSse(config, timeout), transport: "sse" };
        } catch (sseError) {
          throw new Error(
            `Streamable HTTP: ${messageOf(streamableError)}; HTTP+SSE: ${messageOf(sseError)}`,
          );
        }
      }
    }
    return { client: await this.#openSse(config, timeout), transport: "sse" };
  }

  async #openSse(config: HttpServerConfig, timeout: number): Promise<Client> {
    const client = newClient();
    const headers = config.headers;
    try {
      await client.connect(
        new SSEClientTransport(new URL(config.url), {
          requestInit: { headers },
          eventSourceInit: {
            fetch: (url, init) =>
              fetch(url, { ...init, headers: { ...toRecord(init?.headers), ...headers } }),
          },
        }),
        { timeout },
      );
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  async #stdioTransport(config: StdioServerConfig): Promise<StdioClientTransport> {
    const { workspaceRoot, env } = this.#options;
    const sandbox: Sandbox = this.#options.sandbox ?? {
      mode: "none",
      cause: "opted_out",
      reason: "no sandbox configured",
    };
    const verdict = sandboxGate({
      sandbox,
      servingBeyondLoopback: this.#options.servingBeyondLoopback ?? false,
      // it serves auto-approved calls too, whoever trusted its definition (above)
      personApproves: false,
    });
    if (verdict.type === "refused") throw new Error(`not started: ${verdict.reason}`);
    const cwd =
      config.cwd === undefined
        ? workspaceRoot
        : isAbsolute(config.cwd)
          ? config.cwd
          : resolve(workspaceRoot, config.cwd);
    // never Arbor's environment: the scrubbed tool environment plus the server's own `env`
    const serverEnv = { ...toolEnvironment({ env, workspaceRoot }), ...config.env };
    const spawned =
      sandbox.mode === "bubblewrap"
        ? {
            command: sandbox.command,
            // the mounts are made on real paths (symlinks resolved)
            args: bubblewrapArgs(
              { ...sandbox, network: config.network },
              {
                workspace: await realpath(workspaceRoot),
                cwd: await realpath(cwd),
                command: config.command,
                args: config.args,
              },
            ),
            // /tmp inside is the sandbox's own; a TMPDIR elsewhere would be read-only
            env: { ...serverEnv, TMPDIR: "/tmp" },
          }
        : { command: config.command, args: config.args, env: serverEnv };
    const transport = new StdioClientTransport({ ...spawned, cwd, stderr: "pipe" });
    (transport.stderr as Readable | null)?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_KEEP);
    });
    return transport;
  }

  #watchLists(client: Client, generation: number): void {
    const refresh = (what: string) => () => {
      if (generation !== this.#generation) return;
      this.#listAll(client, what).then(
        () => {
          if (generation === this.#generation) this.#options.onChange();
        },
        (error: unknown) =>
          this.#options.logger.warn("mcp list refresh failed", {
            server: this.name,
            list: what,
            error: messageOf(error),
          }),
      );
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, refresh("tools"));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, refresh("resources"));
    client.setNotificationHandler(PromptListChangedNotificationSchema, refresh("prompts"));
  }

  /** Lists what the server offers (every page), or only `only`. */
  async #listAll(client: Client, only?: string): Promise<void> {
    const caps = client.getServerCapabilities() ?? {};
    const want = (what: string) => only === undefined || only === what;
    if (want("tools")) {
      this.tools = caps.tools
        ? await allPages(async (cursor) => {
            const page = await client.listTools(cursor !== undefined ? { cursor } : {});
            return { items: page.tools, nextCursor: page.nextCursor };
          })
        : [];
    }
    if (want("resources")) {
      this.resources = caps.resources
        ? await allPages(async (cursor) => {
            const page = await client.listResources(cursor !== undefined ? { cursor } : {});
            return { items: page.resources, nextCursor: page.nextCursor };
          })
        : [];
      this.resourceTemplates = caps.resources
        ? await allPages(async (cursor) => {
            const page = await client.listResourceTemplates(cursor !== undefined ? { cursor } : {});
            return { items: page.resourceTemplates, nextCursor: page.nextCursor };
          }).catch(() => [])
        : [];
    }
    if (want("prompts")) {
      this.prompts = caps.prompts
        ? await allPages(async (cursor) => {
            const page = await client.listPrompts(cursor !== undefined ? { cursor } : {});
            return { items: page.prompts, nextCursor: page.nextCursor };
          })
        : [];
    }
  }
}

const MAX_PAGES = 1_000;

async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const next = await page(cursor);
    items.push(...next.items);
    if (next.nextCursor === undefined || next.nextCursor === cursor) break;
    cursor = next.nextCursor;
  }
  return items;
}

function newClient(): Client {
  return new Client(CLIENT_INFO, { capabilities: {} });
}

function progressText(p: { progress: number; total?: number; message?: string }): string {
  const amount = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  return p.message !== undefined ? `${p.message} (${amount})` : `progress ${amount}`;
}

function toRecord(headers: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  if (headers === undefined) return {};
  return Object.fromEntries(new Headers(headers).entries());
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
