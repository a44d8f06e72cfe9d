import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type ConfigDefinition, definitionHash } from "../trust/definitions.js";

// Claude Code's hooks, read from a workspace's settings files (docs/hooks.md). The `hooks` key of
// each file maps an event to matcher groups, each with its commands:
//   { "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command",
//     "command": "./check.sh", "timeout": 30 } ] } ] } }
// Every command is one definition of the workspace's executable configuration: inert until a
// person trusts it (trust/), named by its place in its file, hashed with its event and matcher.

/** The events Arbor runs, with Claude Code's names. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The settings files read, relative to the workspace, in this order. */
export const HOOK_SETTINGS_FILES = [
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".arbor/settings.json",
] as const;

/** Claude Code's default: a command may run 60 s. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

export interface HookDefinition extends ConfigDefinition {
  kind: "hook";
  event: HookEvent;
  /** as written; absent, "" and "*" match everything */
  matcher?: string;
  command: string;
  timeoutSeconds: number;
}

export interface HookSettings {
  definitions: HookDefinition[];
  /** what could not be read, one sentence each (a file that is not JSON, an unknown event) */
  problems: string[];
}

/** Reads the hooks of the workspace's settings files now. Never throws. */
export function readHookSettings(workspace: string): HookSettings {
  const definitions: HookDefinition[] = [];
  const problems: string[] = [];
  for (const file of HOOK_SETTINGS_FILES) {
    const absolute = path.join(workspace, file);
    if (!existsSync(absolute)) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(absolute, "utf8"));
    } catch (error) {
      problems.push(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const hooks = isRecord(parsed) ? parsed.hooks : undefined;
    if (hooks === undefined) continue;
    if (!isRecord(hooks)) {
      problems.push(`${file}: "hooks" is not an object`);
      continue;
    }
    for (const [event, groups] of Object.entries(hooks)) {
      if (!isHookEvent(event)) {
        problems.push(`${file}: hooks.${event} is not an event Arbor runs; it is ignored`);
        continue;
      }
      if (!Array.isArray(groups)) {
        problems.push(`${file}: hooks.${event} is not a list`);
        continue;
      }
      groups.forEach((group: unknown, g) => {
        const where = `hooks.${event}[${g}]`;
        if (!isRecord(group) || !Array.isArray(group.hooks)) {
          problems.push(`${file}: ${where} has no "hooks" list`);
          return;
        }
        const matcher = typeof group.matcher === "string" ? group.matcher : undefined;
        group.hooks.forEach((hook: unknown, h) => {
          const name = `${event}[${g}].hooks[${h}]`;
          if (!isRecord(hook) || hook.type !== "command" || typeof hook.command !== "string") {
            problems.push(`${file}: ${name} is not {"type": "command", "command": "…"}`);
            return;
          }
          const timeout =
            typeof hook.timeout === "number" && hook.timeout > 0
              ? hook.timeout
              : DEFAULT_HOOK_TIMEOUT_SECONDS;
          const hashed = {
            event,
            ...(matcher !== undefined ? { matcher } : {}),
            command: hook.command,
            timeout,
          };
          definitions.push({
            kind: "hook",
            file,
            name,
            hash: definitionHash(hashed),
            event,
            ...(matcher !== undefined ? { matcher } : {}),
            command: hook.command,
            timeoutSeconds: timeout,
            runs: {
              command: "bash",
              args: ["-c", hook.command],
              cwd: ".",
              hook: { event, ...(matcher !== undefined ? { matcher } : {}), timeout_s: timeout },
            },
          });
        });
      });
    }
  }
  return { definitions, problems };
}

function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
