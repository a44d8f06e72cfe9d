import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../agent/types.js";
import { type SecretSource, withRedactedOutput } from "../tools/redacting-tool.js";
import type { ToolSource } from "../tools/registry.js";
import { jsonSchemaTool } from "../tools/registry.js";
import type { Sandbox } from "../tools/sandbox.js";
import { secretsFromEnv } from "../tools/secrets.js";
import type { AgentTool, AnyAgentTool } from "../tools/tool.js";
import type { ConfigDefinition } from "../trust/definitions.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import {
  loadMcpConfigs,
  type McpConfigProblem,
  type McpConfigSource,
  type McpServerConfig,
} from "./config.js";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  type McpBackoff,
  McpConnection,
  type McpServerStatus,
  type McpTransportKind,
  transportKind,
} from "./connection.js";
import { mcpPromptTexts } from "./prompt-messages.js";
import { toolResultFromMcp } from "./result.js";
import { modelToolNames } from "./tool-names.js";

// The process's MCP servers: reads the config, connects every enabled server in the background,
// offers their tools to the tool registry (a ToolSource) under model names, reads resources and
// prompts, answers the servers' states for the API, and reloads when the config file changes.

type Env = Readonly<Record<string, string | undefined>>;

export interface McpManagerOptions {
  /** one config file of the user's own (no trust asked); `sources` wins when given */
  configPath?: string;
  /** the files servers are read from (mcpConfigSources) */
  sources?: readonly McpConfigSource[];
  /**
   * the workspace's trust: a server of a workspace file (needsTrust) starts only when trusted
   * here; without it such servers never start
   */
  trust?: WorkspaceTrust;
  workspaceRoot: string;
  /** the server's environment: `${VAR}` values and the scrubbed environment of stdio servers */
  env: Env;
  logger: Logger;
  /** per tool call; reset by progress notifications (default 120 s) */
  callTimeoutMs?: number;
  connectTimeoutMs?: number;
  backoff?: McpBackoff;
  /** redacted from MCP tool results (default: secretsFromEnv of `env`) */
  secrets?: SecretSource;
  /** where stdio servers run, as bash's commands do (default: no sandbox); see detectSandbox */
  sandbox?: Sandbox;
  /** the server answers beyond loopback: without a working sandbox, stdio servers are refused */
  servingBeyondLoopback?: boolean;
  /**
   * Called when a server's definition is loaded and the server starts: a new server, or one
   * whose definition changed (the audit log's mcp_config_loaded). Must not throw.
   */
  onServerStarted?: (server: McpServerStarted) => void;
}

/** A server's definition as it was loaded (McpManagerOptions.onServerStarted). */
export interface McpServerStarted {
  name: string;
  /** the file it is defined in */
  file: string;
  transport: McpTransportKind;
  /** sha256 of the entry as written */
  hash: string;
}

/** A server as GET /api/mcp/servers shows it. */
export interface McpServerInfo {
  name: string;
  transport: McpTransportKind;
  /** `untrusted`: defined in a workspace file no person has trusted (as it is now) */
  status: McpServerStatus | "untrusted";
  /** the file it is defined in */
  file?: string;
  error?: string;
  tools: Array<{ name: string; model_name: string; description: string }>;
  resources: Array<{ uri: string; name: string; mime_type?: string }>;
  resource_templates: Array<{ uri_template: string; name: string; mime_type?: string }>;
  prompts: Array<{
    name: string;
    description?: string;
    arguments: Array<{ name: string; description?: string; required: boolean }>;
  }>;
}

/** An entry of the config that could not be used, kept so the API can show why. */
interface InvalidEntry {
  name: string;
  transport: McpTransportKind;
  error: string;
}

export class McpManager implements ToolSource {
  readonly #options: McpManagerOptions;
  readonly #secrets: SecretSource;
  #connections = new Map<string, McpConnection>();
  #invalid: InvalidEntry[] = [];
  /** servers of workspace files, trusted or not, as last read (the trust prompt's list) */
  #definitions: McpServerConfig[] = [];
  #untrusted: McpServerConfig[] = [];
  #loggedProblems = "[]";
  #fileProblems: McpConfigProblem[] = [];
  #version = 0;
  #builtVersion = -1;
  #tools: AnyAgentTool[] = [];
  #modelNames = new Map<string, string>();
  #listeners = new Set<() => void>();
  #unwatch: (() => Promise<void>) | undefined;
  #reloading: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: McpManagerOptions) {
    this.#options = options;
    this.#secrets = options.secrets ?? secretsFromEnv(options.env);
    // trusting (here or on another instance) or revoking starts or stops servers
    options.trust?.onChange(() => void this.reload());
  }

  /** The files servers are read from. */
  get sources(): readonly McpConfigSource[] {
    const { sources, configPath } = this.#options;
    if (sources !== undefined) return sources;
    return configPath === undefined
      ? []
      : [{ path: configPath, file: configPath, needsTrust: false }];
  }

  /** The servers of the workspace's files, as they are now, for the trust prompt. */
  definitions(): ConfigDefinition[] {
    return this.#definitions.map((server) => ({
      kind: "mcp_server",
      file: server.file,
      name: server.name,
      hash: server.hash,
      runs: server.runs,
    }));
  }

  /** Reads the config and starts connecting; resolves once the file is read, not connected. */
  async start(): Promise<void> {
    await this.reload();
  }

  /** Resolves when no server is still connecting (tests; the app never waits for this). */
  async settled(): Promise<void> {
    await this.#reloading;
    await Promise.all([...this.#connections.values()].map((c) => c.settled()));
  }

  /**
   * Rereads the config: new servers connect, removed ones close, changed ones reconnect,
   * unchanged ones are left alone. A file that does not parse keeps the servers running.
   */
  reload(): Promise<void> {
    this.#reloading = this.#reloading.then(() => this.#reload());
    return this.#reloading;
  }

  async #reload(): Promise<void> {
    if (this.#closed) return;
    const { logger, env } = this.#options;
    const config = await loadMcpConfigs(this.sources, env);
    const fileProblems = config.problems.filter((p) => p.server === undefined);
    // the files are reread often (the watcher, the trust prompt): a problem is logged once
    const problems = JSON.stringify(config.problems);
    if (problems !== this.#loggedProblems) {
      for (const problem of config.problems) logger.error("mcp config problem", { ...problem });
      this.#loggedProblems = problems;
    }
    this.#fileProblems = fileProblems;
    if (fileProblems.length > 0) {
      this.#changed();
      return;
    }
    this.#invalid = config.problems.flatMap((p) =>
      p.server === undefined
        ? []
        : [
            {
              name: p.server,
              transport: guessTransport(p.field),
              error: `${p.field}: ${p.message}`,
            },
          ],
    );
    this.#definitions = config.servers.filter((s) => s.needsTrust);
    const trust = this.#options.trust;
    const before = new Set(this.#untrusted.map((s) => `${s.name}\0${s.hash}`));
    this.#untrusted = this.#definitions.filter((s) => trust?.isTrusted(s) !== true);
    const untrusted = new Set(this.#untrusted.map((s) => s.name));
    for (const server of this.#untrusted) {
      if (before.has(`${server.name}\0${server.hash}`)) continue;
      logger.warn("mcp server waits for trust", { server: server.name, file: server.file });
    }
    const servers = config.servers.filter((s) => !untrusted.has(s.name));
    const wanted = new Map(servers.map((s) => [s.name, s]));
    const closing: Promise<void>[] = [];
    for (const [name, connection] of this.#connections) {
      const next = wanted.get(name);
      if (next === undefined || !sameConfig(next, connection.config)) {
        this.#connections.delete(name);
        closing.push(connection.close());
      }
    }
    await Promise.all(closing);
    for (const server of servers) {
      if (this.#connections.has(server.name)) continue;
      const connection = this.#connect(server);
      this.#connections.set(server.name, connection);
      connection.start();
      if (!server.disabled) {
        const { name, file, transport, hash } = server;
        this.#options.onServerStarted?.({ name, file, transport, hash });
      }
    }
    this.#changed();
  }

  #connect(config: McpServerConfig): McpConnection {
    return new McpConnection({
      config,
      workspaceRoot: this.#options.workspaceRoot,
      env: this.#options.env,
      logger: this.#options.logger,
      onChange: () => this.#changed(),
      ...(this.#options.backoff !== undefined ? { backoff: this.#options.backoff } : {}),
      ...(this.#options.connectTimeoutMs !== undefined
        ? { connectTimeoutMs: this.#options.connectTimeoutMs }
        : {}),
      ...(this.#options.sandbox !== undefined ? { sandbox: this.#options.sandbox } : {}),
      ...(this.#options.servingBeyondLoopback !== undefined
        ? { servingBeyondLoopback: this.#options.servingBeyondLoopback }
        : {}),
    });
  }

  /** Retries one server; false when no server has that name (or it is disabled or invalid). */
  async reconnect(name: string): Promise<boolean> {
    const untrusted = this.#untrusted.find((s) => s.name === name);
    if (untrusted !== undefined) throw new McpLookupError("name", untrustedMessage(untrusted));
    const connection = this.#connections.get(name);
    if (connection === undefined || connection.config.disabled) return false;
    await connection.reconnect();
    return true;
  }

  connection(name: string): McpConnection | undefined {
    return this.#connections.get(name);
  }

  /**
   * Watches the config files and reloads on change (debounced); returns when watching.
   *
   * Each file's own directory is watched with node's fs.watch, not recursively and not with
   * @parcel/watcher: parcel shares the directory tree it read between all subscriptions of one
   * path in a process, so a subscription of the workspace root that ignores its subdirectories
   * (all this needs) would blind the codebase index's recursive one to every file below the root
   * (issue #26).
   */
  async watch(): Promise<void> {
    if (this.#unwatch !== undefined || this.#closed) return;
    // a source that is not a file (the database's) is polled by its owner instead
    const paths = this.sources.filter((s) => s.read === undefined).map((s) => s.path);
    const dirs = [...new Set(paths.map((p) => dirname(p)))];
    let timer: NodeJS.Timeout | undefined;
    const watchers: FSWatcher[] = [];
    for (const dir of dirs) {
      const files = new Set(paths.filter((p) => dirname(p) === dir).map((p) => basename(p)));
      try {
        const watcher = watch(dir, { persistent: false }, (_event, filename) => {
          // no name (some platforms): any change may be the file's
          if (filename !== null && !files.has(basename(filename))) return;
          const file = filename !== null ? join(dir, filename) : dir;
          if (timer !== undefined) clearTimeout(timer);
          timer = setTimeout(() => {
            this.#options.logger.info("mcp config changed; reloading", { file });
            void this.reload();
          }, 150);
        });
        watcher.on("error", (error) =>
          this.#options.logger.warn("mcp config watch error", { dir, error: error.message }),
        );
        watchers.push(watcher);
      } catch (error) {
        this.#options.logger.warn("mcp config not watched", {
          dir,
          error: (error as Error).message,
        });
      }
    }
    this.#unwatch = async () => {
      if (timer !== undefined) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#unwatch?.();
    this.#unwatch = undefined;
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(connections.map((c) => c.close()));
  }

  /** Called (synchronously, without arguments) after any change of servers, tools or states. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#version++;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  // ---- ToolSource ----------------------------------------------------------------------------

  version(): number {
    return this.#version;
  }

  tools(): readonly AnyAgentTool[] {
    if (this.#builtVersion !== this.#version) this.#buildTools();
    return this.#tools;
  }

  /** The model name of `tool` of `server` (undefined when that server does not offer it now). */
  modelName(server: string, tool: string): string | undefined {
    if (this.#builtVersion !== this.#version) this.#buildTools();
    return this.#modelNames.get(`${server}\0${tool}`);
  }

  #buildTools(): void {
    const connected = [...this.#connections.values()].filter((c) => c.status === "connected");
    const keys = connected.flatMap((c) => c.tools.map((t) => ({ server: c.name, tool: t.name })));
    this.#modelNames = modelToolNames(keys);
    const timeoutMs = this.#options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    this.#tools = connected.flatMap((connection) =>
      connection.tools.map((tool) => {
        const name = this.#modelNames.get(`${connection.name}\0${tool.name}`) as string;
        const origin = { server: connection.name, tool: tool.name };
        const category: AgentTool["category"] =
          tool.annotations?.readOnlyHint === true ? "read" : "other";
        const wrapped = jsonSchemaTool({
          name,
          label: `${tool.annotations?.title ?? tool.title ?? tool.name} (${connection.name})`,
          description: tool.description ?? tool.title ?? tool.name,
          inputSchema: tool.inputSchema,
          category,
          origin: { kind: "mcp", ...origin },
          execute: async (params, ctx) => {
            const result = await connection.callTool(tool.name, params, {
              signal: ctx.signal,
              timeoutMs,
              onProgress: ctx.onProgress,
            });
            return toolResultFromMcp(result, origin);
          },
        });
        return withRedactedOutput(wrapped, this.#secrets);
      }),
    );
    this.#builtVersion = this.#version;
  }

  // ---- resources and prompts -----------------------------------------------------------------

  /** Reads `uri` of `server`; throws McpLookupError naming the unknown server or URI. */
  async readResource(
    server: string,
    uri: string,
    signal?: AbortSignal,
  ): Promise<ReadResourceResult> {
    const connection = this.#connections.get(server);
    const untrusted = this.#untrusted.find((s) => s.name === server);
    if (untrusted !== undefined)
      throw new McpLookupError("server_name", untrustedMessage(untrusted));
    if (connection === undefined) {
      throw new McpLookupError("server_name", `no MCP server is named ${server}`);
    }
    if (connection.status !== "connected") {
      throw new McpLookupError(
        "server_name",
        `MCP server ${server} is ${connection.status}${connection.error ? `: ${connection.error}` : ""}`,
      );
    }
    try {
      return await connection.readResource(uri, signal);
    } catch (error) {
      throw new McpLookupError(
        "resource_uri",
        `MCP server ${server} has no resource ${uri}: ${(error as Error).message}`,
      );
    }
  }

  /**
   * Why `uri` of `server` cannot be read, without reading it: the field (`server_name`,
   * `resource_uri`) and a message; undefined when the server is connected and lists the URI or
   * a template that matches it.
   */
  resourceProblem(server: string, uri: string): { field: string; message: string } | undefined {
    const untrusted = this.#untrusted.find((s) => s.name === server);
    if (untrusted !== undefined)
      return { field: "server_name", message: untrustedMessage(untrusted) };
    const connection = this.#connections.get(server);
    if (connection === undefined) {
      return { field: "server_name", message: `no MCP server is named ${server}` };
    }
    if (connection.status !== "connected") {
      const why = connection.error !== undefined ? `: ${connection.error}` : "";
      return {
        field: "server_name",
        message: `MCP server ${server} is ${connection.status}${why}`,
      };
    }
    if (connection.resources.some((r) => r.uri === uri)) return undefined;
    if (connection.resourceTemplates.some((t) => matchesTemplate(t.uriTemplate, uri))) {
      return undefined;
    }
    return { field: "resource_uri", message: `MCP server ${server} lists no resource ${uri}` };
  }

  /**
   * Why the prompt `name` of `server` cannot be expanded with `args`, without asking the server:
   * the field (`server_name`, `prompt_name`, `arguments.<name>`) and a message; undefined when
   * the server is connected, lists the prompt and every required argument is given.
   */
  promptProblem(
    server: string,
    name: string,
    args: Record<string, string>,
  ): { field: string; message: string } | undefined {
    const untrusted = this.#untrusted.find((s) => s.name === server);
    if (untrusted !== undefined)
      return { field: "server_name", message: untrustedMessage(untrusted) };
    const connection = this.#connections.get(server);
    if (connection === undefined || connection.status !== "connected") {
      return { field: "server_name", message: `no connected MCP server is named ${server}` };
    }
    const prompt = connection.prompts.find((p) => p.name === name);
    if (prompt === undefined) {
      return { field: "prompt_name", message: `MCP server ${server} has no prompt ${name}` };
    }
    for (const argument of prompt.arguments ?? []) {
      if (argument.required === true && (args[argument.name] ?? "") === "") {
        return {
          field: `arguments.${argument.name}`,
          message: `the prompt ${name} needs the argument ${argument.name}`,
        };
      }
    }
    return undefined;
  }

  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string>,
  ): Promise<GetPromptResult> {
    const problem = this.promptProblem(server, name, args);
    if (problem !== undefined) throw new McpLookupError(problem.field, problem.message);
    return (this.#connections.get(server) as McpConnection).getPrompt(name, args);
  }

  /** The prompt's messages as text (McpPromptResponse); errors as getPrompt. */
  async promptMessages(
    server: string,
    name: string,
    args: Record<string, string>,
  ): Promise<{
    description?: string;
    messages: Array<{ role: "user" | "assistant"; text: string }>;
  }> {
    const result = await this.getPrompt(server, name, args);
    return {
      ...(result.description !== undefined ? { description: result.description } : {}),
      messages: mcpPromptTexts(result),
    };
  }

  // ---- the API's view ------------------------------------------------------------------------

  servers(): McpServerInfo[] {
    const out: McpServerInfo[] = [...this.#connections.values()].map((c) => ({
      name: c.name,
      transport: c.transport,
      status: c.status,
      file: c.config.file,
      ...(c.error !== undefined ? { error: c.error } : {}),
      tools: c.tools.map((t) => ({
        name: t.name,
        model_name: this.modelName(c.name, t.name) ?? t.name,
        description: t.description ?? "",
      })),
      resources: c.resources.map((r) => ({
        uri: r.uri,
        name: r.name,
        ...(r.mimeType !== undefined ? { mime_type: r.mimeType } : {}),
      })),
      resource_templates: c.resourceTemplates.map((r) => ({
        uri_template: r.uriTemplate,
        name: r.name,
        ...(r.mimeType !== undefined ? { mime_type: r.mimeType } : {}),
      })),
      prompts: c.prompts.map((p) => ({
        name: p.name,
        ...(p.description !== undefined ? { description: p.description } : {}),
        arguments: (p.arguments ?? []).map((a) => ({
          name: a.name,
          ...(a.description !== undefined ? { description: a.description } : {}),
          required: a.required === true,
        })),
      })),
    }));
    for (const server of this.#untrusted) {
      out.push({
        name: server.name,
        transport: transportKind(server),
        status: "untrusted",
        file: server.file,
        error: untrustedMessage(server),
        tools: [],
        resources: [],
        resource_templates: [],
        prompts: [],
      });
    }
    for (const entry of this.#invalid) {
      out.push({
        name: entry.name,
        transport: entry.transport,
        status: "failed",
        error: entry.error,
        tools: [],
        resources: [],
        resource_templates: [],
        prompts: [],
      });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Problems of the file as a whole (it does not parse): the servers keep their last config. */
  configErrors(): McpConfigProblem[] {
    return [...this.#fileProblems];
  }
}

/** A resource or prompt request naming something that does not exist: `field` is the wrong one. */
export class McpLookupError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "McpLookupError";
  }
}

/**
 * Whether `error` is an McpLookupError, by name: a bundler may load this module more than once
 * (Next's route bundles), and `instanceof` fails across copies.
 */
export function isMcpLookupError(error: unknown): error is McpLookupError {
  return (
    error instanceof Error &&
    error.name === "McpLookupError" &&
    typeof (error as { field?: unknown }).field === "string"
  );
}

function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

function untrustedMessage(server: McpServerConfig): string {
  const what = server.transport === "stdio" ? "would run" : "would connect to";
  const target =
    server.transport === "stdio"
      ? [server.runs.command, ...(server.runs.args ?? [])].join(" ")
      : server.runs.url;
  return `MCP server ${server.name} of ${server.file} is not trusted: it ${what} ${target}. Trust it in the session settings (or POST /api/workspace/trust) to start it`;
}

function sameConfig(a: McpServerConfig, b: McpServerConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function guessTransport(field: string): McpTransportKind {
  return /\.(url|headers)\b/.test(field) ? "http" : "stdio";
}
