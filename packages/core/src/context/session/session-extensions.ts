import { effectiveConfigId, loopIdOf } from "../../agent/loop-id.js";
import { SubAgentTool } from "../../agent/sub-agent.js";
import type { AgentLoopConfig, ToolCallVerdict } from "../../agent/types.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ToolCallContent } from "../../model/llm-messages.js";
import type { SessionConfig } from "../../model/session-config.js";
import { createSkillTool, SKILL_TOOL } from "../../skills/skill-tool.js";
import type { AgentDefinition } from "../../subagents/agent-files.js";
import { agentTool } from "../../subagents/agent-tools.js";
import type { ToolRegistry, ToolSource } from "../../tools/registry.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { isPlanTool, toolsForMode } from "../plan-act.js";
import { initialApproval } from "./approval-policy.js";
import type { ResolvedDeps } from "./session-deps.js";

/** What this file needs of a session (StoredSession, which builds its registry with it). */
export interface ExtendedSession {
  readonly id: string;
  readonly config: SessionConfig;
  readonly deps: ResolvedDeps;
  /** the session's tools now (its registry's list) */
  readonly tools: readonly AnyAgentTool[];
}

// A session's skills and sub-agents (issue #14): the `skill` tool (when there are skills) and one
// sub-agent tool per agent file join the session's tool registry as two more live sources, so the
// model's tool list, plan mode's filter and the approval gate treat them like any tool. The
// libraries are re-read (cheaply: mtime cache) before each turn's tools and prompt are built.
//
// A sub-agent's child loop:
// - model: its file's `model`, else the session's (subagents/agent-tools.ts agentModel);
// - tools: the parent's tools as the session offers them now (mode and role applied), without
//   sub-agent tools (no nesting) and without present_plan / ask_question, or those its file names;
// - approval gate: the session's approval policy. A call the policy runs at once runs; a call the
//   policy would hold for a person is denied with a reason (SUB_AGENT_HELD_TEXT): a sub-agent
//   cannot stop and wait for a decision the way the session does (docs/decisions/0032);
// - loop: numbered from the store like the session's own loops, recorded as a child of the loop
//   that called it (the admin loop tree), its events shown live as `subagent_update`.

export const SUB_AGENT_HELD_TEXT =
  "This tool call needs the user's approval, which a sub-agent cannot wait for: the approval " +
  "policy runs only some tools without asking. Do without it, or say in your answer what needs doing.";

/** The registry with the session's skill and sub-agent sources added. */
export function extendedRegistry(core: ExtendedSession, base: ToolRegistry): ToolRegistry {
  const sources: ToolSource[] = [];
  const skills = core.deps.skills(core.config);
  if (skills !== undefined) {
    const tool = createSkillTool(() => skills.current());
    sources.push({
      tools: () => (skills.current().size > 0 ? [tool] : []),
      version: () => skills.version(),
    });
  }
  const agents = core.deps.agents(core.config);
  if (agents !== undefined) {
    const cache = new Map<AgentDefinition, SubAgentTool>();
    sources.push({
      tools: () =>
        agents.current().agents.map((definition) => {
          let tool = cache.get(definition);
          if (tool === undefined) {
            tool = agentTool(definition, subAgentHost(core));
            cache.set(definition, tool);
          }
          return tool;
        }),
      version: () => agents.version(),
    });
  }
  return sources.length === 0 ? base : base.withSources(sources);
}

/** Re-reads the session's skill and agent directories (before a turn's tools and prompt). */
export function refreshExtensions(core: ExtendedSession): void {
  try {
    core.deps.skills(core.config)?.load();
    core.deps.agents(core.config)?.load();
  } catch (error) {
    core.deps.logger.warn("skills or agent files could not be read", {
      session: core.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The `<available_skills>` section of the system prompt when `tools` offer the skill tool. */
export function skillsPrompt(core: ExtendedSession, tools: readonly AnyAgentTool[]): string {
  if (!tools.some((t) => t.name === SKILL_TOOL)) return "";
  return core.deps.skills(core.config)?.current().formatForPrompt() ?? "";
}

function subAgentHost(core: ExtendedSession) {
  const { deps } = core;
  const issued = new Set<string>();
  const childTools = (): AnyAgentTool[] =>
    toolsForMode(core.tools, core.config.agent_mode, deps.role).filter(
      (t) => !isPlanTool(t.name) && !(t instanceof SubAgentTool),
    );
  return {
    sessionId: core.id,
    agentId: "arbor",
    provider: deps.provider,
    model: () =>
      core.config.model
        ? sessionModelConfig(deps.model, core.config.model, deps.modelEnv)
        : deps.model,
    thinkingLevel: () => core.config.model?.thinking_level,
    modelEnv: deps.modelEnv,
    parentTools: childTools,
    approveToolCalls: (calls: readonly ToolCallContent[]): ToolCallVerdict[] => {
      const offered = new Set(childTools().map((t) => t.name));
      return calls.map((call): ToolCallVerdict => {
        if (!offered.has(call.name)) {
          return { toolCallId: call.id, verdict: "deny", reason: `Tool ${call.name} not found` };
        }
        return initialApproval(core.config.approval_policy, call.name) === "auto_approved"
          ? { toolCallId: call.id, verdict: "run" }
          : { toolCallId: call.id, verdict: "deny", reason: SUB_AGENT_HELD_TEXT };
      });
    },
    base: (): Partial<AgentLoopConfig> => ({
      retryConfig: deps.retryConfig,
      executionLimits: deps.executionLimits,
      contextConfig: null,
      toolExecution: { type: "sequential" },
      logger: deps.logger,
      ...(core.config.model?.max_tokens !== undefined
        ? { maxTokens: core.config.model.max_tokens }
        : {}),
    }),
    promptSuffix: (tools: readonly AnyAgentTool[]) => {
      const block = skillsPrompt(core, tools);
      return block === "" ? "" : skillsSection(block);
    },
    // numbered from the store like the session's loops, so a restart never reuses an id; the
    // running parent's record is written first (the recorder writes behind), and ids handed out
    // here whose records are not stored yet are skipped
    loopId: async (config: AgentLoopConfig) => {
      await deps.recorder?.flush();
      const configId = effectiveConfigId(config);
      let n = await deps.store.nextLoopNumber(core.id, configId);
      while (issued.has(loopIdOf(core.id, configId, n))) n++;
      const id = loopIdOf(core.id, configId, n);
      issued.add(id);
      return id;
    },
    onLoopEvent: (event: Parameters<NonNullable<typeof deps.recorder>["onEvent"]>[0]) => {
      deps.recorder?.onEvent(event);
    },
  };
}

/** The system prompt's skills section around the `<available_skills>` block. */
export function skillsSection(block: string): string {
  return [
    "## Skills",
    `Skills hold instructions for particular tasks. When a task matches a skill's description, load the skill with the \`${SKILL_TOOL}\` tool first and follow it; load its files only when its instructions point to them.`,
    block,
  ].join("\n");
}
