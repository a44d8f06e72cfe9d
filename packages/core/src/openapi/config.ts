import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { TOOL_ENV_NEVER } from "../tools/tool-env.js";
import {
  forbiddenHost,
  networkPolicyFromEnv,
  type OpenApiNetworkPolicy,
} from "./network-policy.js";

// <workspace>/.arbor/openapi.json: the OpenAPI specs whose operations become tools.
//
//   [{ "spec": "apis/petstore.yaml" | "https://…/openapi.json",
//      "base_url": "https://api.example.com/v2",            (replaces the spec's servers URL)
//      "auth": { "type": "bearer" | "api_key" | "basic", "env": "VAR",
//                "in": "header" | "query", "name": "X-API-Key" },   (in/name: api_key only)
//      "filter": { "operation_ids": [...], "tags": [...], "path_prefixes": [...] },
//      "name_prefix": "pets" }]
//
// The credential is the value of the environment variable `auth.env`, read when a call is made:
// never written to the file, the store, a log line, a tool result or a tool process. A file that
// does not parse is one problem; an invalid entry is a problem naming its field (`[2].auth.env`),
// and the other entries still load.
//
// What an entry may name (docs/openapi.md, "What a spec may reach"): a spec file inside the
// workspace; `auth.env` only a variable listed in ARBOR_OPENAPI_ENV, and never Arbor's own
// credentials, a model provider's keys or DATABASE_URL even when listed; base_url and spec URLs
// not on link-local or metadata addresses, nor on loopback unless ARBOR_OPENAPI_ALLOW_LOOPBACK=1.

type Env = Readonly<Record<string, string | undefined>>;

/** What the server's environment allows an entry (ARBOR_OPENAPI_ENV, ARBOR_OPENAPI_ALLOW_LOOPBACK). */
export interface OpenApiConfigPolicy {
  /** ARBOR_OPENAPI_ENV: the variables an `auth.env` may name */
  allowedEnv: readonly string[];
  network: OpenApiNetworkPolicy;
}

export function openApiPolicyFromEnv(env: Env): OpenApiConfigPolicy {
  return {
    allowedEnv: (env.ARBOR_OPENAPI_ENV ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
    network: networkPolicyFromEnv(env),
  };
}

/** Prefixes of variables an `auth.env` may never name, even when ARBOR_OPENAPI_ENV lists them. */
const NEVER_PREFIXES = ["ARBOR_", "ANTHROPIC_", "OPENAI_", "GOOGLE_", "AZURE_", "AWS_", "OTEL_"];

/**
 * Why `name` may never hold an OpenAPI credential: Arbor's own tokens (ARBOR_*), the model
 * providers' keys (every name tool processes never get, and their providers' prefixes) and
 * DATABASE_URL. Undefined when it may.
 */
export function forbiddenCredentialVariable(name: string): string | undefined {
  if (TOOL_ENV_NEVER.includes(name) || name === "DATABASE_URL" || name.endsWith("_DATABASE_URL")) {
    return `${name} is one of Arbor's own credentials or a model provider's key: it is never sent to an API`;
  }
  const prefix = NEVER_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) {
    return `${prefix}* variables are Arbor's own settings or a model provider's: never sent to an API`;
  }
  return undefined;
}

export const OPENAPI_CONFIG_FILE = join(".arbor", "openapi.json");

export type OpenApiAuthConfig =
  | { type: "bearer"; env: string }
  | { type: "basic"; env: string }
  /** `in` and `name` absent: taken from the spec's first apiKey security scheme (else header X-API-Key) */
  | { type: "api_key"; env: string; in?: "header" | "query"; name?: string };

/** REQ-155: an operation is included when it matches any listed id, tag or path prefix. */
export interface OpenApiFilter {
  operationIds?: string[];
  tags?: string[];
  pathPrefixes?: string[];
}

export interface OpenApiEntry {
  /** the entry's place in the file, `[0]`… (the name problems and the settings use) */
  index: number;
  /** as written: a path (relative to the workspace) or an http(s) URL */
  spec: string;
  /** where the spec is read from: an absolute path or the URL */
  source: { kind: "file"; path: string } | { kind: "url"; url: string };
  baseUrl?: string;
  auth?: OpenApiAuthConfig;
  filter?: OpenApiFilter;
  namePrefix?: string;
}

export interface OpenApiConfigProblem {
  /** the JSON path of the wrong value: `(file)`, `[1]`, `[1].auth.env` */
  field: string;
  message: string;
  /** the entry it concerns (absent: the file as a whole) */
  index?: number;
  /** that entry's `spec`, when it has one */
  spec?: string;
}

export interface OpenApiConfig {
  path: string;
  entries: OpenApiEntry[];
  problems: OpenApiConfigProblem[];
}

export function openApiConfigPath(workspaceRoot: string): string {
  return join(workspaceRoot, OPENAPI_CONFIG_FILE);
}

/** Reads the file; an absent file gives no entries and no problems. */
export async function loadOpenApiConfig(
  path: string,
  workspaceRoot: string,
  policy: OpenApiConfigPolicy = openApiPolicyFromEnv({}),
): Promise<OpenApiConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { path, entries: [], problems: [] };
    return {
      path,
      entries: [],
      problems: [{ field: "(file)", message: `cannot read ${path}: ${(error as Error).message}` }],
    };
  }
  return { path, ...parseOpenApiConfig(text, workspaceRoot, policy) };
}

/** `policy` default: nothing allowed (no `auth.env`, no loopback). */
export function parseOpenApiConfig(
  text: string,
  workspaceRoot: string,
  policy: OpenApiConfigPolicy = openApiPolicyFromEnv({}),
): { entries: OpenApiEntry[]; problems: OpenApiConfigProblem[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      entries: [],
      problems: [{ field: "(file)", message: `not valid JSON: ${(error as Error).message}` }],
    };
  }
  if (!Array.isArray(json)) {
    return { entries: [], problems: [{ field: "(file)", message: "expected an array of specs" }] };
  }
  const entries: OpenApiEntry[] = [];
  const problems: OpenApiConfigProblem[] = [];
  json.forEach((item, index) => {
    try {
      entries.push(parseEntry(item, index, workspaceRoot, policy));
    } catch (error) {
      if (!(error instanceof EntryError)) throw error;
      const spec = isObject(item) && typeof item.spec === "string" ? item.spec : undefined;
      problems.push({
        index,
        field: error.field,
        message: error.message,
        ...(spec !== undefined ? { spec } : {}),
      });
    }
  });
  return { entries, problems };
}

class EntryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Names of environment variables: what a shell accepts. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function parseEntry(
  item: unknown,
  index: number,
  workspaceRoot: string,
  policy: OpenApiConfigPolicy,
): OpenApiEntry {
  const at = (key: string) => `[${index}]${key === "" ? "" : `.${key}`}`;
  if (!isObject(item)) throw new EntryError(at(""), "expected an object with a `spec`");
  for (const key of Object.keys(item)) {
    if (!["spec", "base_url", "auth", "filter", "name_prefix"].includes(key)) {
      throw new EntryError(at(key), "unknown field (spec, base_url, auth, filter, name_prefix)");
    }
  }
  const spec = item.spec;
  if (typeof spec !== "string" || spec.trim() === "") {
    throw new EntryError(at("spec"), "expected a file path or an http(s) URL");
  }
  const source: OpenApiEntry["source"] = /^[a-z][a-z0-9+.-]*:\/\//i.test(spec)
    ? { kind: "url", url: checkedUrl(spec, at("spec"), policy) }
    : { kind: "file", path: workspaceFile(spec, workspaceRoot, at("spec")) };
  const entry: OpenApiEntry = { index, spec, source };
  if (item.base_url !== undefined) {
    if (typeof item.base_url !== "string") throw new EntryError(at("base_url"), "expected a URL");
    entry.baseUrl = checkedUrl(item.base_url, at("base_url"), policy);
  }
  if (item.auth !== undefined) entry.auth = parseAuth(item.auth, at, policy);
  if (item.filter !== undefined) entry.filter = parseFilter(item.filter, at);
  if (item.name_prefix !== undefined) {
    if (typeof item.name_prefix !== "string" || !/^[A-Za-z0-9_-]{1,32}$/.test(item.name_prefix)) {
      throw new EntryError(at("name_prefix"), "expected 1–32 letters, digits, _ or -");
    }
    entry.namePrefix = item.name_prefix;
  }
  return entry;
}

/** A spec path inside the workspace (symlinks are checked when it is read: spec-tools.ts). */
function workspaceFile(spec: string, workspaceRoot: string, field: string): string {
  const path = isAbsolute(spec) ? resolve(spec) : resolve(workspaceRoot, spec);
  if (!isInside(resolve(workspaceRoot), path)) {
    throw new EntryError(field, `a spec file must be inside the workspace: ${spec} is not`);
  }
  return path;
}

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function parseAuth(
  value: unknown,
  at: (key: string) => string,
  policy: OpenApiConfigPolicy,
): OpenApiAuthConfig {
  if (!isObject(value)) throw new EntryError(at("auth"), "expected an object with type and env");
  const { type, env } = value;
  if (type !== "bearer" && type !== "api_key" && type !== "basic") {
    throw new EntryError(at("auth.type"), 'expected "bearer", "api_key" or "basic"');
  }
  if (typeof env !== "string" || !ENV_NAME.test(env)) {
    throw new EntryError(
      at("auth.env"),
      "expected the name of an environment variable (the credential itself is never written here)",
    );
  }
  const never = forbiddenCredentialVariable(env);
  if (never !== undefined) throw new EntryError(at("auth.env"), never);
  if (!policy.allowedEnv.includes(env)) {
    throw new EntryError(
      at("auth.env"),
      `${env} is not allowed: add it to ARBOR_OPENAPI_ENV (comma-separated) in the server's environment to let OpenAPI calls send it`,
    );
  }
  if (type !== "api_key") {
    for (const key of ["in", "name"]) {
      if (value[key] !== undefined) {
        throw new EntryError(at(`auth.${key}`), `only an api_key auth has \`${key}\``);
      }
    }
    return { type, env };
  }
  const auth: OpenApiAuthConfig = { type, env };
  if (value.in !== undefined) {
    if (value.in !== "header" && value.in !== "query") {
      throw new EntryError(at("auth.in"), 'expected "header" or "query"');
    }
    auth.in = value.in;
  }
  if (value.name !== undefined) {
    if (typeof value.name !== "string" || value.name.trim() === "") {
      throw new EntryError(at("auth.name"), "expected the header or query parameter's name");
    }
    auth.name = value.name;
  }
  return auth;
}

function parseFilter(value: unknown, at: (key: string) => string): OpenApiFilter {
  if (!isObject(value)) {
    throw new EntryError(at("filter"), "expected an object: operation_ids, tags, path_prefixes");
  }
  const filter: OpenApiFilter = {};
  const keys = {
    operation_ids: "operationIds",
    tags: "tags",
    path_prefixes: "pathPrefixes",
  } as const;
  for (const key of Object.keys(value)) {
    if (!(key in keys)) {
      throw new EntryError(
        at(`filter.${key}`),
        "unknown filter (operation_ids, tags, path_prefixes)",
      );
    }
    const list = value[key];
    if (!Array.isArray(list) || list.some((v) => typeof v !== "string" || v === "")) {
      throw new EntryError(at(`filter.${key}`), "expected an array of non-empty strings");
    }
    filter[keys[key as keyof typeof keys]] = list as string[];
  }
  return filter;
}

function checkedUrl(value: string, field: string, policy: OpenApiConfigPolicy): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EntryError(field, `not a URL: ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EntryError(field, "expected an http or https URL");
  }
  if (url.username !== "" || url.password !== "") {
    throw new EntryError(field, "no credentials in URLs: name an environment variable in `auth`");
  }
  const forbidden = forbiddenHost(value, policy.network);
  if (forbidden !== undefined) throw new EntryError(field, `refused: ${forbidden}`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
