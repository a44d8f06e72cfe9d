import { z } from "zod";
import type { AgentTool, AnyAgentTool, ToolContext, ToolOrigin, ToolResult } from "./tool.js";

// The one registry of a session's tools: its built-ins plus the tools of live sources (the MCP
// servers' tools, which come and go while the app runs). Every consumer — the model's tool list,
// the mode filter, the approval gate, the loop's dispatch — reads `list()`; lookups by name go
// through an index rebuilt only when a source changes.

/** Tools that change over time (an MCP manager). `version` grows whenever `tools()` changes. */
export interface ToolSource {
  tools(): readonly AnyAgentTool[];
  version(): number;
}

export class ToolRegistry {
  readonly #builtins: readonly AnyAgentTool[];
  readonly #sources: readonly ToolSource[];
  #versions: number[] = [];
  #list: readonly AnyAgentTool[] = [];
  #byName = new Map<string, AnyAgentTool>();

  constructor(builtins: readonly AnyAgentTool[], sources: readonly ToolSource[] = []) {
    this.#builtins = builtins;
    this.#sources = sources;
    this.#rebuild();
  }

  /** A registry of the same built-ins and sources, with `more` sources after them. */
  withSources(more: readonly ToolSource[]): ToolRegistry {
    return new ToolRegistry(this.#builtins, [...this.#sources, ...more]);
  }

  /** Built-ins first, then each source's tools; a name already taken is skipped (first wins). */
  list(): readonly AnyAgentTool[] {
    if (this.#stale()) this.#rebuild();
    return this.#list;
  }

  get(name: string): AnyAgentTool | undefined {
    if (this.#stale()) this.#rebuild();
    return this.#byName.get(name);
  }

  /** Where the tool named `name` comes from; undefined for an unknown name. */
  origin(name: string): ToolOrigin | undefined {
    const tool = this.get(name);
    return tool === undefined ? undefined : (tool.origin ?? { kind: "builtin" });
  }

  #stale(): boolean {
    for (let i = 0; i < this.#sources.length; i++) {
      if (this.#sources[i]?.version() !== this.#versions[i]) return true;
    }
    return false;
  }

  #rebuild(): void {
    this.#versions = this.#sources.map((source) => source.version());
    const byName = new Map<string, AnyAgentTool>();
    for (const tool of [...this.#builtins, ...this.#sources.flatMap((s) => s.tools())]) {
      if (!byName.has(tool.name)) byName.set(tool.name, tool);
    }
    this.#byName = byName;
    this.#list = [...byName.values()];
  }
}

/** The registry behind `tools`: itself when it is one, a fixed registry of the array otherwise. */
export function toToolRegistry(tools: readonly AnyAgentTool[] | ToolRegistry): ToolRegistry {
  return tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
}

/** Arguments of a tool described by JSON Schema: an object, checked by whoever runs the tool. */
const jsonArguments = z.record(z.string(), z.unknown());

export interface JsonSchemaToolSpec {
  name: string;
  label: string;
  description: string;
  /** the JSON Schema the model receives, unchanged */
  inputSchema: Readonly<Record<string, unknown>>;
  category?: AgentTool["category"];
  origin?: ToolOrigin;
  describeCall?: AgentTool["describeCall"];
  execute(params: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool whose parameters are raw JSON Schema (the registry takes zod tools and these alike). */
export function jsonSchemaTool(spec: JsonSchemaToolSpec): AnyAgentTool {
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: jsonArguments,
    inputSchema: spec.inputSchema,
    ...(spec.category !== undefined ? { category: spec.category } : {}),
    ...(spec.origin !== undefined ? { origin: spec.origin } : {}),
    ...(spec.describeCall !== undefined ? { describeCall: spec.describeCall } : {}),
    execute: spec.execute,
  };
}
