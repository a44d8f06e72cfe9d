import SwaggerParser from "@apidevtools/swagger-parser";
import { type SecretSource, withRedactedOutput } from "../tools/redacting-tool.js";
import { jsonSchemaTool } from "../tools/registry.js";
import type { AgentTool, AnyAgentTool } from "../tools/tool.js";
import type { OpenApiAuthConfig, OpenApiFilter } from "./config.js";
import {
  callOperation,
  DEFAULT_OPENAPI_MAX_RESPONSE_BYTES,
  DEFAULT_OPENAPI_TIMEOUT_MS,
  type ResolvedAuth,
  resolveAuth,
} from "./http-call.js";
import { type OpenApiOperation, operationsOf } from "./operations.js";

// A spec → its tools, for the manager (the app's .arbor/openapi.json) and for library users
// (REQ-157/158: from a file, a URL or the text itself; `agent.withTools([...tools])`).

type Env = Readonly<Record<string, string | undefined>>;

/** Where a spec comes from: a file (JSON or YAML), an http(s) URL, or its text (JSON or YAML). */
export type OpenApiSpecSource = { file: string } | { url: string } | { text: string };

export interface OpenApiDocument {
  document: Record<string, unknown>;
  title?: string;
  version?: string;
}

/** The address a spec given as text is read from (a resolver of our own answers it). */
const INLINE_SPEC_URL = "https://arbor.invalid/inline-openapi-spec";

/**
 * Reads, resolves ($refs in the document, in other files or URLs) and validates an OpenAPI 3.x
 * document with swagger-parser. Throws with the parser's reason when it is not valid, or not 3.x.
 */
export async function loadOpenApiDocument(
  source: OpenApiSpecSource,
  options: { timeoutMs?: number; fetch?: typeof globalThis.fetch } = {},
): Promise<OpenApiDocument> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const named = "url" in source ? source.url : "text" in source ? INLINE_SPEC_URL : undefined;
  // the spec the user named is read even from a local address (an internal API's spec); $refs
  // inside it go through the parser's own resolver, which refuses local addresses
  const namedResolver = {
    order: 1,
    canRead: (file: { url: string }) => file.url === named,
    read: async (): Promise<string> => {
      if ("text" in source) return source.text;
      const url = named as string;
      const response = await fetchFn(url, {
        headers: { accept: "application/json, application/yaml, text/yaml, */*;q=0.5" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
      return response.text();
    },
  };
  const path = "file" in source ? source.file : (named as string);
  const document = (await SwaggerParser.validate(path, {
    resolve: {
      ...(named !== undefined ? { named: namedResolver } : {}),
      http: { timeout: timeoutMs },
    },
  } as SwaggerParser.Options)) as unknown as Record<string, unknown>;
  const version = typeof document.openapi === "string" ? document.openapi : undefined;
  if (version === undefined || !version.startsWith("3.")) {
    throw new Error(
      `not an OpenAPI 3.x document (${version ?? `swagger ${String(document.swagger ?? "?")}`})`,
    );
  }
  const info = (document.info ?? {}) as { title?: unknown; version?: unknown };
  return {
    document,
    ...(typeof info.title === "string" ? { title: info.title } : {}),
    ...(typeof info.version === "string" ? { version: info.version } : {}),
  };
}

export interface OperationToolOptions {
  /** where `auth.env` is read, at each call (default: process.env) */
  env?: Env;
  auth?: ResolvedAuth;
  /** the spec as named, for the tools' origin */
  spec: string;
  title?: string;
  maxResponseBytes?: number;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** The tool of one operation: `GET`/`HEAD` are read tools, the rest network tools. */
export function operationTool(
  operation: OpenApiOperation,
  options: OperationToolOptions,
): AnyAgentTool {
  const category: AgentTool["category"] =
    operation.method === "GET" || operation.method === "HEAD" ? "read" : "network";
  return jsonSchemaTool({
    name: operation.toolName,
    label: `${operation.operationId} (${options.title ?? options.spec})`,
    description: operation.description,
    inputSchema: operation.inputSchema,
    category,
    origin: { kind: "openapi", spec: options.spec, operation: operation.operationId },
    execute: (params, ctx) =>
      callOperation(operation, params, {
        env: options.env ?? process.env,
        ...(options.auth !== undefined ? { auth: options.auth } : {}),
        maxResponseBytes: options.maxResponseBytes ?? DEFAULT_OPENAPI_MAX_RESPONSE_BYTES,
        timeoutMs: options.timeoutMs ?? DEFAULT_OPENAPI_TIMEOUT_MS,
        ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
        signal: ctx.signal,
      }),
  });
}

export interface OpenApiToolsOptions {
  baseUrl?: string;
  auth?: OpenApiAuthConfig;
  filter?: OpenApiFilter;
  namePrefix?: string;
  /** where `auth.env` is read, at each call (default: process.env) */
  env?: Env;
  /** redacted from results besides the credential itself */
  secrets?: SecretSource;
  maxResponseBytes?: number;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * REQ-157/158: the tools of a spec, ready for `agent.withTools(...)` or a ToolRegistry. Their
 * results are redacted of the credential (read from `env` at each call) and of `secrets`.
 */
export async function openApiTools(
  source: OpenApiSpecSource,
  options: OpenApiToolsOptions = {},
): Promise<{ tools: AnyAgentTool[]; warnings: string[]; title?: string }> {
  const loaded = await loadOpenApiDocument(source, {
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  });
  const { operations, warnings } = operationsOf(loaded.document, {
    ...(options.filter !== undefined ? { filter: options.filter } : {}),
    ...(options.namePrefix !== undefined ? { namePrefix: options.namePrefix } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...("url" in source ? { documentUrl: source.url } : {}),
  });
  const env = options.env ?? process.env;
  const auth = resolveAuth(options.auth, loaded.document);
  const spec = "file" in source ? source.file : "url" in source ? source.url : "(inline)";
  const secrets = (): readonly string[] => {
    const credential = auth === undefined ? undefined : env[auth.env]?.trim();
    const extra = options.secrets;
    const base = extra === undefined ? [] : typeof extra === "function" ? extra() : extra;
    return [...(credential ? [credential] : []), ...base];
  };
  const tools = operations.map((operation) =>
    withRedactedOutput(
      operationTool(operation, {
        env,
        spec,
        ...(auth !== undefined ? { auth } : {}),
        ...(loaded.title !== undefined ? { title: loaded.title } : {}),
        ...(options.maxResponseBytes !== undefined
          ? { maxResponseBytes: options.maxResponseBytes }
          : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
      }),
      secrets,
    ),
  );
  return { tools, warnings, ...(loaded.title !== undefined ? { title: loaded.title } : {}) };
}
