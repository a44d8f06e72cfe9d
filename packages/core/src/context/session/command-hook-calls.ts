import type { AgentHooks } from "../../agent/types.js";
import type { CommandHooks, HookSessionInfo } from "../../command-hooks/command-hooks.js";
import { userMessage } from "../../model/llm-messages.js";
import type { SessionConfig } from "../../model/session-config.js";
import type { ResolvedDeps } from "./session-deps.js";

/** What these need of a session (StoredSession and ExtendedSession are ones). */
interface HookedSession {
  readonly id: string;
  readonly config: SessionConfig;
  readonly deps: Pick<ResolvedDeps, "commandHooks">;
}

// The workspace's Claude Code hooks (command-hooks/, docs/hooks.md) as loop hooks: PreToolUse
// and PostToolUse around every call that passed the approval gate, in the session's run, its
// folds and its sub-agents; SubagentStop when a sub-agent would end. Stop is the run's own
// (run-driver.ts), UserPromptSubmit the message's (send-message.ts).

/** The fields every hook input carries for this session. */
export function hookSessionInfo(core: HookedSession): HookSessionInfo {
  return {
    session_id: core.id,
    permission_mode: core.config.agent_mode === "plan" ? "plan" : "default",
  };
}

/**
 * A PreToolUse hook that blocks turns the call into an error result carrying its reason; a
 * PostToolUse hook's feedback (a block's reason, additionalContext) is added to the result.
 */
export function toolHookCalls(
  core: HookedSession,
  hooks: CommandHooks,
  signal: () => AbortSignal | undefined,
): Pick<AgentHooks, "beforeToolExecution" | "toolResultFeedback"> {
  return {
    beforeToolExecution: async (call) => {
      const verdict = await hooks.preToolUse(hookSessionInfo(core), call, signal());
      return verdict.block !== undefined ? { block: verdict.block } : true;
    },
    toolResultFeedback: async (call, result) => {
      const output = result.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      const response =
        result.details !== undefined ? { output, details: result.details } : { output };
      const verdict = await hooks.postToolUse(hookSessionInfo(core), call, response, signal());
      const parts = [verdict.block, verdict.context].filter((t): t is string => t !== undefined);
      return parts.length > 0 ? `PostToolUse hook: ${parts.join("\n")}` : undefined;
    },
  };
}

/** A sub-agent's hooks: its calls', and SubagentStop (a block's reason is its next input). */
export function subAgentHookCalls(core: HookedSession): AgentHooks {
  const hooks = core.deps.commandHooks?.(core.config);
  if (hooks === undefined) return {};
  let stopHookActive = false;
  return {
    ...toolHookCalls(core, hooks, () => undefined),
    beforeStop: async () => {
      const verdict = await hooks.stop("SubagentStop", hookSessionInfo(core), stopHookActive);
      if (verdict.block === undefined) return [];
      stopHookActive = true;
      return [userMessage(`SubagentStop hook feedback: ${verdict.block}`)];
    },
  };
}
