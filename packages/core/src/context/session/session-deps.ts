import { randomUUID } from "node:crypto";
import type { ExecutionLimits, Logger, RetryConfig } from "../../agent/types.js";
import { DEFAULT_EXECUTION_LIMITS, DEFAULT_RETRY_CONFIG } from "../../agent/types.js";
import type { CommandHooks } from "../../command-hooks/command-hooks.js";
import type { FoldMemorySource } from "../../folding/memory.js";
import type { StreamProvider } from "../../llm/provider.js";
import type { TokenBudget } from "../../llm/token-budget.js";
import type { McpResourceReader } from "../../mcp/resource-message.js";
import type { ModelConfig } from "../../model/llm-config.js";
import type { AgentRole, SessionConfig } from "../../model/session-config.js";
import type { LoopRecorder } from "../../recording/recorder.js";
import type { SkillCatalog } from "../../skills/switches.js";
import type { SessionCoordinator } from "../../store/coordination.js";
import type { SessionStore } from "../../store/types.js";
import type { AgentCatalog } from "../../subagents/enabled-agents.js";
import { createDefaultTools } from "../../tools/builtin/default-tools.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { secretsFromEnv } from "../../tools/secrets.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import type { Summarizer } from "../optimization/summarizer.js";
import { createProcessorRegistry, type ProcessorRegistry } from "../processor-registry.js";

// What a session needs from its host. Everything but the store, provider and model has a default.

export interface SessionDeps {
  store: SessionStore;
  provider: StreamProvider;
  /**
   * the model when the session config names none; a function is asked at each use, so a key an
   * admin adds in Settings reaches the next model request without a restart
   */
  model: ModelConfig | (() => ModelConfig);
  /**
   * the session's tools, or a registry of built-ins and MCP tools; default: the built-in tools in
   * config.workspace (none without one)
   */
  tools?: (config: SessionConfig) => readonly AnyAgentTool[] | ToolRegistry;
  /**
   * Where a session whose config names another protocol than `model`'s takes that provider's key
   * and base URL from (llm/env-config.ts sessionModelConfig); default process.env. A function is
   * asked at each use, as `model` is.
   */
  modelEnv?: ModelEnv | (() => ModelEnv);
  /**
   * the skills a session's model may load (SKILL.md folders: the system prompt lists them, the
   * `skill` tool loads them); default none. Return the same library for the same config: the
   * session re-reads it before each turn and its tools follow its version
   */
  skills?: (config: SessionConfig) => SkillCatalog | undefined;
  /** the agent files whose sub-agents become the session's tools; default none */
  agents?: (config: SessionConfig) => AgentCatalog | undefined;
  /** reads MCP resources for `mcp_resource` payloads (the McpManager); absent: they are refused */
  mcp?: McpResourceReader;
  /** the role whose tools the model gets in act mode (default actor: every tool) */
  role?: AgentRole;
  /**
   * how sessions get their titles: "model" (default) the first message's, then the model's
   * after the first answer (session-title.ts); "first_message" the first message's only
   */
  titles?: "model" | "first_message";
  logger?: Logger;
  /**
   * who writes optimization's summaries: "model" (default) the session's model, or its config's
   * `optimization.summary_model`, falling back to the extractive summarizer for the offline model
   * and on failure; "extractive" never calls a model for them
   */
  summaries?: "model" | "extractive";
  /**
   * secret values kept out of what the session itself puts before the model (files re-read after
   * an optimization); default: secretsFromEnv(modelEnv). The web app passes the tools' list.
   */
  secrets?: () => readonly string[];
  /** a summarizer for every session, over `summaries` (tests, benches) */
  summarizer?: Summarizer;
  /**
   * after an answer that leaves the context past the optimization trigger, optimize at once
   * (while the user reads) rather than when the next message is sent; default true
   */
  optimizeAhead?: boolean;
  retryConfig?: RetryConfig;
  /** the runtime's own limits, kept (the session's optimization replaces the runtime's) */
  executionLimits?: ExecutionLimits | null;
  processors?: ProcessorRegistry;
  /**
   * the fold memories of a workspace (context folding: lessons kept by `return {remember}`,
   * injected into later folds); absent: folds keep and get none
   */
  foldMemories?: (workspace: string) => FoldMemorySource | undefined;
  /**
   * the workspace's Claude Code hooks (.claude/settings.json, .arbor/settings.json: docs/hooks.md)
   * that run around the session's tool calls; absent: none run
   */
  commandHooks?: (config: SessionConfig) => CommandHooks | undefined;
  /** records loop trees into the store; one is made per manager when absent */
  recorder?: LoopRecorder;
  /**
   * several instances on one database (PostgreSQL): leases, cross-instance events and control
   * (store/coordination.ts); absent for a single process
   */
  coordinator?: SessionCoordinator;
  /**
   * per-person monthly token budgets (llm/token-budget.ts): every model request of an operation
   * that acts for a person is checked against theirs before it is sent, and its tokens counted;
   * absent: no budgets
   */
  tokenBudget?: TokenBudget;
  /**
   * a cached session at rest this long (ms: nothing runs, waits or listens in it, and nobody asked
   * for it) leaves the manager's cache and is read from the store on its next use; 0 keeps every
   * session cached (default DEFAULT_IDLE_SESSION_MS)
   */
  idleSessionMs?: number;
  newId?: () => string;
  now?: () => Date;
}

type ModelEnv = Record<string, string | undefined>;

export interface ResolvedDeps
  extends Required<
    Omit<
      SessionDeps,
      | "model"
      | "modelEnv"
      | "recorder"
      | "executionLimits"
      | "mcp"
      | "summarizer"
      | "coordinator"
      | "tokenBudget"
      | "foldMemories"
      | "commandHooks"
      | "skills"
      | "agents"
    >
  > {
  /** the default model as it is now (see SessionDeps.model) */
  model: () => ModelConfig;
  /** the provider variables as they are now (see SessionDeps.modelEnv) */
  modelEnv: () => ModelEnv;
  foldMemories: SessionDeps["foldMemories"];
  commandHooks: SessionDeps["commandHooks"];
  skills: (config: SessionConfig) => SkillCatalog | undefined;
  agents: (config: SessionConfig) => AgentCatalog | undefined;
  coordinator: SessionCoordinator | undefined;
  tokenBudget: TokenBudget | undefined;
  summarizer: Summarizer | undefined;
  executionLimits: ExecutionLimits | null;
  mcp: McpResourceReader | undefined;
  recorder: LoopRecorder | undefined;
  /** shared by every session of one manager: set by SessionManager.drain */
  lifecycle: { draining: boolean };
}

/** SessionDeps.idleSessionMs by default: 5 minutes */
export const DEFAULT_IDLE_SESSION_MS = 5 * 60_000;

const consoleLogger: Logger = {
  debug: () => undefined,
  info: (message, fields) => console.info(message, fields ?? {}),
  warn: (message, fields) => console.warn(message, fields ?? {}),
  error: (message, fields) => console.error(message, fields ?? {}),
};

export function resolveDeps(deps: SessionDeps): ResolvedDeps {
  const { model, modelEnv = process.env } = deps;
  const currentEnv = typeof modelEnv === "function" ? modelEnv : () => modelEnv;
  return {
    store: deps.store,
    provider: deps.provider,
    model: typeof model === "function" ? model : () => model,
    tools:
      deps.tools ??
      ((config) =>
        config.workspace ? createDefaultTools({ workspaceRoot: config.workspace }) : []),
    modelEnv: currentEnv,
    mcp: deps.mcp,
    skills: deps.skills ?? (() => undefined),
    agents: deps.agents ?? (() => undefined),
    role: deps.role ?? "actor",
    titles: deps.titles ?? "model",
    logger: deps.logger ?? consoleLogger,
    summaries: deps.summaries ?? "model",
    summarizer: deps.summarizer,
    secrets: deps.secrets ?? (() => secretsFromEnv(currentEnv())),
    optimizeAhead: deps.optimizeAhead ?? true,
    retryConfig: deps.retryConfig ?? DEFAULT_RETRY_CONFIG,
    executionLimits:
      deps.executionLimits === undefined ? DEFAULT_EXECUTION_LIMITS : deps.executionLimits,
    processors: deps.processors ?? createProcessorRegistry(),
    recorder: deps.recorder,
    foldMemories: deps.foldMemories,
    commandHooks: deps.commandHooks,
    coordinator: deps.coordinator,
    tokenBudget: deps.tokenBudget,
    idleSessionMs: deps.idleSessionMs ?? DEFAULT_IDLE_SESSION_MS,
    newId: deps.newId ?? randomUUID,
    now: deps.now ?? (() => new Date()),
    lifecycle: { draining: false },
  };
}
