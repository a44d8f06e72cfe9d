import type { OpenApiFilter } from "./config.js";
import { toJsonSchema } from "./json-schema.js";

// REQ-152/153/155/156: the operations of a dereferenced OpenAPI 3.x document, each described as
// one tool: its name, its parameters as one JSON Schema object (path, query and header parameters
// by name; a JSON request body as `body`), and what the HTTP call needs to place each argument.

type Json = Record<string, unknown>;

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export type ParameterLocation = "path" | "query" | "header";

export interface OperationParameter {
  /** the argument's key in the tool's parameters (the name, unless two locations share it) */
  key: string;
  /** the name on the wire */
  name: string;
  in: ParameterLocation;
  required: boolean;
  /** OpenAPI `style`/`explode` for arrays and objects (defaults: form + explode for the query) */
  style?: string;
  explode?: boolean;
}

export interface OpenApiOperation {
  toolName: string;
  operationId: string;
  /** upper case, as sent */
  method: string;
  /** the path template, `/pet/{petId}` */
  path: string;
  tags: string[];
  description: string;
  parameters: OperationParameter[];
  /** a JSON request body: its argument key (`body`, or `_request_body` when a parameter is named body) */
  body?: { key: string; required: boolean };
  /** the tool's parameters, as the model receives them */
  inputSchema: Json;
  /** where the path is appended: base_url, or the operation's, path's or document's server */
  baseUrl: string | undefined;
}

export interface OperationsResult {
  operations: OpenApiOperation[];
  /** skipped operations and other things the settings show (no operationId, form-only bodies) */
  warnings: string[];
}

export interface OperationOptions {
  filter?: OpenApiFilter;
  namePrefix?: string;
  /** `base_url` of the entry: replaces every servers URL of the document */
  baseUrl?: string;
  /** where the document was read from, to resolve a relative servers URL (URL specs only) */
  documentUrl?: string;
}

/** Tool names the providers accept: letters, digits, `_` and `-`, at most 64 characters. */
export function toolNameFor(operationId: string, prefix: string | undefined): string {
  const name = prefix === undefined ? operationId : `${prefix}__${operationId}`;
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** REQ-155: no filter or an empty one includes everything; otherwise any match includes. */
export function matchesFilter(
  filter: OpenApiFilter | undefined,
  operation: { operationId: string; tags: readonly string[]; path: string },
): boolean {
  if (filter === undefined) return true;
  const { operationIds, tags, pathPrefixes } = filter;
  if (operationIds === undefined && tags === undefined && pathPrefixes === undefined) return true;
  return (
    (operationIds?.includes(operation.operationId) ?? false) ||
    (tags?.some((t) => operation.tags.includes(t)) ?? false) ||
    (pathPrefixes?.some((p) => operation.path.startsWith(p)) ?? false)
  );
}

export function operationsOf(document: unknown, options: OperationOptions = {}): OperationsResult {
  const operations: OpenApiOperation[] = [];
  const warnings: string[] = [];
  if (!isObject(document) || !isObject(document.paths)) {
    return { operations, warnings: ["the document has no paths"] };
  }
  const documentServer = serverUrl(document.servers, options.documentUrl);
  const names = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
    const pathServer = serverUrl(item.servers, options.documentUrl);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const operationId = operation.operationId;
      if (typeof operationId !== "string" || operationId === "") {
        warnings.push(`${where} has no operationId: skipped`);
        continue;
      }
      const tags = Array.isArray(operation.tags)
        ? operation.tags.filter((t): t is string => typeof t === "string")
        : [];
      if (!matchesFilter(options.filter, { operationId, tags, path })) continue;
      const toolName = toolNameFor(operationId, options.namePrefix);
      if (names.has(toolName)) {
        warnings.push(`${where}: the tool name ${toolName} is taken by another operation: skipped`);
        continue;
      }
      const built = describe(operation, pathParameters, where, warnings);
      if (built === undefined) continue;
      names.add(toolName);
      operations.push({
        toolName,
        operationId,
        method: method.toUpperCase(),
        path,
        tags,
        description: descriptionOf(operation, method, path),
        parameters: built.parameters,
        ...(built.body !== undefined ? { body: built.body } : {}),
        inputSchema: built.inputSchema,
        baseUrl:
          options.baseUrl ??
          serverUrl(operation.servers, options.documentUrl) ??
          pathServer ??
          documentServer,
      });
    }
  }
  return { operations, warnings };
}

function describe(
  operation: Json,
  pathParameters: unknown[],
  where: string,
  warnings: string[],
):
  | {
      parameters: OperationParameter[];
      body?: { key: string; required: boolean };
      inputSchema: Json;
    }
  | undefined {
  // operation-level parameters override path-level ones of the same name and location
  const byKey = new Map<string, Json>();
  for (const p of [
    ...pathParameters,
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ]) {
    if (isObject(p) && typeof p.name === "string" && typeof p.in === "string") {
      byKey.set(`${p.in}\0${p.name}`, p);
    }
  }
  const parameters: OperationParameter[] = [];
  const properties: Json = {};
  const required: string[] = [];
  for (const p of byKey.values()) {
    const location = p.in as string;
    // REQ-153: cookies are not sent (the model has no cookies to give)
    if (location === "cookie") continue;
    if (location !== "path" && location !== "query" && location !== "header") continue;
    const name = p.name as string;
    const key = name in properties ? `${location}_${name}` : name;
    const schema = toJsonSchema(isObject(p.schema) ? p.schema : jsonContentSchema(p.content));
    if (
      typeof p.description === "string" &&
      p.description.trim() !== "" &&
      schema.description === undefined
    ) {
      schema.description = p.description.trim();
    }
    properties[key] = schema;
    const isRequired = location === "path" || p.required === true;
    if (isRequired) required.push(key);
    parameters.push({
      key,
      name,
      in: location,
      required: isRequired,
      ...(typeof p.style === "string" ? { style: p.style } : {}),
      ...(typeof p.explode === "boolean" ? { explode: p.explode } : {}),
    });
  }
  let body: { key: string; required: boolean } | undefined;
  const requestBody = operation.requestBody;
  if (isObject(requestBody)) {
    const content = isObject(requestBody.content) ? requestBody.content : {};
    const jsonType = Object.keys(content).find(isJsonMediaType);
    const bodyRequired = requestBody.required === true;
    if (jsonType === undefined) {
      const types = Object.keys(content).join(", ") || "none";
      if (bodyRequired) {
        warnings.push(`${where} needs a request body of ${types} (only JSON is sent): skipped`);
        return undefined;
      }
      warnings.push(`${where}: its optional ${types} request body is not sent (only JSON is)`);
    } else {
      const key = "body" in properties ? "_request_body" : "body";
      const media = content[jsonType];
      const schema = toJsonSchema(isObject(media) ? media.schema : undefined);
      if (typeof requestBody.description === "string" && schema.description === undefined) {
        schema.description = requestBody.description;
      }
      properties[key] = schema;
      if (bodyRequired) required.push(key);
      body = { key, required: bodyRequired };
    }
  }
  const inputSchema: Json = { type: "object", properties };
  if (required.length > 0) inputSchema.required = required;
  return { parameters, ...(body !== undefined ? { body } : {}), inputSchema };
}

function isJsonMediaType(type: string): boolean {
  const base = type.split(";")[0]?.trim().toLowerCase() ?? "";
  return base === "application/json" || /^application\/[a-z0-9.+-]*\+json$/.test(base);
}

function jsonContentSchema(content: unknown): unknown {
  if (!isObject(content)) return undefined;
  const type = Object.keys(content).find(isJsonMediaType) ?? Object.keys(content)[0];
  const media = type === undefined ? undefined : content[type];
  return isObject(media) ? media.schema : undefined;
}

/** What the model reads: the summary, the description, and the method and path. */
function descriptionOf(operation: Json, method: string, path: string): string {
  const parts = [operation.summary, operation.description]
    .filter((s): s is string => typeof s === "string" && s.trim() !== "")
    .map((s) => s.trim());
  const unique = parts.filter((s, i) => parts.indexOf(s) === i);
  const text = unique.join("\n\n").slice(0, 1_000);
  const line = `${method.toUpperCase()} ${path}`;
  return text === "" ? line : `${text}\n\n${line}`;
}

/**
 * The first server's URL with its variables at their defaults; a relative one resolved against
 * the document's URL (a file spec's relative server has no host: undefined, base_url needed).
 */
export function serverUrl(servers: unknown, documentUrl: string | undefined): string | undefined {
  if (!Array.isArray(servers) || !isObject(servers[0]) || typeof servers[0].url !== "string") {
    return undefined;
  }
  const server = servers[0];
  const variables = isObject(server.variables) ? server.variables : {};
  const url = (server.url as string).replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable.default === "string" ? variable.default : whole;
  });
  try {
    return new URL(url, documentUrl).toString().replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
