import { effectiveConfigId, loopIdOf } from "../../agent/loop-id.js";
import { strategyForMode } from "../../agent/tool-execution.js";
import type { AgentLoopConfig, ToolCallVerdict } from "../../agent/types.js";
import { sessionModelConfig } from "../../llm/env-config.js";
import type { ToolCallContent } from "../../model/llm-messages.js";
import type { PersonRef } from "../../model/person.js";
import type { SessionConfig } from "../../model/session-config.js";
import type { SessionEventBody } from "../../protocol/events.js";
import { createSkillTool, SKILL_TOOL } from "../../skills/skill-tool.js";
import { type AgentDefinition, withoutShadowedAgents } from "../../subagents/agent-files.js";
import { agentTool } from "../../subagents/agent-tools.js";
import { type SubAgentGate, SubAgentTool } from "../../subagents/sub-agent-tool.js";
import type { ToolRegistry, ToolSource } from "../../tools/registry.js";
import type { AnyAgentTool } from "../../tools/tool.js";
import { ASK_QUESTION, isPlanTool, PRESENT_PLAN, toolsForMode } from "../plan-act.js";
import { approvalFor, deniedResultText, readOnlyNames, userNote } from "./approval-policy.js";
import { subAgentHookCalls } from "./command-hook-calls.js";
import { childContext } from "./loop-context.js";
import type { NestedApprovals } from "./nested-approvals.js";
import type { OptimizingSession } from "./optimizer-settings.js";
import type { ResolvedDeps } from "./session-deps.js";

/** What this file needs of a session (StoredSession, which builds its registry with it). */
export interface ExtendedSession extends OptimizingSession {
  readonly id: string;
  readonly config: SessionConfig;
  readonly deps: ResolvedDeps;
  /** the session's tools now (its registry's list) */
  readonly tools: readonly AnyAgentTool[];
  /** where a child's call held for a person waits (nested-approvals.ts) */
  readonly nestedApprovals: NestedApprovals;
  /** stores events (StoredSession.commit) */
  commit(change: { events: SessionEventBody[] }): Promise<unknown>;
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
//   policy holds for a person waits for one (decision 0035), as a fold's does: a
//   `subagent_update` of kind `approval` (pending_approval) is stored, the call waits in the
//   session's nested approvals, and POST /approvals decides it at once (its decision is another
//   such event; denied → the child gets DENIED_RESULT_TEXT with the person's reason). Cancelling the call denies it.
//   Outside a session's call (no `parent`), a held call is denied (SUB_AGENT_HELD_TEXT);
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
    const ownerOf = toolNameOwner(base);
    let warned = "";
    sources.push({
      tools: () => {
        // an agent named like a tool listed before it could never be called: not offered, and
        // said so (here in the log; GET /api/agents lists it as a problem)
        const offered = withoutShadowedAgents(agents.current(), ownerOf);
        const shadowed = offered.problems.slice(agents.current().problems.length);
        const signature = shadowed.map((p) => p.path).join("\n");
        if (signature !== warned) {
          warned = signature;
          for (const problem of shadowed) {
            core.deps.logger.warn("sub-agent not offered", {
              session: core.id,
              path: problem.path,
              reason: problem.reason,
            });
          }
        }
        return offered.agents.map((definition) => {
          let tool = cache.get(definition);
          if (tool === undefined) {
            tool = agentTool(definition, subAgentHost(core, definition.name));
            cache.set(definition, tool);
          }
          return tool;
        });
      },
      version: () => agents.version(),
    });
  }
  return sources.length === 0 ? base : base.withSources(sources);
}

/**
 * What already has the tool name `name` in a session whose registry is `base`, before its
 * sub-agents (the registry gives a name to the first tool listed): a built-in, an MCP server's
 * or an OpenAPI spec's tool, or one the session adds itself (the skill tool, plan mode's tools).
 * Undefined: the name is free. The web app's GET /api/agents asks the same.
 */
export function toolNameOwner(
  base: Pick<ToolRegistry, "origin">,
): (name: string) => string | undefined {
  return (name) => {
    // the skill tool's name is kept even while there are no skills: a skill added later must not
    // silently replace a sub-agent
    if (name === PRESENT_PLAN || name === ASK_QUESTION || name === SKILL_TOOL) {
      return `the built-in tool ${name}`;
    }
    const origin = base.origin(name);
    if (origin === undefined) return undefined;
    switch (origin.kind) {
      case "builtin":
        return `the built-in tool ${name}`;
      case "mcp":
        return `the tool ${name} of the MCP server "${origin.server}"`;
      case "openapi":
        return `the tool ${name} of the OpenAPI spec "${origin.spec}"`;
      default:
        return origin satisfies never;
    }
  };
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

function subAgentHost(core: ExtendedSession, agentName: string) {
  const { deps } = core;
  const issued = new Set<string>();
  const childTools = (): AnyAgentTool[] =>
    toolsForMode(core.tools, core.config.agent_mode, core.config.agent_role ?? deps.role).filter(
      (t) => !isPlanTool(t.name) && !(t instanceof SubAgentTool),
    );
  return {
    sessionId: core.id,
    agentId: "arbor",
    provider: deps.provider,
    model: () =>
      core.config.model
        ? sessionModelConfig(deps.model(), core.config.model, deps.modelEnv())
        : deps.model(),
    thinkingLevel: () => core.config.model?.thinking_level,
    modelEnv: deps.modelEnv(),
    parentTools: childTools,
    approveToolCalls: ((calls: readonly ToolCallContent[], info) => {
      const offered = new Set(childTools().map((t) => t.name));
      const readOnly = readOnlyNames(childTools());
      return Promise.all(
        calls.map(async (call): Promise<ToolCallVerdict> => {
          if (!offered.has(call.name)) {
            return { toolCallId: call.id, verdict: "deny", reason: `Tool ${call.name} not found` };
          }
          const first = approvalFor(core.config, call, (n) => readOnly.has(n));
          if (first.approval === "auto_approved") {
            return {
              toolCallId: call.id,
              verdict: "run",
              ...(first.note !== undefined ? { rule: first.note } : {}),
            };
          }
          const parent = info.parent;
          if (parent === undefined) {
            return { toolCallId: call.id, verdict: "deny", reason: SUB_AGENT_HELD_TEXT };
          }
          const event = (
            status: "pending_approval" | "approved" | "denied",
            cancelled = false,
            by?: PersonRef | null,
          ): SessionEventBody => ({
            name: "subagent_update",
            payload: {
              context_id: core.id,
              tool_call_id: parent.toolCallId,
              tool_name: agentName,
              loop_id: parent.loopId,
              kind: "approval",
              call_id: call.id,
              call_name: call.name,
              ...(status === "pending_approval" ? { arguments: call.arguments } : {}),
              status,
              ...(cancelled ? { cancelled: true } : {}),
              ...(by !== undefined ? { decided_by: by } : {}),
            },
          });
          // stored before a decision (which can only come once the event is out); it waits at
          // once, so a cancellation's event follows this one
          let stored: Promise<unknown> = core.commit({ events: [event("pending_approval")] });
          const shown = stored;
          const decision = core.nestedApprovals.wait(
            call.id,
            {
              toolName: call.name,
              decisionEvent: (status, by) => event(status, false, by),
              stored: () => stored.then(() => undefined),
              cancelled: () => {
                stored = stored.then(() => core.commit({ events: [event("denied", true)] }));
                void stored.catch(() => undefined);
              },
            },
            parent.signal,
          );
          try {
            await shown;
          } catch (error) {
            // not shown to anyone: nobody can decide it
            core.nestedApprovals.decide(call.id, "deny");
            deps.logger.error("a sub-agent's held call could not be stored", {
              session: core.id,
              error: error instanceof Error ? error.message : String(error),
            });
          }
          const verdict = await decision;
          const by = core.nestedApprovals.decidedBy(call.id);
          const source = by !== undefined ? { decidedBy: by } : { rule: "cancelled" };
          return verdict.decision === "approve"
            ? { toolCallId: call.id, verdict: "run", ...source }
            : {
                toolCallId: call.id,
                verdict: "deny",
                // the person's reason, as a top-level call's model receives it
                reason: deniedResultText(userNote(verdict.reason)),
                ...source,
              };
        }),
      );
    }) satisfies SubAgentGate,
    base: (): Partial<AgentLoopConfig> => ({
      retryConfig: deps.retryConfig,
      executionLimits: deps.executionLimits,
      contextConfig: null,
      toolExecution: strategyForMode(core.config.tool_execution),
      logger: deps.logger,
      ...(core.config.model?.max_tokens !== undefined
        ? { maxTokens: core.config.model.max_tokens }
        : {}),
    }),
    // the session's optimization and overflow recovery, as for every loop (loop-context.ts)
    context: (setup: Parameters<typeof childContext>[1]) => childContext(core, setup),
    hooks: () => subAgentHookCalls(core),
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
