import path from "node:path";
import type { Logger } from "../agent/types.js";
import { combineVerdicts, type HookVerdict, verdictOf } from "./hook-output.js";
import { type HookRunnerOptions, runHookCommand } from "./run-hook.js";
import {
  type HookDefinition,
  type HookEvent,
  type HookSettings,
  readHookSettings,
} from "./settings.js";

// A workspace's Claude Code hooks, run in Arbor's sessions (docs/hooks.md). Each event's method
// reads the settings files again (an edit applies to the next event), keeps the hooks whose event
// and matcher fit, drops those no person trusted (logged; GET /api/workspace/trust lists them),
// runs the rest side by side and combines their verdicts. Nothing here throws: a hook that fails
// is logged and the action goes ahead, as in Claude Code.

/** Arbor's built-in tools under Claude Code's names: matchers and scripts written for it work. */
export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  bash: "Bash",
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  list_files: "LS",
  search: "Grep",
});

/** The name a hook sees for an Arbor tool (MCP tools are `mcp__<server>__<tool>` already). */
export function claudeCodeToolName(arborName: string): string {
  return CLAUDE_CODE_TOOL_NAMES[arborName] ?? arborName;
}

/** What every event's input carries (Claude Code's common fields). */
export interface HookSessionInfo {
  session_id: string;
  /** Arbor keeps no transcript file: always "" */
  transcript_path?: string;
  /** the session's permission mode, in Claude Code's words (`default`, `plan`, …) */
  permission_mode?: string;
}

export interface ToolHookCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}

export interface CommandHooksOptions {
  runner: HookRunnerOptions;
  /** whether a person trusted this definition as it is now (trust/WorkspaceTrust) */
  isTrusted: (definition: HookDefinition) => boolean;
  logger: Logger;
  /** default: readHookSettings(runner.workspace) */
  read?: () => HookSettings;
}

export class CommandHooks {
  readonly #options: CommandHooksOptions;
  /** untrusted definitions already logged (by hash): one warning each, not one per event */
  readonly #warned = new Set<string>();

  constructor(options: CommandHooksOptions) {
    this.#options = options;
  }

  get workspace(): string {
    return this.#options.runner.workspace;
  }

  /** Every hook definition of the workspace's settings files, trusted or not. */
  definitions(): HookDefinition[] {
    return this.#read().definitions;
  }

  /** Before a tool call runs: `block` is the reason the model gets instead of the tool's result. */
  preToolUse(
    info: HookSessionInfo,
    call: ToolHookCall,
    signal?: AbortSignal,
  ): Promise<HookVerdict> {
    return this.#fire(
      "PreToolUse",
      call.toolName,
      { ...info, ...toolInput(this.workspace, call) },
      signal,
    );
  }

  /** After a tool call succeeded: `block` and `context` are text the model gets with the result. */
  postToolUse(
    info: HookSessionInfo,
    call: ToolHookCall,
    response: unknown,
    signal?: AbortSignal,
  ): Promise<HookVerdict> {
    return this.#fire(
      "PostToolUse",
      call.toolName,
      { ...info, ...toolInput(this.workspace, call), tool_response: response },
      signal,
    );
  }

  /** Before a prompt is answered: `block` refuses it (the reason is the person's), `context` is added. */
  userPromptSubmit(
    info: HookSessionInfo,
    prompt: string,
    signal?: AbortSignal,
  ): Promise<HookVerdict> {
    return this.#fire("UserPromptSubmit", undefined, { ...info, prompt }, signal);
  }

  /**
   * When the agent (`Stop`) or a sub-agent (`SubagentStop`) would end its answer: `block` is the
   * instruction it goes on with. `stopHookActive`: it already goes on because of such a hook.
   */
  stop(
    event: "Stop" | "SubagentStop",
    info: HookSessionInfo,
    stopHookActive: boolean,
    signal?: AbortSignal,
  ): Promise<HookVerdict> {
    return this.#fire(event, undefined, { ...info, stop_hook_active: stopHookActive }, signal);
  }

  /** Before the context is compacted; observational: its verdict is only logged. */
  async preCompact(
    info: HookSessionInfo,
    trigger: "manual" | "auto",
    customInstructions: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#fire(
      "PreCompact",
      trigger,
      { ...info, trigger, custom_instructions: customInstructions },
      signal,
    );
  }

  async #fire(
    event: HookEvent,
    subject: string | undefined,
    fields: HookSessionInfo & Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<HookVerdict> {
    const { logger, runner, isTrusted } = this.#options;
    const matching = this.#read().definitions.filter(
      (d) => d.event === event && matches(d, event, subject, logger),
    );
    const trusted = matching.filter((d) => {
      if (isTrusted(d)) return true;
      if (!this.#warned.has(d.hash)) {
        this.#warned.add(d.hash);
        logger.warn("hook not run: no person trusted it (Settings › Workspace trust)", {
          file: d.file,
          name: d.name,
        });
      }
      return false;
    });
    if (trusted.length === 0) return {};
    // Claude Code runs identical commands once
    const unique = [...new Map(trusted.map((d) => [d.command, d])).values()];
    const input = {
      transcript_path: "",
      cwd: runner.workspace,
      hook_event_name: event,
      ...fields,
    };
    const verdicts = await Promise.all(
      unique.map(async (definition) => {
        const run = await runHookCommand(definition, input, runner, signal);
        const verdict = verdictOf(event, run);
        const where = { event, file: definition.file, name: definition.name };
        if (verdict.problem !== undefined) {
          logger.warn("hook failed; going ahead", { ...where, problem: verdict.problem });
        } else if (verdict.block !== undefined) {
          logger.info("hook blocked", { ...where, reason: verdict.block.slice(0, 500) });
        }
        return verdict;
      }),
    );
    return combineVerdicts(verdicts);
  }

  #read(): HookSettings {
    const settings = (this.#options.read ?? (() => readHookSettings(this.workspace)))();
    return settings;
  }
}

/**
 * Claude Code's matchers: absent, "" or "*" match everything; otherwise a regular expression that
 * must match the whole name. A tool is matched by its Claude Code name and by Arbor's own
 * (`Bash` and `bash` both match bash). PreCompact's matcher is the trigger (`manual`, `auto`);
 * the other events have none.
 */
export function matches(
  definition: Pick<HookDefinition, "matcher">,
  event: HookEvent,
  subject: string | undefined,
  logger?: Logger,
): boolean {
  const { matcher } = definition;
  if (subject === undefined || matcher === undefined || matcher === "" || matcher === "*")
    return true;
  if (event !== "PreToolUse" && event !== "PostToolUse" && event !== "PreCompact") return true;
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${matcher})$`);
  } catch (error) {
    logger?.warn("hook matcher is not a regular expression; the hook never runs", {
      matcher,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
  const names = event === "PreCompact" ? [subject] : [claudeCodeToolName(subject), subject];
  return names.some((name) => pattern.test(name));
}

/** tool_name and tool_input as a hook reads them: Claude Code's name, and `file_path` for files. */
function toolInput(workspace: string, call: ToolHookCall): Record<string, unknown> {
  const input: Record<string, unknown> = { ...call.args };
  if (CLAUDE_CODE_TOOL_NAMES[call.toolName] !== undefined && typeof call.args.path === "string") {
    input.file_path = path.resolve(workspace, call.args.path);
  }
  return {
    tool_name: claudeCodeToolName(call.toolName),
    tool_input: input,
    tool_use_id: call.toolCallId,
    arbor_tool_name: call.toolName,
  };
}
