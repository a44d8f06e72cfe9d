import { type SecretSource, withRedactedOutput } from "../tools/redacting-tool.js";
import type { AnyAgentTool, ToolContext, ToolResult } from "../tools/tool.js";
import type { CodebaseIndex } from "./codebase-index.js";
import { createFindDefinitionTool } from "./definition-tool.js";
import { createProjectOverviewTool } from "./overview-tool.js";
import { createFindReferencesTool } from "./references-tool.js";
import { createCodebaseSearchTool } from "./search-tool.js";

export interface CodebaseToolsOptions {
  index: CodebaseIndex;
  /** characters of output each tool gives the model at most (default 12 000) */
  maxOutputChars?: number;
}

/** The four read-only codebase tools over one workspace's index. */
export function createCodebaseTools(options: CodebaseToolsOptions): AnyAgentTool[] {
  return [
    createCodebaseSearchTool(options),
    createFindDefinitionTool(options),
    createFindReferencesTool(options),
    createProjectOverviewTool(options),
  ];
}

/**
 * A file tool (write_file, edit_file) that tells the index which file it wrote, so the next
 * codebase tool call sees the change without waiting for the watcher.
 */
export function withIndexUpdates<T extends AnyAgentTool>(tool: T, index: CodebaseIndex): T {
  const wrapped: AnyAgentTool = {
    name: tool.name,
    label: tool.label,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.category !== undefined ? { category: tool.category } : {}),
    // the approval card's diff (issue #27) is the wrapped tool's
    ...(tool.describeCall !== undefined ? { describeCall: tool.describeCall } : {}),
    async execute(params: unknown, ctx: ToolContext): Promise<ToolResult> {
      try {
        return await tool.execute(params, ctx);
      } finally {
        // also after a failure: a partial write is a change too (the index re-reads, finds none)
        const written = (params as { path?: unknown }).path;
        if (typeof written === "string") index.changed([written]);
      }
    },
  };
  return wrapped as T;
}

/** Tools that write files: what they wrote is re-read by the index at once. */
const WRITING_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);

/**
 * A tool list (the built-in tools of createDefaultTools) with the codebase tools added after it:
 * write_file and edit_file report what they wrote to the index, and the four codebase tools'
 * output is redacted of `secrets` like every built-in tool's (their snippets are file content).
 */
export function withCodebaseTools(
  tools: readonly AnyAgentTool[],
  options: CodebaseToolsOptions & { secrets?: SecretSource },
): AnyAgentTool[] {
  const { index, secrets } = options;
  const added = createCodebaseTools(options).map((tool) =>
    secrets !== undefined ? withRedactedOutput(tool, secrets) : tool,
  );
  return [
    ...tools.map((tool) => (WRITING_TOOLS.has(tool.name) ? withIndexUpdates(tool, index) : tool)),
    ...added,
  ];
}
