import type {
  AgentEvent,
  AgentHooks,
  AgentLoopConfig,
  ChildLoopSetup,
  LoopContextHandling,
} from "../agent/types.js";
import { sessionModelConfig } from "../llm/env-config.js";
import type { StreamProvider } from "../llm/provider.js";
import { ApiProtocolSchema, type ModelConfig, type ThinkingLevel } from "../model/llm-config.js";
import type { AnyAgentTool } from "../tools/tool.js";
import type { AgentDefinition } from "./agent-files.js";
import { type SubAgentGate, SubAgentTool } from "./sub-agent-tool.js";

// Agent definitions → sub-agent tools bound to a host (a session): the child's model, tools and
// approval gate are asked of the host at each call, so a change of the session's model, mode or
// tools applies to the next call.

export interface SubAgentHost {
  sessionId?: string;
  agentId?: string;
  provider: StreamProvider;
  /** the session's model now (the child's when its file names none) */
  model: () => ModelConfig;
  thinkingLevel?: () => ThinkingLevel | undefined;
  /** environment for a `<protocol>/<model>` on another provider (its key) */
  modelEnv?: Record<string, string | undefined>;
  /** the parent's tools now, as the model is offered them; sub-agent tools are never passed on */
  parentTools: () => readonly AnyAgentTool[];
  /** the approval gate the child's tool calls go through (told the call it runs in) */
  approveToolCalls?: SubAgentGate;
  /** what the child inherits of the parent's loop config (retry, limits, logger) */
  base?: () => Partial<AgentLoopConfig>;
  /** how each child keeps its context within the model's window (SubAgentOptions.context) */
  context?: (setup: ChildLoopSetup) => LoopContextHandling;
  /** the child's own hooks (the workspace's command hooks: its calls', SubagentStop) */
  hooks?: () => AgentHooks;
  /** appended to the child's system prompt (the skills it may load) */
  promptSuffix?: (tools: readonly AnyAgentTool[]) => string;
  maxTurns?: number;
  loopId?: (config: AgentLoopConfig) => string | Promise<string>;
  onLoopEvent?: (event: AgentEvent) => void | PromiseLike<void>;
}

/** Claude Code's model aliases on Anthropic. */
export const CLAUDE_MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: "claude-sonnet-4-5",
  opus: "claude-opus-4-1",
  haiku: "claude-haiku-4-5",
});

/**
 * The model an agent file's `model` names, given the session's. Throws an Error saying why
 * (an unknown protocol, a missing key) — the call then fails with that reason.
 */
export function agentModel(
  model: string | undefined,
  session: ModelConfig,
  env: Record<string, string | undefined> = process.env,
): ModelConfig {
  if (model === undefined || model === "inherit") return session;
  const alias = CLAUDE_MODEL_ALIASES[model];
  if (alias !== undefined) {
    return session.protocol === "anthropic-messages" ? { ...session, model: alias } : session;
  }
  const slash = model.indexOf("/");
  if (slash > 0) {
    const protocol = ApiProtocolSchema.safeParse(model.slice(0, slash));
    if (protocol.success) {
      return sessionModelConfig(
        session,
        { protocol: protocol.data, model: model.slice(slash + 1) },
        env,
      );
    }
  }
  return { ...session, model };
}

/** The child's tools: the parent's (no sub-agents), or those the file names, in its order. */
export function agentChildTools(
  definition: AgentDefinition,
  parent: readonly AnyAgentTool[],
): AnyAgentTool[] {
  const candidates = parent.filter((t) => !(t instanceof SubAgentTool));
  if (definition.tools === undefined) return candidates;
  const byName = new Map(candidates.map((t) => [t.name, t]));
  return definition.tools.flatMap((name) => {
    const tool = byName.get(name);
    return tool ? [tool] : [];
  });
}

/** One definition as a tool bound to `host`. */
export function agentTool(definition: AgentDefinition, host: SubAgentHost): SubAgentTool {
  const tools = () => agentChildTools(definition, host.parentTools());
  return new SubAgentTool({
    name: definition.name,
    label: `Agent ${definition.name}`,
    description: `${definition.description}\n\n(A sub-agent: it works on \`task\` in its own context and answers with its final text.)`,
    provider: host.provider,
    model: () => agentModel(definition.model, host.model(), host.modelEnv),
    systemPrompt: () => {
      const own =
        definition.systemPrompt ||
        `You are ${definition.name}, a sub-agent: ${definition.description}`;
      const suffix = host.promptSuffix?.(tools()) ?? "";
      return suffix === "" ? own : `${own}\n\n${suffix}`;
    },
    tools,
    ...(host.maxTurns !== undefined ? { maxTurns: host.maxTurns } : {}),
    ...(host.base ? { base: host.base } : {}),
    ...(host.context ? { context: host.context } : {}),
    ...(host.hooks ? { hooks: host.hooks } : {}),
    ...(host.thinkingLevel ? { thinkingLevel: host.thinkingLevel } : {}),
    ...(host.approveToolCalls ? { approveToolCalls: host.approveToolCalls } : {}),
    ...(host.sessionId !== undefined ? { sessionId: host.sessionId } : {}),
    ...(host.agentId !== undefined ? { agentId: host.agentId } : {}),
    ...(host.loopId ? { loopId: host.loopId } : {}),
    ...(host.onLoopEvent ? { onLoopEvent: host.onLoopEvent } : {}),
    category: "other",
  });
}
