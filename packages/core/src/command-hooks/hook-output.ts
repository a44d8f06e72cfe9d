import type { HookRun } from "./run-hook.js";
import type { HookEvent } from "./settings.js";

// What one hook command's end means, by Claude Code's contract (docs/hooks.md):
//   exit 0   success; stdout may be JSON (below). UserPromptSubmit: plain stdout is context
//            added to the prompt. Otherwise stdout is only logged.
//   exit 2   a blocking error: stderr is the reason. PreToolUse: the call does not run and the
//            model gets stderr; PostToolUse: the model gets stderr (the tool already ran);
//            UserPromptSubmit: the prompt is refused (stderr to the person, not the model);
//            Stop / SubagentStop: the agent goes on with stderr as its instruction; PreCompact:
//            stderr is logged only.
//   other    a non-blocking error: logged, the action goes ahead. So do a timeout, a refused
//            sandbox and a command that could not start.
// JSON on stdout (exit 0): `decision: "block"` with `reason` (PostToolUse, UserPromptSubmit,
// Stop, SubagentStop; legacy on PreToolUse), `hookSpecificOutput.permissionDecision: "deny"`
// with `permissionDecisionReason` (PreToolUse), `hookSpecificOutput.additionalContext`
// (PostToolUse, UserPromptSubmit), `continue: false` with `stopReason` (every event: what the
// hook wanted done is refused, stopReason given as the reason).

/** One hook's verdict. */
export interface HookVerdict {
  /** the action is refused (a tool call, a prompt) or the agent must go on (Stop): the reason */
  block?: string;
  /** text the model gets beside the action (PostToolUse feedback, a prompt's context) */
  context?: string;
  /** for the log: why the hook did not answer (a non-blocking error, a timeout, a refusal) */
  problem?: string;
}

/** Reads a run by `event`'s rules. Pure. */
export function verdictOf(event: HookEvent, run: HookRun): HookVerdict {
  switch (run.type) {
    case "timed_out":
      return { problem: `timed out after ${run.timeoutSeconds}s` };
    case "not_started":
      return { problem: `not started: ${run.reason}` };
    case "cancelled":
      return { problem: "cancelled" };
    case "exited":
      break;
    default:
      return run satisfies never;
  }
  if (run.code === 2) {
    const reason = run.stderr.trim() || `${event} hook exited with code 2`;
    return event === "PreCompact" ? { problem: `exit 2: ${reason}` } : { block: reason };
  }
  if (run.code !== 0) {
    return { problem: `exit ${run.code}${run.stderr.trim() ? `: ${firstLines(run.stderr)}` : ""}` };
  }
  const output = parseJsonOutput(run.stdout);
  if (output === undefined) {
    // plain stdout is context for a prompt, and nothing anywhere else
    const text = run.stdout.trim();
    return event === "UserPromptSubmit" && text !== "" ? { context: text } : {};
  }
  const verdict: HookVerdict = {};
  const specific = isRecord(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const reason = stringOf(output.reason);
  if (output.continue === false) {
    verdict.block = stringOf(output.stopReason) ?? reason ?? `stopped by a ${event} hook`;
  } else if (event === "PreToolUse") {
    if (specific.permissionDecision === "deny") {
      verdict.block = stringOf(specific.permissionDecisionReason) ?? reason ?? "denied by a hook";
    } else if (output.decision === "block") {
      verdict.block = reason ?? "blocked by a hook";
    }
  } else if (output.decision === "block" && event !== "PreCompact") {
    verdict.block = reason ?? `blocked by a ${event} hook`;
  }
  const context = stringOf(specific.additionalContext);
  if (context !== undefined && (event === "PostToolUse" || event === "UserPromptSubmit")) {
    verdict.context = context;
  }
  return verdict;
}

/** Several hooks of one event (they run side by side): any block wins, contexts add up. */
export function combineVerdicts(verdicts: readonly HookVerdict[]): HookVerdict {
  const blocks = verdicts.flatMap((v) => (v.block !== undefined ? [v.block] : []));
  const contexts = verdicts.flatMap((v) => (v.context !== undefined ? [v.context] : []));
  return {
    ...(blocks.length > 0 ? { block: blocks.join("\n") } : {}),
    ...(contexts.length > 0 ? { context: contexts.join("\n") } : {}),
  };
}

function parseJsonOutput(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstLines(text: string): string {
  return text.trim().split("\n").slice(0, 5).join("\n").slice(0, 1000);
}
