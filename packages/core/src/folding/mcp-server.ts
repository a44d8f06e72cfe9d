import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CodebaseIndex } from "../codebase/codebase-index.js";
import { withCodebaseTools } from "../codebase/codebase-tools.js";
import type { FoldingSettings } from "../model/session-config.js";
import { createDefaultTools } from "../tools/builtin/default-tools.js";
import type { SecretSource } from "../tools/redacting-tool.js";
import type { AnyAgentTool, ToolResult } from "../tools/tool.js";
import { FoldSession, type FoldSessionOptions } from "./fold-session.js";
import type { FoldMemorySource } from "./memory.js";
import { McpBranchParams, McpReturnParams } from "./params.js";

// Arbor as an MCP server for other agents (issue #13): `branch`, `return` and `fold_status`, so an
// agent such as Claude Code folds through Arbor as it does through contextd, plus Arbor's
// read-only tools (files, search, codebase), whose output is metered against the active fold.
// One McpServer and one FoldSession per MCP session; the transports (stdio, Streamable HTTP) are
// the caller's (mcp-http.ts serves the HTTP sessions).

const INSTRUCTIONS = `Arbor folds your context. Call \`branch\` with a one-line \`description\` (and a
\`budget\` in tokens) before a sub-task whose details you will not need afterwards; work it with
Arbor's tools; then call \`return\` with a short \`message\` of what you found: keep only that
message in mind afterwards. The output of Arbor's tools counts against the active fold's budget:
at 80% you are told how much is left; at 100% (or at its timeout) the fold is forced to return
and Arbor's tools refuse to run until you call \`return\`. Return messages are scrubbed of secrets.`;

/**
 * How the server reaches its MCP session's folds. In one process (stdio) they are one
 * FoldSession in memory; over HTTP they are kept in a store between requests (mcp-http.ts), so
 * each call reads them, changes them and writes them back.
 */
export interface FoldAccess {
  /**
   * Runs `change` on the session's folds and keeps what it changed. It may run more than once
   * (another request of the session changed them meanwhile): it must only read and change the
   * folds (remembering a lesson twice keeps it once).
   */
  use<T>(change: (folds: FoldSession) => T | Promise<T>): Promise<T>;
}

/** One FoldSession in memory (stdio, tests). */
export function foldsInMemory(folds: FoldSession): FoldAccess & { readonly folds: FoldSession } {
  return { folds, use: async (change) => change(folds) };
}

export interface FoldingMcpOptions {
  /** Arbor's tools to serve beside the folding tools; only the read-only built-ins are taken */
  tools: readonly AnyAgentTool[];
  /** the MCP session's folds; default: a new FoldSession in memory, forced when the server closes */
  folds?: FoldAccess;
  memories?: FoldMemorySource;
  settings?: Partial<FoldingSettings>;
  scrub?: (text: string) => string | Promise<string>;
  countTokens?: (text: string) => number;
  now?: () => number;
}

export interface FoldingMcpServer {
  server: McpServer;
  folds: FoldAccess;
}

const FOLDING_TOOLS: ReadonlySet<string> = new Set(["branch", "return", "fold_status"]);

/**
 * The tools an agent elsewhere may run through Arbor: built-in and read-only (plan mode's set).
 * Nothing that writes or runs commands is served, so nothing here waits on an approval.
 */
export function servedTools(tools: readonly AnyAgentTool[]): AnyAgentTool[] {
  return tools.filter(
    (tool) =>
      tool.category === "read" &&
      (tool.origin?.kind ?? "builtin") === "builtin" &&
      !FOLDING_TOOLS.has(tool.name),
  );
}

export interface ServedToolsOptions {
  workspaceRoot: string;
  /** the server's environment (tool processes get toolEnvironment of it; secrets redacted) */
  env?: Readonly<Record<string, string | undefined>>;
  secrets?: SecretSource;
  /** the workspace's codebase index: adds the codebase tools */
  index?: CodebaseIndex;
}

/**
 * The tools served over MCP, built as a session's are (createDefaultTools, the codebase tools,
 * output redacted of the server's secrets) and kept to the read-only ones.
 */
export function createServedTools(options: ServedToolsOptions): AnyAgentTool[] {
  const builtins = createDefaultTools({
    workspaceRoot: options.workspaceRoot,
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
  });
  const tools =
    options.index === undefined
      ? builtins
      : withCodebaseTools(builtins, {
          index: options.index,
          ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
        });
  return servedTools(tools);
}

/** What a FoldSession of these options is built with (a new one, or one restored from a store). */
export function foldSessionOptions(
  options: Omit<FoldingMcpOptions, "tools" | "folds">,
): FoldSessionOptions {
  return {
    ...(options.settings ? { config: options.settings } : {}),
    ...(options.memories ? { memories: options.memories } : {}),
    ...(options.scrub ? { scrub: options.scrub } : {}),
    ...(options.countTokens ? { countTokens: options.countTokens } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
}

/** A new MCP server over the session's folds (a new fold session unless `folds` is given). */
export function createFoldingMcpServer(options: FoldingMcpOptions): FoldingMcpServer {
  const own =
    options.folds === undefined
      ? foldsInMemory(new FoldSession(foldSessionOptions(options)))
      : undefined;
  const folds: FoldAccess = options.folds ?? (own as FoldAccess);
  const server = new McpServer(
    { name: "arbor", title: "Arbor", version: "0.1.0" },
    { instructions: INSTRUCTIONS.replace(/\n/g, " ") },
  );

  server.registerTool(
    "branch",
    {
      title: "Open a fold",
      description:
        "Start a fold: a sub-task worked in its own budget. Arbor's tool output counts against " +
        "it from now on; call `return` when done. Answers the fold's id, budget and any lessons " +
        "earlier folds kept for a similar description.",
      inputSchema: McpBranchParams,
    },
    async (params) => {
      const result = await folds.use((f) => f.branch(params));
      return result.ok ? answer(result.value) : failure(result.message);
    },
  );

  server.registerTool(
    "return",
    {
      title: "Return from a fold",
      description:
        "End the active fold (or `fold_id`, forcing the folds inside it) with a short message of " +
        "what it found; keep only that message afterwards. `remember: true` keeps it as a lesson.",
      inputSchema: McpReturnParams,
    },
    async (params) => {
      const result = await folds.use((f) => f.return(params));
      return result.ok ? answer(result.value) : failure(result.message);
    },
  );

  server.registerTool(
    "fold_status",
    {
      title: "Fold status",
      description:
        "The folds of this session: the active one, and each fold's budget, tokens used and left, and status.",
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    async () => answer(await folds.use((f) => f.status())),
  );

  for (const tool of servedTools(options.tools)) {
    server.registerTool(
      tool.name,
      {
        title: tool.label,
        description: tool.description,
        inputSchema: tool.parameters,
        annotations: { readOnlyHint: true },
      },
      async (params: unknown, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
        const admitted = await folds.use((f) => f.admit());
        if (!admitted.ok) return failure(admitted.message);
        let result: ToolResult;
        try {
          result = await tool.execute(params, {
            toolCallId: `mcp-${String(extra.requestId)}-${randomUUID().slice(0, 8)}`,
            toolName: tool.name,
            signal: extra.signal,
            onUpdate: () => undefined,
            onProgress: () => undefined,
          });
        } catch (error) {
          // a failure's text enters the agent's context too
          const message = error instanceof Error ? error.message : String(error);
          const metered = await folds.use((f) => f.meter(message));
          return failure(metered.notice === null ? message : `${message}\n\n${metered.notice}`);
        }
        const output = resultText(result);
        const metered = await folds.use((f) => f.meter(output));
        const content: CallToolResult["content"] = result.content.map((part) =>
          part.type === "text"
            ? { type: "text", text: part.text }
            : { type: "image", data: part.data, mimeType: part.mimeType },
        );
        if (metered.notice !== null) content.push({ type: "text", text: metered.notice });
        return { content };
      },
    );
  }

  // a session in memory ends with its server; one kept in a store ends when it is deleted
  if (own !== undefined) server.server.onclose = () => own.folds.closeAll("cancelled");
  return { server, folds };
}

function resultText(result: ToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

function answer(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
