import type { Logger } from "../agent/types.js";
import { type SecretSource, withRedactedOutput } from "../tools/redacting-tool.js";
import type { ToolSource } from "../tools/registry.js";
import { redact, redactValue } from "../tools/secrets.js";
import type { AnyAgentTool } from "../tools/tool.js";
import { type ConfigDefinition, definitionHash } from "../trust/definitions.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import {
  loadOpenApiConfig,
  type OpenApiConfigPolicy,
  type OpenApiConfigProblem,
  type OpenApiEntry,
  openApiPolicyFromEnv,
} from "./config.js";
import { type ResolvedAuth, resolveAuth } from "./http-call.js";
import { type AddressLookup, forbiddenHost } from "./network-policy.js";
import { type OpenApiOperation, operationsOf, serverUrl } from "./operations.js";
import { readConfined } from "./spec-resolvers.js";
import { loadOpenApiDocument, operationTool } from "./spec-tools.js";

// The workspace's OpenAPI tools (REQ-152–158): reads .arbor/openapi.json, reads and validates
// each spec with swagger-parser ($refs resolved, JSON or YAML, file or URL) in the background,
// offers one tool per operation to the tool registry (a ToolSource, like the MCP servers), and
// answers each spec's state for the settings. The credentials stay in the environment: the
// manager knows their variables' names, reads the values at each call, and redacts them from
// every result. The file is the workspace's: an entry is read only once a person trusted it
// (trust/), and an edit of the entry or its spec file asks again.
//
// What a spec can do, trusted or not, is bounded (docs/security.md, "What .arbor/openapi.json
// can do"): it is read only from files inside the workspace (never the data directory), a URL is
// fetched only when `allowRemote` says the entry may, calls go only where the network policy
// allows, a credential only to its configured host, and everything a spec's text becomes (tool
// names, descriptions, schemas, titles, errors) is redacted of the server's secrets.

/** How trust records name .arbor/openapi.json. */
export const OPENAPI_TRUST_FILE = ".arbor/openapi.json";

type Env = Readonly<Record<string, string | undefined>>;

export interface OpenApiManagerOptions {
  /** .arbor/openapi.json of the workspace (openApiConfigPath) */
  configPath: string;
  workspaceRoot: string;
  /**
   * the server's environment: where each `auth.env` is read, at each call, and the policy
   * (ARBOR_OPENAPI_ENV, ARBOR_OPENAPI_ALLOW_LOOPBACK)
   */
  env: Env;
  logger: Logger;
  /** redacted from results besides the credentials themselves (the server's other secrets) */
  secrets?: SecretSource;
  maxResponseBytes?: number;
  timeoutMs?: number;
  /** how long reading a spec from a URL may take (default 15 s) */
  specTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /**
   * the workspace's trust: a spec is read (and its tools offered) only once a person trusted its
   * entry and spec file as they are now; absent, every spec is (the caller's own file: tests)
   */
  trust?: WorkspaceTrust;
  /**
   * Whether an entry may fetch URLs: a spec given as a URL, and $refs to URLs. Default: an
   * entry `trust` says a person trusted may; without `trust`, none may.
   */
  allowRemote?: (entry: OpenApiEntry) => boolean;
  /** never read as a spec or a $ref even inside the workspace (the server's data directory) */
  hiddenPaths?: readonly string[];
  /** how host names are resolved for the network policy (tests) */
  lookup?: AddressLookup;
  /**
   * Called when a spec has been read and its tools are offered (the audit log's
   * openapi_config_loaded). Must not throw.
   */
  onSpecLoaded?: (spec: OpenApiSpecLoaded) => void;
}

/** A spec as it was loaded (OpenApiManagerOptions.onSpecLoaded). */
export interface OpenApiSpecLoaded {
  /** the entry's name as trust knows it (its `spec`, `spec (2)` for a second entry) */
  name: string;
  /** the definition's hash, when trust is in use */
  hash?: string;
  /** how many operations became tools */
  operations: number;
}

/** `untrusted`: no person has trusted the entry (and its spec file) as it is now: not read */
export type OpenApiSpecStatus = "loading" | "loaded" | "failed" | "untrusted";

/** One entry of the file, as GET /api/openapi/specs shows it. */
export interface OpenApiSpecInfo {
  /** its place in the file */
  index: number;
  spec: string;
  title?: string;
  version?: string;
  status: OpenApiSpecStatus;
  error?: string;
  /** operations skipped and parts not sent (no operationId, a form-only body) */
  warnings: string[];
  /** where calls go: base_url, else the spec's server (absent: neither gives an absolute URL) */
  base_url?: string;
  name_prefix?: string;
  /** the credential's variable and whether it is set; never its value */
  auth?: { type: "bearer" | "api_key" | "basic"; env: string; set: boolean };
  tools: Array<{ name: string; method: string; path: string; description: string }>;
}

interface LoadedSpec {
  entry: OpenApiEntry;
  /** what trust is given to (absent before the entry's definition was read) */
  definition?: ConfigDefinition;
  /** whether it was trusted when last looked at (absent: not looked at yet) */
  trusted?: boolean;
  status: OpenApiSpecStatus;
  error?: string;
  warnings: string[];
  title?: string;
  version?: string;
  operations: OpenApiOperation[];
  auth?: ResolvedAuth;
}

export class OpenApiManager implements ToolSource {
  readonly #options: OpenApiManagerOptions;
  #specs: LoadedSpec[] = [];
  #fileProblems: OpenApiConfigProblem[] = [];
  #invalid: OpenApiConfigProblem[] = [];
  #version = 0;
  #builtVersion = -1;
  #tools: AnyAgentTool[] = [];
  #loading: Promise<void> = Promise.resolve();
  readonly #policy: OpenApiConfigPolicy;

  constructor(options: OpenApiManagerOptions) {
    this.#options = options;
    this.#policy = openApiPolicyFromEnv(options.env);
    // trusting (here or on another instance) reads the spec; revoking takes its tools away
    options.trust?.onChange(() => void this.reviewTrust());
  }

  /** The entries of .arbor/openapi.json as they are now, for the trust prompt. */
  definitions(): ConfigDefinition[] {
    return this.#specs.flatMap((spec) => (spec.definition ? [spec.definition] : []));
  }

  /** Rereads each entry's definition (its spec file may have changed) and applies the trust. */
  reviewTrust(): Promise<void> {
    this.#loading = this.#loading.then(() => this.#applyTrust());
    return this.#loading;
  }

  /** Reads each entry's definition, then reads the trusted specs and unloads the others. */
  async #applyTrust(): Promise<void> {
    const loads: Promise<void>[] = [];
    const names = new Map<string, number>();
    for (const spec of this.#specs) {
      // two entries may read the same spec: the second is `spec (2)`, and so on
      const seen = (names.get(spec.entry.spec) ?? 0) + 1;
      names.set(spec.entry.spec, seen);
      const name = seen === 1 ? spec.entry.spec : `${spec.entry.spec} (${seen})`;
      spec.definition = await this.#definitionOf(spec.entry, name);
      const trust = this.#options.trust;
      const trusted = trust === undefined || trust.isTrusted(spec.definition);
      const was = spec.trusted;
      spec.trusted = trusted;
      if (!trusted) {
        if (was !== false) {
          spec.status = "untrusted";
          spec.operations = [];
          spec.warnings = [];
          delete spec.auth;
          spec.error = `${spec.entry.spec} of ${OPENAPI_TRUST_FILE} is not trusted: trust it in the session settings (or POST /api/workspace/trust) to read it and offer its tools`;
          this.#options.logger.warn("openapi spec waits for trust", { spec: spec.entry.spec });
          this.#changed();
        }
        continue;
      }
      if (was !== true) {
        spec.status = "loading";
        delete spec.error;
        this.#changed();
        loads.push(this.#load(spec));
      }
    }
    await Promise.all(loads);
  }

  /** The entry's definition: its fields and, for a file, the spec's bytes (an edit asks again). */
  async #definitionOf(entry: OpenApiEntry, name: string): Promise<ConfigDefinition> {
    let content = "";
    if (entry.source.kind === "file") {
      // read as the spec itself would be: inside the workspace only, never the data directory
      // (a spec that is refused hashes as empty, and fails to load once trusted)
      const options = this.#options;
      content = await readConfined(entry.source.path, {
        root: options.workspaceRoot,
        ...(options.hiddenPaths !== undefined ? { hiddenPaths: options.hiddenPaths } : {}),
        allowRemote: false,
        network: this.#policy.network,
        timeoutMs: 0,
      })
        .then((bytes) => bytes.toString("utf8"))
        .catch(() => "");
    }
    const credentialHost = (() => {
      try {
        return entry.baseUrl !== undefined ? new URL(entry.baseUrl).host : undefined;
      } catch {
        return undefined;
      }
    })();
    return {
      kind: "openapi_spec",
      file: OPENAPI_TRUST_FILE,
      name,
      hash: definitionHash(
        {
          spec: entry.spec,
          base_url: entry.baseUrl ?? null,
          auth: entry.auth ?? null,
          filter: entry.filter ?? null,
          name_prefix: entry.namePrefix ?? null,
        },
        content,
      ),
      runs: {
        spec: entry.spec,
        fetches: entry.source.kind === "url" ? [entry.source.url] : [],
        ...(entry.baseUrl !== undefined ? { base_url: entry.baseUrl } : {}),
        ...(entry.auth !== undefined
          ? {
              variables: [entry.auth.env],
              credential: {
                env: entry.auth.env,
                type: entry.auth.type,
                ...(credentialHost !== undefined ? { sent_to: credentialHost } : {}),
              },
            }
          : {}),
      },
    };
  }

  get configPath(): string {
    return this.#options.configPath;
  }

  /**
   * Reads the config file and starts reading the specs; resolves once the file is read (the
   * credentials' names are known then), not when the specs are (see `settled`).
   */
  async start(): Promise<void> {
    const { configPath, workspaceRoot, logger } = this.#options;
    const config = await loadOpenApiConfig(configPath, workspaceRoot, this.#policy);
    for (const problem of config.problems) {
      logger.error("openapi config problem", { file: config.path, ...problem });
    }
    this.#fileProblems = config.problems.filter((p) => p.index === undefined);
    this.#invalid = config.problems.filter((p) => p.index !== undefined);
    this.#specs = config.entries.map((entry) => ({
      entry,
      // nothing is read before its trust is known (#applyTrust)
      status: "loading",
      warnings: [],
      operations: [],
    }));
    this.#changed();
    this.#loading = this.#applyTrust();
  }

  /** Resolves when every spec is loaded or failed (tests; the app never waits for this). */
  settled(): Promise<void> {
    return this.#loading;
  }

  /** The variables holding credentials: withheld from tool processes, their values redacted. */
  credentialVariables(): string[] {
    return [
      ...new Set(this.#specs.flatMap((s) => (s.entry.auth ? [s.entry.auth.env] : []))),
    ].sort();
  }

  /** The credentials' values now set (redacted wherever tool output goes). */
  credentials(): string[] {
    return this.credentialVariables()
      .map((name) => this.#options.env[name]?.trim() ?? "")
      .filter((value) => value !== "");
  }

  async #load(spec: LoadedSpec): Promise<void> {
    const { entry } = spec;
    const options = this.#options;
    try {
      const loaded = await loadOpenApiDocument(
        entry.source.kind === "file" ? { file: entry.source.path } : { url: entry.source.url },
        {
          ...(options.specTimeoutMs !== undefined ? { timeoutMs: options.specTimeoutMs } : {}),
          ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
          root: options.workspaceRoot,
          ...(options.hiddenPaths !== undefined ? { hiddenPaths: options.hiddenPaths } : {}),
          // a URL is fetched for a definition a person trusted (never without a trust gate)
          allowRemote:
            options.allowRemote?.(entry) ?? (options.trust !== undefined && spec.trusted === true),
          network: this.#policy.network,
          ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
        },
      );
      const { document } = loaded;
      const { operations, warnings } = operationsOf(document, {
        ...(entry.filter !== undefined ? { filter: entry.filter } : {}),
        ...(entry.namePrefix !== undefined ? { namePrefix: entry.namePrefix } : {}),
        ...(entry.baseUrl !== undefined ? { baseUrl: entry.baseUrl } : {}),
        ...(entry.source.kind === "url" ? { documentUrl: entry.source.url } : {}),
      });
      // a spec's own servers are held to the rule base_url is held to when the file is read
      for (const url of new Set(operations.flatMap((o) => (o.baseUrl ? [o.baseUrl] : [])))) {
        const forbidden = forbiddenHost(url, this.#policy.network);
        if (forbidden !== undefined) throw new Error(`server URL ${url} refused: ${forbidden}`);
      }
      spec.operations = operations;
      spec.warnings = warnings;
      if (loaded.title !== undefined) spec.title = loaded.title;
      if (loaded.version !== undefined) spec.version = loaded.version;
      // the credential goes only to the host configured at load time: base_url, else the
      // spec's own server
      const boundTo =
        entry.baseUrl ??
        serverUrl(document.servers, entry.source.kind === "url" ? entry.source.url : undefined) ??
        operations.find((o) => o.baseUrl !== undefined)?.baseUrl;
      const auth = resolveAuth(entry.auth, document, boundTo);
      if (auth !== undefined) spec.auth = auth;
      spec.status = "loaded";
      this.#options.onSpecLoaded?.({
        name: spec.definition?.name ?? entry.spec,
        ...(spec.definition !== undefined ? { hash: spec.definition.hash } : {}),
        operations: operations.length,
      });
      if (operations.length > 0 && operations.every((o) => o.baseUrl === undefined)) {
        spec.warnings.push("the spec names no absolute server URL: set base_url, or calls fail");
      }
      for (const warning of warnings) {
        this.#options.logger.warn("openapi operation skipped", { spec: entry.spec, warning });
      }
      this.#options.logger.info("openapi spec loaded", {
        spec: entry.spec,
        tools: operations.length,
      });
    } catch (error) {
      spec.status = "failed";
      spec.operations = [];
      spec.error = error instanceof Error ? error.message : String(error);
      this.#options.logger.error("openapi spec failed", { spec: entry.spec, error: spec.error });
    }
    this.#changed();
  }

  #changed(): void {
    this.#version++;
  }

  // ---- ToolSource ----------------------------------------------------------------------------

  version(): number {
    return this.#version;
  }

  tools(): readonly AnyAgentTool[] {
    if (this.#builtVersion !== this.#version) this.#buildTools();
    return this.#tools;
  }

  /** The values redacted from results and from everything a spec's text becomes. */
  #secrets(): readonly string[] {
    const extra = this.#options.secrets;
    const base = extra === undefined ? [] : typeof extra === "function" ? extra() : extra;
    return [...this.credentials(), ...base].sort((a, b) => b.length - a.length);
  }

  #buildTools(): void {
    const secrets = (): readonly string[] => this.#secrets();
    const now = secrets();
    const seen = new Set<string>();
    this.#tools = [];
    for (const spec of this.#specs) {
      if (spec.status !== "loaded") continue;
      for (const operation of spec.operations) {
        // a later spec's operation with a name already taken is left out (first wins)
        if (seen.has(operation.toolName)) continue;
        // a name is sent as it is: one holding a secret is left out (specs() says so)
        if (redact(operation.toolName, now) !== operation.toolName) continue;
        seen.add(operation.toolName);
        this.#tools.push(withRedactedOutput(this.#tool(spec, operation, now), secrets));
      }
    }
    this.#builtVersion = this.#version;
  }

  #tool(spec: LoadedSpec, operation: OpenApiOperation, secrets: readonly string[]): AnyAgentTool {
    const options = this.#options;
    // the spec's text reaches the model as the tool's description and schema: redacted like
    // tool output (a spec is the workspace's, and may quote what it should not)
    const shown: OpenApiOperation = {
      ...operation,
      operationId: redact(operation.operationId, secrets),
      description: redact(operation.description, secrets),
      inputSchema: redactValue(operation.inputSchema, secrets),
    };
    const title = spec.title === undefined ? undefined : redact(spec.title, secrets);
    return operationTool(shown, {
      env: options.env,
      spec: spec.entry.spec,
      network: this.#policy.network,
      ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(spec.auth !== undefined ? { auth: spec.auth } : {}),
      ...(options.maxResponseBytes !== undefined
        ? { maxResponseBytes: options.maxResponseBytes }
        : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    });
  }

  // ---- the API's view ------------------------------------------------------------------------

  /** Every entry's state; all text from the specs redacted of the server's secrets. */
  specs(): OpenApiSpecInfo[] {
    const secrets = this.#secrets();
    const out: OpenApiSpecInfo[] = this.#specs.map((spec) => {
      const { entry } = spec;
      const baseUrl = entry.baseUrl ?? spec.operations.find((o) => o.baseUrl)?.baseUrl;
      return {
        index: entry.index,
        spec: entry.spec,
        ...(spec.title !== undefined ? { title: spec.title } : {}),
        ...(spec.version !== undefined ? { version: spec.version } : {}),
        status: spec.status,
        ...(spec.error !== undefined ? { error: spec.error } : {}),
        warnings: [
          ...spec.warnings,
          ...spec.operations
            .filter((o) => redact(o.toolName, secrets) !== o.toolName)
            .map((o) => `${o.method} ${o.path}: its tool name holds a secret value: skipped`),
        ],
        ...(baseUrl !== undefined ? { base_url: baseUrl } : {}),
        ...(entry.namePrefix !== undefined ? { name_prefix: entry.namePrefix } : {}),
        ...(entry.auth !== undefined
          ? {
              auth: {
                type: entry.auth.type,
                env: entry.auth.env,
                set: (this.#options.env[entry.auth.env]?.trim() ?? "") !== "",
              },
            }
          : {}),
        tools: spec.operations.map((o) => ({
          name: o.toolName,
          method: o.method,
          path: o.path,
          description: o.description,
        })),
      };
    });
    for (const problem of this.#invalid) {
      out.push({
        index: problem.index ?? -1,
        spec: problem.spec ?? "",
        status: "failed",
        error: `${problem.field}: ${problem.message}`,
        warnings: [],
        tools: [],
      });
    }
    return redactValue(
      out.sort((a, b) => a.index - b.index),
      secrets,
    );
  }

  /** Problems of the file as a whole (not JSON, not an array). */
  configErrors(): OpenApiConfigProblem[] {
    return [...this.#fileProblems];
  }
}
