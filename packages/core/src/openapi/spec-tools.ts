import SwaggerParser from "@apidevtools/swagger-parser";
import { type SecretSource, withRedactedOutput } from "../tools/redacting-tool.js";
import { jsonSchemaTool } from "../tools/registry.js";
import type { AgentTool, AnyAgentTool } from "../tools/tool.js";
import type { OpenApiAuthConfig, OpenApiFilter } from "./config.js";
import {
  callOperation,
  DEFAULT_OPENAPI_MAX_RESPONSE_BYTES,
  DEFAULT_OPENAPI_TIMEOUT_MS,
  describeOperationCall,
  type ResolvedAuth,
  resolveAuth,
} from "./http-call.js";
import {
  type AddressLookup,
  DEFAULT_NETWORK_POLICY,
  type OpenApiNetworkPolicy,
} from "./network-policy.js";
import { type OpenApiOperation, operationsOf } from "./operations.js";
import { type SpecReadPolicy, specResolvers } from "./spec-resolvers.js";

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

export interface LoadDocumentOptions {
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** files (the spec and its $refs) are read only inside this directory, symlinks resolved */
  root?: string;
  /** never read, even inside `root` (the server's data directory) */
  hiddenPaths?: readonly string[];
  /** a URL spec and $ref URLs are fetched only when true (default false) */
  allowRemote?: boolean;
  /** where URLs may point (default: no loopback, never link-local or metadata) */
  network?: OpenApiNetworkPolicy;
  lookup?: AddressLookup;
}

/**
 * Reads, resolves ($refs in the document, in other files or URLs, within the limits of
 * spec-resolvers.ts) and validates an OpenAPI 3.x document with swagger-parser. Throws with the
 * parser's reason when it is not valid, or not 3.x, or names a file or URL it may not read.
 */
export async function loadOpenApiDocument(
  source: OpenApiSpecSource,
  options: LoadDocumentOptions = {},
): Promise<OpenApiDocument> {
  const policy: SpecReadPolicy = {
    ...(options.root !== undefined ? { root: options.root } : {}),
    ...(options.hiddenPaths !== undefined ? { hiddenPaths: options.hiddenPaths } : {}),
    allowRemote: options.allowRemote ?? false,
    network: options.network ?? DEFAULT_NETWORK_POLICY,
    timeoutMs: options.timeoutMs ?? 15_000,
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
  };
  const inline = "text" in source ? { url: INLINE_SPEC_URL, text: source.text } : undefined;
  const path = "file" in source ? source.file : "url" in source ? source.url : INLINE_SPEC_URL;
  const failures: string[] = [];
  let document: Record<string, unknown>;
  try {
    document = (await SwaggerParser.validate(path, {
      resolve: specResolvers(policy, failures, inline),
    } as unknown as SwaggerParser.Options)) as unknown as Record<string, unknown>;
  } catch (error) {
    // the parser's message for a failed read is "Error reading file": give the reason
    if (failures.length > 0) throw new Error(failures.join("; "));
    throw error;
  }
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
  /** where calls may go (default: no loopback; never link-local or metadata addresses) */
  network?: OpenApiNetworkPolicy;
  lookup?: AddressLookup;
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
    describeCall: (params) => describeOperationCall(operation, params, options.auth),
    execute: (params, ctx) =>
      callOperation(operation, params, {
        env: options.env ?? process.env,
        ...(options.auth !== undefined ? { auth: options.auth } : {}),
        ...(options.network !== undefined ? { network: options.network } : {}),
        ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
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
  /** files (a file spec and its $refs) are read only inside this directory (default: anywhere) */
  root?: string;
  /** a URL spec and $ref URLs are fetched (default true: the caller named the spec itself) */
  allowRemote?: boolean;
  /** calls and spec fetches to loopback hosts (default false; link-local is always refused) */
  allowLoopback?: boolean;
}

/**
 * REQ-157/158: the tools of a spec, ready for `agent.withTools(...)` or a ToolRegistry. Their
 * results are redacted of the credential (read from `env` at each call) and of `secrets`.
 */
export async function openApiTools(
  source: OpenApiSpecSource,
  options: OpenApiToolsOptions = {},
): Promise<{ tools: AnyAgentTool[]; warnings: string[]; title?: string }> {
  const network: OpenApiNetworkPolicy = { allowLoopback: options.allowLoopback ?? false };
  const loaded = await loadOpenApiDocument(source, {
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.root !== undefined ? { root: options.root } : {}),
    allowRemote: options.allowRemote ?? true,
    network,
  });
  const { operations, warnings } = operationsOf(loaded.document, {
    ...(options.filter !== undefined ? { filter: options.filter } : {}),
    ...(options.namePrefix !== undefined ? { namePrefix: options.namePrefix } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...("url" in source ? { documentUrl: source.url } : {}),
  });
  const env = options.env ?? process.env;
  const auth = resolveAuth(
    options.auth,
    loaded.document,
    options.baseUrl ?? operations.find((o) => o.baseUrl !== undefined)?.baseUrl,
  );
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
        network,
      }),
      secrets,
    ),
  );
  return { tools, warnings, ...(loaded.title !== undefined ? { title: loaded.title } : {}) };
}
