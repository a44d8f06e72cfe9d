import { z } from "zod";
import type { ToolDefinition } from "../model/llm-config.js";
import type { ImageContent, TextContent, Usage } from "../model/llm-messages.js";
import type { ToolCallPreview } from "../model/message-types.js";

/** REQ-010: what a tool returns. `details` is structured metadata for UIs/logs (REQ-137). */
export interface ToolResult<TDetails = unknown> {
  content: Array<TextContent | ImageContent>;
  details?: TDetails;
  /** REQ-194: sub-agent tools name the child loop they ran */
  childLoopId?: string;
  /**
   * Model usage the tool itself spent (a sub-agent's child loop): a session adds it to its own
   * usage (it is stored on the tool_result row). Absent for tools that call no model.
   */
  usage?: Usage;
  /** the model that spent `usage` (prices it); default `details.model` */
  model?: string;
}

/**
 * Model usage a running tool has spent so far (a sub-agent's child loop): a running total, each
 * report replacing the last.
 */
export interface SpentUsage {
  usage: Usage;
  /** the model that spent it (prices it) */
  model?: string;
  /** the child loop that spent it */
  childLoopId?: string;
}

export type ToolErrorKind = "failed" | "notFound" | "invalidArgs" | "cancelled";

/**
 * REQ-010 / REQ-078–080. A tool signals failure by throwing a ToolError (any other thrown error is
 * treated as `failed` with its message). The loop turns it into a tool result with isError: true
 * so the model can correct itself; it never reaches the loop's caller.
 */
export class ToolError extends Error {
  readonly kind: ToolErrorKind;
  constructor(kind: ToolErrorKind, message: string) {
    super(message);
    this.name = "ToolError";
    this.kind = kind;
  }
  static failed(message: string): ToolError {
    return new ToolError("failed", message);
  }
  static invalidArgs(message: string): ToolError {
    return new ToolError("invalidArgs", message);
  }
  static notFound(toolName: string): ToolError {
    return new ToolError("notFound", `Tool ${toolName} not found`);
  }
  static cancelled(message = "Skipped due to queued user message."): ToolError {
    return new ToolError("cancelled", message);
  }
}

/**
 * Where a tool comes from: a built-in, a tool `tool` of the MCP server `server`, or the operation
 * `operation` (its operationId) of the OpenAPI spec `spec` (as .arbor/openapi.json names it).
 */
export type ToolOrigin =
  | { kind: "builtin" }
  | { kind: "mcp"; server: string; tool: string }
  | { kind: "openapi"; spec: string; operation: string };

/** REQ-009: what a running tool may use. */
export interface ToolContext {
  toolCallId: string;
  toolName: string;
  /** aborted when the run is aborted (a child of the run's signal, REQ-140) */
  signal: AbortSignal;
  /** the loop running this call: a child loop names it as its parent (REQ-195) */
  loopId?: string;
  /** REQ-142: emits ToolExecutionUpdate with a partial result */
  onUpdate: (partial: ToolResult) => void;
  /** REQ-143: emits ProgressMessage */
  onProgress: (text: string) => void;
  /**
   * A tool that spends model usage itself reports its running total here as it goes. A call that
   * is cancelled or fails keeps the last report on its result (so a session still counts what the
   * call spent); a call that ends normally states its total on its result (ToolResult.usage).
   */
  onUsage?: (spent: SpentUsage) => void;
}

/**
 * REQ-021: a tool. Parameters are a zod schema; the loop validates the model's arguments with it
 * (invalid → invalidArgs error result) and exports it to JSON Schema for the model.
 */
export interface AgentTool<TParams extends z.ZodType = z.ZodType, TDetails = unknown> {
  readonly name: string;
  /** human-readable name for UIs */
  readonly label: string;
  readonly description: string;
  readonly parameters: TParams;
  /** Permission category, for role/mode filtering by the Context Manager (plan mode keeps read-only tools). */
  readonly category?: "read" | "write" | "execute" | "network" | "other";
  /**
   * The JSON Schema the model receives, exactly as given, instead of the export of `parameters`:
   * tools whose schema comes from elsewhere (an MCP server's `inputSchema`) keep it unconverted;
   * `parameters` then only checks that the arguments are an object (the server validates them).
   */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  /** where the tool comes from, for tool cards and the registry's index (default: built-in) */
  readonly origin?: ToolOrigin;
  /**
   * What a call with these arguments will do, for its approval card (stored with the call as
   * `preview`): an OpenAPI call's request, an edit's diff against the file on disk (read only
   * inside the workspace). Asked once, when the call is stored, before any approval. Must not
   * throw, must never include a secret's value; undefined: nothing to add.
   */
  readonly describeCall?: (
    params: Record<string, unknown>,
  ) => ToolCallPreview | undefined | Promise<ToolCallPreview | undefined>;
  execute(params: z.output<TParams>, ctx: ToolContext): Promise<ToolResult<TDetails>>;
}

/** Any tool, whatever its parameter and details types. */
// biome-ignore lint/suspicious/noExplicitAny: the existential "some AgentTool" needs a variance escape.
export type AnyAgentTool = AgentTool<any, any>;

/** Helper that keeps the parameter type inferred from the schema. */
export function defineTool<TParams extends z.ZodType, TDetails = unknown>(
  tool: AgentTool<TParams, TDetails>,
): AgentTool<TParams, TDetails> {
  return tool;
}

const definitionCache = new WeakMap<AnyAgentTool, ToolDefinition>();
/** Tools are built per session around shared parameter schemas: export each schema once. */
const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonSchemaOf(parameters: z.ZodType): Record<string, unknown> {
  let schema = schemaCache.get(parameters);
  if (!schema) {
    schema = z.toJSONSchema(parameters, { target: "draft-7", io: "input" }) as Record<
      string,
      unknown
    >;
    delete schema.$schema;
    schemaCache.set(parameters, schema);
  }
  // shared by every tool with this schema, as a tool's definition is shared by every request
  // (a fold's `branch` and `return` tools are made per fold: a copy here was one per fold)
  return schema;
}

/**
 * Definitions by parameter schema, then by name and description: tools made again with the same
 * content (a fold's `branch` and `return`, made per fold) share one definition, so what is
 * cached per definition (its token count, optimization/request-tokens.ts) is not worked out
 * again for each. A definition is never changed once made (requests share it already).
 */
const sharedDefinitions = new WeakMap<z.ZodType, Map<string, ToolDefinition>>();
/** Names and descriptions kept per schema, at most: tools made with ever new descriptions. */
const SHARED_PER_SCHEMA = 64;

function sharedDefinition(tool: AnyAgentTool): ToolDefinition {
  let byText = sharedDefinitions.get(tool.parameters);
  if (!byText) {
    byText = new Map();
    sharedDefinitions.set(tool.parameters, byText);
  }
  const key = `${tool.name}\0${tool.description}`;
  let def = byText.get(key);
  if (!def) {
    def = {
      name: tool.name,
      description: tool.description,
      parameters: jsonSchemaOf(tool.parameters),
    };
    if (byText.size >= SHARED_PER_SCHEMA) {
      const oldest = byText.keys().next().value;
      if (oldest !== undefined) byText.delete(oldest);
    }
    byText.set(key, def);
  }
  return def;
}

/** REQ-016: the tool as the model sees it (parameters exported to JSON Schema once per schema). */
export function toolDefinition(tool: AnyAgentTool): ToolDefinition {
  let def = definitionCache.get(tool);
  if (!def) {
    def =
      tool.inputSchema !== undefined
        ? {
            name: tool.name,
            description: tool.description,
            parameters: structuredClone(tool.inputSchema as Record<string, unknown>),
          }
        : sharedDefinition(tool);
    definitionCache.set(tool, def);
  }
  return def;
}
